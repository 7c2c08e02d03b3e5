package baseline

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// A deep schema is written on one line: the file grows with the schema,
// not with the schema times its depth (issue 21: a 31 KB capture wrote a
// 150 MB baseline).
func TestEncodeDoesNotIndentSchemas(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{10, 1000, 9000} {
		schema := `{"type":"object","properties":{"a":` + strings.Repeat(`{"items":`, depth) + `{}` + strings.Repeat(`}`, depth) + `}}`
		l := listing(t, rev, `[{"name":"deep","inputSchema":`+schema+`}]`)
		data, err := Encode(&Baseline{Label: "notes", Definitions: l})
		if err != nil {
			t.Fatal(err)
		}
		if limit := len(schema) + 400; len(data) > limit {
			t.Errorf("depth %d: a %d-byte schema made a %d-byte baseline (want at most %d)", depth, len(schema), len(data), limit)
		}
		b, err := Parse(data, "notes", "f.json")
		if err != nil {
			t.Fatalf("depth %d: %v", depth, err)
		}
		if !b.Definitions.Equal(&l) || len(Compare(&b.Definitions, &l)) != 0 {
			t.Errorf("depth %d: the baseline does not read back as written", depth)
		}
	}
}

// A member over MaxMember is kept by its hash: the file stays small, the
// same definitions compare equal, and a change to the member is still
// drift, saying that what changed is not known.
func TestEncodeHashesAMemberPastTheLimit(t *testing.T) {
	t.Parallel()
	big := func(fill string) string {
		return `{"type":"object","description":"` + strings.Repeat(fill, MaxMember) + `"}`
	}
	long := strings.Repeat("d", MaxMember+1)
	l := listing(t, rev, `[{"name":"big","description":"`+long+`","inputSchema":`+big("x")+`,"annotations":{"readOnlyHint":true}}]`)
	data, err := Encode(&Baseline{Label: "notes", Definitions: l})
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 1000 {
		t.Fatalf("%d bytes written for two members past the limit:\n%.600s", len(data), data)
	}
	if !strings.Contains(string(data), `"hashed": {"description":"sha256:`) || !strings.Contains(string(data), `"input_schema":"sha256:`) {
		t.Errorf("no hashes:\n%s", data)
	}
	b, err := Parse(data, "notes", "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if changes := Compare(&b.Definitions, &l); len(changes) != 0 {
		t.Errorf("the same definitions drift against their hashed baseline: %v", changes)
	}
	changed := listing(t, rev, `[{"name":"big","description":"`+long+`","inputSchema":`+big("y")+`,"annotations":{"readOnlyHint":false}}]`)
	changes := Compare(&b.Definitions, &changed)
	if len(changes) != 1 || len(changes[0].Fields) != 2 {
		t.Fatalf("changes %+v", changes)
	}
	got := changes[0].Summary(func(s string) string { return fmt.Sprintf("%q", s) })
	want := `tool "big" changed since the baseline (breaking): input_schema review (over 1 MiB, kept in the baseline by its SHA-256: what changed is not known); annotations breaking (/readOnlyHint: true → false, no longer read-only)`
	if got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
	// a hashed baseline re-encodes to the same bytes
	again, err := Encode(b)
	if err != nil || string(again) != string(data) {
		t.Errorf("re-encoding a hashed baseline changed it (%v):\n%s\n%s", err, again, data)
	}
}

func TestParseRejectsBadHashes(t *testing.T) {
	t.Parallel()
	for _, h := range []string{
		`{"input_schema":"md5:00"}`,
		`{"nonsense":"sha256:` + strings.Repeat("0", 64) + `"}`,
		`{"description":"sha256:` + strings.Repeat("0", 64) + `"}`, // and the description is there too
	} {
		data := `{"format":"mcpcheck-tool-baseline","version":1,"server":"notes","tools":[{"name":"a","description":"x","hashed":` + h + `}]}`
		var be *Error
		if _, err := Parse([]byte(data), "notes", "f.json"); !errors.As(err, &be) || be.Kind != Corrupt || !strings.Contains(be.Detail, "bad hashed member") {
			t.Errorf("%s: %v", h, err)
		}
	}
}

