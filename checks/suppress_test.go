package checks_test

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/session"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/suppress"
)

const (
	fpA = "0123456789abcdef0123456789abcdef"
	fpB = "fedcba9876543210fedcba9876543210"
)

// A bad file names the file, the line and the entry at fault.
func TestParseSuppressionsErrors(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"empty", "", "s.json: the suppressions file is empty"},
		{"not JSON", "{\n  \"version\": 1,\n  \"suppressions\": [\n    {\"fingerprint\": \"" + fpA + "\", reason: \"x\"}\n", "s.json:4: not JSON"},
		{"cut short", "{\"version\": 1, \"suppressions\": [", "s.json:1: not JSON"},
		{"an array", `[{"fingerprint":"` + fpA + `","reason":"x"}]`, `s.json:1: expected a JSON object {"version": 1`},
		{"version 2", `{"version": 2, "suppressions": []}`, "s.json:1: version 2 is not supported"},
		{"unknown member", `{"version": 1, "ignore": []}`, `s.json:1: unknown member "ignore"`},
		{"suppressions not an array", `{"suppressions": {}}`, "expected suppressions to be an array"},
		{"no reason", "{\"suppressions\": [\n  {\"fingerprint\": \"" + fpA + "\", \"reason\": \"x\"},\n  {\"fingerprint\": \"" + fpB + "\"}\n]}",
			`s.json:3: entry 2 (fingerprint "` + fpB + `"): no reason`},
		{"blank reason", `{"suppressions": [{"fingerprint": "` + fpA + `", "reason": "  "}]}`, "entry 1 (fingerprint \"" + fpA + "\"): no reason"},
		{"no fingerprint", `{"suppressions": [{"reason": "x"}]}`, "s.json:1: entry 1: no fingerprint"},
		{"short fingerprint", `{"suppressions": [{"fingerprint": "abc123", "reason": "x"}]}`, `fingerprint "abc123" is not 32 hexadecimal digits`},
		{"malformed date", `{"suppressions": [{"fingerprint": "` + fpA + `", "reason": "x", "expires": "31/12/2026"}]}`, `expires "31/12/2026" is not a date YYYY-MM-DD`},
		{"impossible date", `{"suppressions": [{"fingerprint": "` + fpA + `", "reason": "x", "expires": "2026-02-30"}]}`, `expires "2026-02-30" is not a date`},
		{"short date", `{"suppressions": [{"fingerprint": "` + fpA + `", "reason": "x", "expires": "2026-9-1"}]}`, `expires "2026-9-1" is not a date`},
		{"duplicate", "{\"suppressions\": [\n{\"fingerprint\": \"" + fpA + "\", \"reason\": \"x\"},\n{\"fingerprint\": \"" + strings.ToUpper(fpA) + "\", \"reason\": \"y\"}\n]}",
			"s.json:3: entry 2 (fingerprint \"" + fpA + "\"): the fingerprint is already suppressed at line 2"},
		{"unknown entry member", `{"suppressions": [{"fingerprint": "` + fpA + `", "reason": "x", "until": "2026-01-01"}]}`, `entry 1 (fingerprint "` + fpA + `"): unknown member "until"`},
		{"reason not a string", `{"suppressions": [{"fingerprint": "` + fpA + `", "reason": 42}]}`, "reason is not a string"},
		{"entry not an object", `{"suppressions": ["` + fpA + `"]}`, "s.json:1: entry 1: not an object"},
		{"trailing data", `{"suppressions": []} {}`, "unexpected data after the suppressions object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := suppress.Parse("s.json", []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestParseSuppressions(t *testing.T) {
	data := "{\n  \"version\": 1,\n  \"suppressions\": [\n    {\n      \"fingerprint\": \"" + strings.ToUpper(fpB) + "\",\n      \"reason\": \"known\",\n      \"expires\": \"2026-12-31\",\n      \"rule\": \"tool-error\"\n    },\n    {\"fingerprint\": \"" + fpA + "\", \"reason\": \"also known\"}\n  ]\n}\n"
	set, err := suppress.Parse("s.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Entries) != 2 {
		t.Fatalf("%d entries", len(set.Entries))
	}
	a, b := set.Entries[0], set.Entries[1]
	if a.Fingerprint != fpB || a.Reason != "known" || a.Expires != "2026-12-31" || a.Rule != "tool-error" || a.File != "s.json" || a.Line != 4 {
		t.Errorf("entry 1: %+v", a)
	}
	if b.Fingerprint != fpA || b.Line != 10 {
		t.Errorf("entry 2: %+v", b)
	}
	// no version member and no entries is a valid, empty file
	if set, err := suppress.Parse("s.json", []byte(`{}`)); err != nil || len(set.Entries) != 0 {
		t.Errorf("{}: %v, %v", set, err)
	}
}

