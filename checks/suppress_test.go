package checks_test

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/suppress"
)

const (
	fpA = "0123456789abcdef0123456789abcdef"
	fpB = "fedcba9876543210fedcba9876543210"
)

// suppressRun checks the demo capture with a suppressions file.
func suppressRun(t *testing.T, gate string, rules []*Rule, set *suppress.Suppressions) *result.Result {
	t.Helper()
	data, err := os.ReadFile("../testdata/demo-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	src := readers.Source{Name: "demo.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
	g, err := result.ParseGate(gate, All())
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run([]readers.Source{src}, engine.Config{Rules: rules, Gate: g, Suppressions: set})
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