// A listing whose baseline would be larger than a run reads back is not
// written; the error says why.
func TestEncodeRefusesAFileNoRunCouldRead(t *testing.T) {
	t.Parallel()
	desc := strings.Repeat("d", MaxMember-100)
	var tools []Tool
	for i := 0; len(tools)*len(desc) <= MaxFile; i++ {
		tools = append(tools, Tool{Name: fmt.Sprintf("t%05d", i), Description: desc})
	}
	_, err := Encode(&Baseline{Label: "notes", Definitions: Definitions{Tools: tools}})
	if err == nil || !strings.Contains(err.Error(), `the baseline of "notes" would be over 64 MiB, more than mcpcheck reads back; not written`) {
		t.Errorf("error %v", err)
	}
}

// One run records at most MaxRecordings files; the labels past it keep
// their first listing for the run only and say why.
func TestRecordingsPerRunAreBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newStore(dir)
	if s.maxRecordings != MaxRecordings || MaxRecordings != 1000 {
		t.Fatalf("a store records %d, want %d", s.maxRecordings, MaxRecordings)
	}
	const max = 20 // writing 1,000 synced files is slow; the bound is the same code
	s.maxRecordings = max
	l := listing(t, rev, `[{"name":"t"}]`)
	for i := 0; i < max+5; i++ {
		e := s.Resolve(fmt.Sprintf("label-%d", i), &l, &l, origin("s1"))
		past := i >= max
		if e.Baseline == nil || (e.NotKept != "") != past {
			t.Fatalf("label %d: %+v", i, e)
		}
		if past && !strings.Contains(e.NotKept, "this run already recorded 20 baselines, the most one run records") {
			t.Errorf("label %d: not kept because %q", i, e.NotKept)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != max {
		t.Errorf("%d files written, want %d", len(entries), max)
	}
}

// A run keeps the baselines of at most MaxLabels labels for its later
// sessions. A label past them is compared with its file when it has one
// (recorded in this run or before), a listing recorded for it while no
// file can be written is its own session's baseline only and says so, and
// the baseline command cannot accept it.
func TestLabelsKeptPerRunAreBounded(t *testing.T) {
	t.Parallel()
	if s := NewStore(""); s.maxLabels != MaxLabels || MaxLabels != 10_000 {
		t.Fatalf("a store keeps %d labels, want %d", s.maxLabels, MaxLabels)
	}
	first := listing(t, rev, `[{"name":"a"}]`)
	later := listing(t, rev, `[{"name":"a"},{"name":"b"}]`)

	dir := t.TempDir()
	s := newStore(dir)
	s.maxLabels = 2
	for _, l := range []string{"kept-1", "kept-2"} {
		s.Resolve(l, &first, &first, origin("s-"+l))
	}
	e := s.Resolve("past", &first, &later, origin("s1"))
	if e.RecordedBy == nil || *e.RecordedBy != origin("s1") || e.NotKept != "" {
		t.Fatalf("past the cap, while files are written: %+v", e)
	}
	e = s.Resolve("past", &later, &later, origin("s2"))
	if e.RecordedBy != nil || e.Baseline == nil || !e.Baseline.Definitions.Equal(&first) {
		t.Errorf("a later session past the cap does not compare with the file: %+v", e)
	}
	if got := strings.Join(s.Labels(), ","); got != "kept-1,kept-2" || s.PastCap() != 2 {
		t.Errorf("labels %s, past the cap %d; want kept-1,kept-2 and 2", got, s.PastCap())
	}

	s = newStore(t.TempDir())
	s.maxLabels, s.maxRecordings = 1, 1
	s.Resolve("kept", &first, &first, origin("s0"))
	for _, session := range []string{"s1", "s2"} {
		e := s.Resolve("past", &first, &first, origin(session))
		if e.RecordedBy == nil || e.RecordedBy.Session != session ||
			e.NotKept != "this run already recorded 1 baselines, the most one run records, and keeps those of 1 servers, the most it keeps: no later session is compared with it (run again to record more, or use mcpcheck baseline --accept)" {
			t.Errorf("session %s past both caps: %+v", session, e)
		}
	}

	s = NewReadOnly(dir)
	s.maxLabels = 1
	s.Resolve("kept-1", &first, &first, origin("s1"))
	s.Resolve("past", &first, &first, origin("s2"))
	if _, err := s.Accept("past", "r"); err == nil || s.PastCap() != 1 {
		t.Errorf("a label past the cap accepted (%v), past the cap %d", err, s.PastCap())
	}
}