// The file mcpcheck writes is sorted by fingerprint, reads back the same,
// and writing it again changes nothing.
func TestSuppressionsMarshal(t *testing.T) {
	set := &suppress.Suppressions{}
	set.Put(suppress.Suppression{Fingerprint: fpB, Reason: "b <&>", Expires: "2027-01-31", Rule: "tool-error", Label: "fs", Subject: "tools/call read_file", Message: `tool "read_file" (id 3) reported an error`})
	set.Put(suppress.Suppression{Fingerprint: fpA, Reason: "a"})
	out := set.Marshal()
	want := `{
  "version": 1,
  "suppressions": [
    {
      "fingerprint": "` + fpA + `",
      "reason": "a"
    },
    {
      "fingerprint": "` + fpB + `",
      "reason": "b <&>",
      "expires": "2027-01-31",
      "rule": "tool-error",
      "label": "fs",
      "subject": "tools/call read_file",
      "message": "tool \"read_file\" (id 3) reported an error"
    }
  ]
}
`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	back, err := suppress.Parse("s.json", out)
	if err != nil {
		t.Fatal(err)
	}
	if again := back.Marshal(); !bytes.Equal(again, out) {
		t.Errorf("written again:\n%s", again)
	}
	if back.Entries[0].Line != 4 || back.Entries[1].Line != 8 {
		t.Errorf("entry lines %d, %d; want 4 and 8", back.Entries[0].Line, back.Entries[1].Line)
	}
	if empty := string((&suppress.Suppressions{}).Marshal()); empty != "{\n  \"version\": 1,\n  \"suppressions\": []\n}\n" {
		t.Errorf("empty file: %s", empty)
	}
}

// Put keeps one entry per fingerprint: a second Put updates the reason and
// expiry, and keeps what the entry says of its finding unless told.
func TestSuppressionsPut(t *testing.T) {
	set := &suppress.Suppressions{}
	if !set.Put(suppress.Suppression{Fingerprint: fpA, Reason: "first", Expires: "2026-10-01", Rule: "tool-error", Subject: "tools/call x"}) {
		t.Error("the first Put did not add")
	}
	if set.Put(suppress.Suppression{Fingerprint: fpA, Reason: "second", Subject: "tools/call y"}) {
		t.Error("the second Put added a duplicate")
	}
	if len(set.Entries) != 1 {
		t.Fatalf("%d entries", len(set.Entries))
	}
	e := set.Entries[0]
	if e.Reason != "second" || e.Expires != "" || e.Rule != "tool-error" || e.Subject != "tools/call y" {
		t.Errorf("updated entry %+v", e)
	}
}

// An entry holds through the whole of its expires day, UTC.
func TestSuppressionExpiry(t *testing.T) {
	e := &suppress.Suppression{Expires: "2026-09-14"}
	for _, c := range []struct {
		now     time.Time
		expired bool
	}{
		{time.Date(2026, 9, 14, 0, 0, 0, 0, time.UTC), false},
		{time.Date(2026, 9, 14, 23, 59, 59, 999999999, time.UTC), false},
		{time.Date(2026, 9, 15, 0, 0, 0, 0, time.UTC), true},
		// 01:30 on the 15th in UTC+2 is still the 14th in UTC
		{time.Date(2026, 9, 15, 1, 30, 0, 0, time.FixedZone("CEST", 2*3600)), false},
		{time.Date(2026, 9, 14, 20, 0, 0, 0, time.FixedZone("EDT", -4*3600)), true},
	} {
		if got := e.Expired(c.now); got != c.expired {
			t.Errorf("at %s: expired %v, want %v", c.now, got, c.expired)
		}
	}
	if (&suppress.Suppression{}).Expired(time.Now()) {
		t.Error("an entry without expires expired")
	}
}

