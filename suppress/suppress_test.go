package suppress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

const (
	fpA = "0123456789abcdef0123456789abcdef"
	fpB = "fedcba9876543210fedcba9876543210"
)

// A bad file names the file, the line and the entry at fault.
func TestParseSuppressionsErrors(t *testing.T) {
	t.Parallel()
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
		{"duplicate member", "{\"suppressions\": [\n  {\"fingerprint\": \"" + fpA + "\",\n   \"reason\": \"\",\n   \"reason\": \"accepted\"}\n]}",
			`s.json:4: entry 1 (fingerprint "` + fpA + `"): member "reason" appears twice; keep one`},
		{"duplicate fingerprint member", `{"suppressions": [{"fingerprint": "` + fpB + `", "reason": "x", "fingerprint": "` + fpA + `"}]}`,
			`s.json:1: entry 1 (fingerprint "` + fpA + `"): member "fingerprint" appears twice`},
		{"duplicate member in another case", `{"suppressions": [{"fingerprint": "` + fpA + `", "reason": "x", "Reason": "y"}]}`,
			`entry 1 (fingerprint "` + fpA + `"): member "Reason" appears twice`},
		{"duplicate expires", `{"suppressions": [{"fingerprint": "` + fpA + `", "reason": "x", "expires": "2027-01-01", "expires": "2099-01-01"}]}`,
			`member "expires" appears twice`},
		{"duplicate suppressions", "{\"version\": 1,\n \"suppressions\": [],\n \"suppressions\": [{\"fingerprint\": \"" + fpA + "\", \"reason\": \"x\"}]}",
			`s.json:3: member "suppressions" appears twice; a suppressions file has one version and one suppressions array`},
		{"duplicate version", `{"version": 1, "suppressions": [], "version": 1}`, `s.json:1: member "version" appears twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("s.json", []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestParseSuppressions(t *testing.T) {
	t.Parallel()
	data := "{\n  \"version\": 1,\n  \"suppressions\": [\n    {\n      \"fingerprint\": \"" + strings.ToUpper(fpB) + "\",\n      \"reason\": \"known\",\n      \"expires\": \"2026-12-31\",\n      \"rule\": \"tool-error\"\n    },\n    {\"fingerprint\": \"" + fpA + "\", \"reason\": \"also known\"}\n  ]\n}\n"
	set, err := Parse("s.json", []byte(data))
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
	if set, err := Parse("s.json", []byte(`{}`)); err != nil || len(set.Entries) != 0 {
		t.Errorf("{}: %v, %v", set, err)
	}
}

// The file mcpcheck writes is sorted by fingerprint, reads back the same,
// and writing it again changes nothing.
func TestSuppressionsMarshal(t *testing.T) {
	t.Parallel()
	set := &Suppressions{}
	set.Put(Suppression{Fingerprint: fpB, Reason: "b <&>", Expires: "2027-01-31", Rule: "tool-error", Label: "fs", Subject: "tools/call read_file", Message: `tool "read_file" (id 3) reported an error`})
	set.Put(Suppression{Fingerprint: fpA, Reason: "a"})
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
	back, err := Parse("s.json", out)
	if err != nil {
		t.Fatal(err)
	}
	if again := back.Marshal(); !bytes.Equal(again, out) {
		t.Errorf("written again:\n%s", again)
	}
	if back.Entries[0].Line != 4 || back.Entries[1].Line != 8 {
		t.Errorf("entry lines %d, %d; want 4 and 8", back.Entries[0].Line, back.Entries[1].Line)
	}
	if empty := string((&Suppressions{}).Marshal()); empty != "{\n  \"version\": 1,\n  \"suppressions\": []\n}\n" {
		t.Errorf("empty file: %s", empty)
	}
}

// Put keeps one entry per fingerprint: a second Put updates the reason and
// expiry, and keeps what the entry says of its finding unless told.
func TestSuppressionsPut(t *testing.T) {
	t.Parallel()
	set := &Suppressions{}
	if !set.Put(Suppression{Fingerprint: fpA, Reason: "first", Expires: "2026-10-01", Rule: "tool-error", Subject: "tools/call x"}) {
		t.Error("the first Put did not add")
	}
	if set.Put(Suppression{Fingerprint: fpA, Reason: "second", Subject: "tools/call y"}) {
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
	t.Parallel()
	e := &Suppression{Expires: "2026-09-14"}
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
	if (&Suppression{}).Expired(time.Now()) {
		t.Error("an entry without expires expired")
	}
}

// Member names compare as encoding/json matches them: under Unicode case
// folding, so "reaſon" (a long s) is the reason a second time.
func TestFoldName(t *testing.T) {
	for _, pair := range [][2]string{{"reason", "REASON"}, {"reason", "rea\u017fon"}, {"k", "\u212a"}} {
		if foldName(pair[0]) != foldName(pair[1]) {
			t.Errorf("%q and %q fold apart", pair[0], pair[1])
		}
	}
	if foldName("reason") == foldName("reasons") {
		t.Error("different names fold together")
	}
	if _, err := Parse("s.json", []byte(`{"suppressions": [{"fingerprint": "`+fpA+`", "reason": "x", "rea\u017fon": "y"}]}`)); err == nil ||
		!strings.Contains(err.Error(), "appears twice") {
		t.Errorf("a long-s reason: %v", err)
	}
}

// An entry without a fingerprint accepts every finding of its rule, of its
// label when it names one; it is unique by that scope.
func TestScopedEntries(t *testing.T) {
	t.Parallel()
	data := "{\"suppressions\": [\n" +
		"  {\"rule\": \"Schema-Construct\", \"label\": \"notion\", \"reason\": \"reviewed\"},\n" +
		"  {\"rule\": \"schema-construct\", \"reason\": \"every server\", \"expires\": \"2027-01-31\"},\n" +
		"  {\"fingerprint\": \"" + fpA + "\", \"rule\": \"schema-construct\", \"label\": \"notion\", \"reason\": \"one\"}\n]}"
	set, err := Parse("s.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	notion, every, one := set.Entries[0], set.Entries[1], set.Entries[2]
	if !notion.Scoped() || notion.Rule != "schema-construct" || notion.Line != 2 || one.Scoped() {
		t.Fatalf("entries %+v %+v %+v", notion, every, one)
	}
	for _, c := range []struct {
		e           *Suppression
		rule, label string
		want        bool
	}{
		{notion, "schema-construct", "notion", true},
		{notion, "SCHEMA-CONSTRUCT", "notion", true},
		{notion, "schema-construct", "Notion", false}, // labels are the server's own spelling
		{notion, "schema-construct", "everything", false},
		{notion, "tool-error", "notion", false},
		{every, "schema-construct", "anything", true},
		{one, "schema-construct", "notion", false}, // a fingerprint entry matches by fingerprint only
	} {
		if got := c.e.Matches(c.rule, c.label); got != c.want {
			t.Errorf("%s matches %s of %q: %v, want %v", c.e.Scope(), c.rule, c.label, got, c.want)
		}
	}
	if notion.Scope() != `every schema-construct finding of label "notion"` || every.Scope() != "every schema-construct finding" {
		t.Errorf("scopes %q, %q", notion.Scope(), every.Scope())
	}
	// written back: scoped entries first, no fingerprint member
	out := string(set.Marshal())
	if !strings.Contains(out, "    {\n      \"reason\": \"every server\",\n      \"expires\": \"2027-01-31\",\n      \"rule\": \"schema-construct\"\n    },\n    {\n      \"reason\": \"reviewed\",\n      \"rule\": \"schema-construct\",\n      \"label\": \"notion\"\n    },\n    {\n      \"fingerprint\": \""+fpA) {
		t.Errorf("marshalled:\n%s", out)
	}
	// Put updates a scope in place
	if set.Put(Suppression{Rule: "schema-construct", Label: "notion", Reason: "again"}) || notion.Reason != "again" || len(set.Entries) != 3 {
		t.Errorf("Put of an existing scope added an entry or kept the reason: %+v", notion)
	}
	if !set.Put(Suppression{Rule: "schema-construct", Label: "fs", Reason: "new"}) || len(set.Entries) != 4 {
		t.Error("Put of a new scope did not add it")
	}
}

func TestScopedEntryErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, data, want string }{
		{"neither", `{"suppressions": [{"label": "notion", "reason": "x"}]}`, "s.json:1: entry 1: no fingerprint and no rule"},
		{"bad rule id", `{"suppressions": [{"rule": "schema construct!", "reason": "x"}]}`, `entry 1 (every schema construct! finding): rule "schema construct!" is not a rule id`},
		{"no reason", `{"suppressions": [{"rule": "tool-error"}]}`, "entry 1 (every tool-error finding): no reason"},
		{"subject", `{"suppressions": [{"rule": "tool-error", "subject": "tools/call x", "reason": "x"}]}`, "matches by rule and label only"},
		{"duplicate scope", "{\"suppressions\": [\n{\"rule\": \"tool-error\", \"label\": \"fs\", \"reason\": \"x\"},\n{\"rule\": \"Tool-Error\", \"label\": \"fs\", \"reason\": \"y\"}\n]}",
			`s.json:3: entry 2 (every tool-error finding of label "fs"): every tool-error finding of label "fs" is already suppressed at line 2`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("s.json", []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// the same label under two rules, and a rule with and without a label, are different scopes
	if _, err := Parse("s.json", []byte(`{"suppressions": [{"rule": "tool-error", "label": "fs", "reason": "x"}, {"rule": "tool-error", "reason": "x"}, {"rule": "jsonrpc-error", "label": "fs", "reason": "x"}]}`)); err != nil {
		t.Error(err)
	}
}