// suppressRun checks the demo capture with a suppressions file.
func suppressRun(t *testing.T, gate string, rules []*Rule, set *suppress.Suppressions) *result.Result {
	t.Helper()
	data, err := os.ReadFile("../testdata/demo-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	src := session.Source{Name: "demo.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
	g, err := result.ParseGate(gate, All())
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run([]session.Source{src}, engine.Config{Rules: rules, Gate: g, Suppressions: set})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// demoFindings are the demo capture's findings by rule: one tool-error
// (gated) and one pending-request.
func demoFindings(t *testing.T) map[string]*result.Finding {
	t.Helper()
	out := map[string]*result.Finding{}
	for _, f := range suppressRun(t, DefaultGate, All(), nil).Sessions[0].Findings {
		out[f.Rule] = f
	}
	if out["tool-error"] == nil || out["pending-request"] == nil {
		t.Fatalf("the demo capture changed: %v", out)
	}
	return out
}

// A suppressed finding is still a finding, counted apart from its signal,
// at level note, and the run passes.
func TestSuppressedFindingPassesTheGate(t *testing.T) {
	fp := demoFindings(t)["tool-error"].Fingerprint
	set := &suppress.Suppressions{File: "s.json", Entries: []*suppress.Suppression{{Fingerprint: fp, Reason: "known", File: "s.json", Line: 4}}}
	res := suppressRun(t, DefaultGate, All(), set)
	s := res.Sessions[0]
	if !res.Passed || res.ExitCode != 0 {
		t.Errorf("passed %v, exit %d; want a pass", res.Passed, res.ExitCode)
	}
	var te *result.Finding
	for _, f := range s.Findings {
		if f.Rule == "tool-error" {
			te = f
		}
		if f.Signal == SignalSuppression {
			t.Errorf("unexpected %s: %s", f.Rule, f.Message)
		}
	}
	if te == nil || te.Suppressed == nil || te.Suppressed.Reason != "known" || te.Gated || te.Level() != "note" {
		t.Fatalf("tool-error finding %+v", te)
	}
	if s.Count(SignalError) != 0 || s.CountSuppressed() != 1 || s.Count(SignalPending) != 1 {
		t.Errorf("counts: error %d, suppressed %d, pending %d; want 0, 1, 1", s.Count(SignalError), s.CountSuppressed(), s.Count(SignalPending))
	}
	if failed := s.FailedSignals(res.Gate); len(failed) != 0 {
		t.Errorf("failed signals %v", failed)
	}
	// a gate naming the rule itself does not fail on it either
	if res := suppressRun(t, "tool-error", All(), set); !res.Passed {
		t.Error("--fail-on tool-error failed on a suppressed finding")
	}
}

// An expired entry lets its finding gate again and is reported once, not
// also as stale; an entry that matches nothing is stale, and gates only
// when the suppression signal is selected.
func TestExpiredAndStaleEntries(t *testing.T) {
	found := demoFindings(t)
	now := time.Date(2026, 9, 20, 12, 0, 0, 0, time.UTC)
	set := &suppress.Suppressions{File: "s.json", Now: now, Entries: []*suppress.Suppression{
		{Fingerprint: found["tool-error"].Fingerprint, Reason: "until 2.0", Expires: "2026-09-19", File: "s.json", Line: 4},
		{Fingerprint: fpA, Reason: "gone", File: "s.json", Line: 9},
		{Fingerprint: fpB, Reason: "expired and gone", Expires: "2026-01-01", File: "s.json", Line: 14},
	}}
	res := suppressRun(t, DefaultGate, All(), set)
	s := res.Sessions[0]
	got := map[string][]*result.Finding{}
	for _, f := range s.Findings {
		got[f.Rule] = append(got[f.Rule], f)
	}
	if te := got["tool-error"]; len(te) != 1 || te[0].Suppressed != nil || !te[0].Gated {
		t.Errorf("the finding of an expired entry must gate again: %+v", te)
	}
	exp, stale := got["expired-suppression"], got["stale-suppression"]
	if len(exp) != 2 || len(stale) != 1 {
		t.Fatalf("%d expired-suppression, %d stale-suppression; want 2 and 1", len(exp), len(stale))
	}
	if exp[0].File != "s.json" || exp[0].Line != 4 || len(exp[0].Related) != 1 || exp[0].Related[0].Line != found["tool-error"].Line {
		t.Errorf("expired-suppression of the matched entry: %+v", exp[0])
	}
	if exp[1].Line != 14 || len(exp[1].Related) != 0 || stale[0].Line != 9 {
		t.Errorf("placed at lines %d and %d, want 14 and 9", exp[1].Line, stale[0].Line)
	}
	if res.Passed || s.Count(SignalSuppression) != 3 || exp[0].Gated || stale[0].Gated {
		t.Errorf("passed %v, suppression count %d", res.Passed, s.Count(SignalSuppression))
	}
	if exp[0].Session != s.ID || !result.ValidFingerprint(exp[0].Fingerprint) || exp[0].Fingerprint == exp[1].Fingerprint {
		t.Errorf("fingerprints %q %q, session %q", exp[0].Fingerprint, exp[1].Fingerprint, exp[0].Session)
	}

	// --fail-on suppression fails on a stale entry alone
	set = &suppress.Suppressions{File: "s.json", Entries: []*suppress.Suppression{
		{Fingerprint: found["tool-error"].Fingerprint, Reason: "known", File: "s.json", Line: 4},
		{Fingerprint: fpA, Reason: "gone", File: "s.json", Line: 9},
	}}
	res = suppressRun(t, "suppression", All(), set)
	if res.Passed || strings.Join(res.Sessions[0].FailedSignals(res.Gate), ",") != "suppression" {
		t.Errorf("--fail-on suppression: passed %v, failed %v", res.Passed, res.Sessions[0].FailedSignals(res.Gate))
	}
}

// An entry is not stale when the run could not have shown its finding: its
// rule was disabled or its server label was not checked. Disabled
// suppression rules report nothing.
func TestStaleNeedsAChanceToMatch(t *testing.T) {
	found := demoFindings(t)
	entries := func() []*suppress.Suppression {
		return []*suppress.Suppression{
			{Fingerprint: found["tool-error"].Fingerprint, Reason: "known", Rule: "tool-error", File: "s.json", Line: 4},
			{Fingerprint: fpA, Reason: "other server", Rule: "tool-error", Label: "github", File: "s.json", Line: 9},
			{Fingerprint: fpB, Reason: "removed rule", Rule: "no-such-rule", Label: found["tool-error"].Label, File: "s.json", Line: 14},
		}
	}
	without := func(ids ...string) []*Rule {
		var out []*Rule
		for _, r := range All() {
			if !strings.Contains(" "+strings.Join(ids, " ")+" ", " "+r.ID+" ") {
				out = append(out, r)
			}
		}
		return out
	}
	count := func(res *result.Result, rule string) (n int, lines []int) {
		for _, f := range res.Sessions[0].Findings {
			if f.Rule == rule {
				n++
				lines = append(lines, f.Line)
			}
		}
		return n, lines
	}
	// an entry of a rule mcpcheck does not have can never match: stale
	res := suppressRun(t, DefaultGate, All(), &suppress.Suppressions{File: "s.json", Entries: entries()})
	if n, lines := count(res, "stale-suppression"); n != 1 || lines[0] != 14 {
		t.Errorf("all rules: stale at %v, want line 14 only", lines)
	}
	// tool-error disabled: its entry is not judged
	res = suppressRun(t, DefaultGate, without("tool-error"), &suppress.Suppressions{File: "s.json", Entries: entries()})
	if n, lines := count(res, "stale-suppression"); n != 1 || lines[0] != 14 {
		t.Errorf("tool-error disabled: stale at %v, want line 14 only", lines)
	}
	res = suppressRun(t, DefaultGate, without("stale-suppression"), &suppress.Suppressions{File: "s.json", Entries: entries()})
	if n, _ := count(res, "stale-suppression"); n != 0 {
		t.Errorf("stale-suppression disabled still reported %d", n)
	}
}
