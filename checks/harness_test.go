package checks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"

	. "github.com/mcpcheck/mcpcheck/checks"
)

// Tests of the fixture harness itself: a harness that cannot fail proves
// nothing about the rules.

func TestParseWantsStripsTheMember(t *testing.T) {
	t.Parallel()
	w := `{"rule":"tool-error","message":"x"}`
	for _, c := range []struct{ in, out string }{
		{`{"want":[` + w + `],"session_id":"s1","seq":1}`, `{"session_id":"s1","seq":1}`},
		{`{"session_id":"s1","want":[` + w + `]}`, `{"session_id":"s1"}`},
		{`{"session_id":"s1", "want" : [` + w + `] , "seq":1}`, `{"session_id":"s1",  "seq":1}`},
		{`{"want":[` + w + `]}`, `{}`},
		{`log line {"want":[` + w + `]}`, `log line {}`},
		{`{"want":[` + w + `],"session_id":"s1","raw":{"jsonrpc":`, `{"session_id":"s1","raw":{"jsonrpc":`},
		{`{"want":[{"rule":"tool-error","message":"\\[\\]\\{\\}"}],"seq":1}`, `{"seq":1}`},
	} {
		data := "first\n" + c.in + "\nlast\n"
		got, wants, err := parseWants([]byte(data))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if want := "first\n" + c.out + "\nlast\n"; string(got) != want {
			t.Errorf("%s: stripped to %q, want %q", c.in, got, want)
		}
		if len(wants) != 1 || wants[0].Line != 2 || wants[0].Rule != "tool-error" {
			t.Errorf("%s: wants %v", c.in, wants)
		}
	}
}

func TestParseWantsReadsEveryField(t *testing.T) {
	t.Parallel()
	_, wants, err := parseWants([]byte(`{"want":[{"rule":"a","message":"^b+$","related":[3,1]},{"rule":"c","message":"d","related":[]},{"rule":"e","message":"f"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(wants); got != "[1: a /^b+$/ related [3 1] 1: c /d/ related [] 1: e /f/]" {
		t.Errorf("wants %s", got)
	}
	if wants[1].Related == nil || wants[2].Related != nil {
		t.Errorf("related [] must be checked (no related lines), an absent one not")
	}
	_, wants, err = parseWants([]byte(`{"want":[{"rule":"a","message":"b","subject":"","severity":"note"},{"rule":"a","message":"b","subject":"tools/call x","severity":"error"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(wants); got != `[1: a /b/ subject "" severity note 1: a /b/ subject "tools/call x" severity error]` {
		t.Errorf("wants %s", got)
	}
	if wants[0].Subject == nil || wants[0].Ordinal != 0 || wants[1].Ordinal != 1 {
		t.Errorf("an empty subject must be checked too; ordinals %d %d", wants[0].Ordinal, wants[1].Ordinal)
	}
}

// A want that names a subject or severity misses a finding of another one,
// so a rule that changes either fails its fixture.
func TestMatchWantsSubjectAndSeverity(t *testing.T) {
	t.Parallel()
	f := gotFinding{Line: 5, Rule: "jsonrpc-error", Message: "boom", Subject: "tools/call a", Severity: "warning"}
	subject := func(s string) *string { return &s }
	for _, c := range []struct {
		w    want
		pass bool
	}{
		{want{Line: 5, Rule: "jsonrpc-error", Message: regexp.MustCompile("boom")}, true},
		{want{Line: 5, Rule: "jsonrpc-error", Message: regexp.MustCompile("boom"), Subject: subject("tools/call a"), Severity: "warning"}, true},
		{want{Line: 5, Rule: "jsonrpc-error", Message: regexp.MustCompile("boom"), Subject: subject("tools/call b")}, false},
		{want{Line: 5, Rule: "jsonrpc-error", Message: regexp.MustCompile("boom"), Subject: subject("")}, false},
		{want{Line: 5, Rule: "jsonrpc-error", Message: regexp.MustCompile("boom"), Severity: "error"}, false},
	} {
		problems := matchWants([]want{c.w}, []gotFinding{f})
		if (len(problems) == 0) != c.pass {
			t.Errorf("%s: problems %q, want pass=%v", c.w, problems, c.pass)
		}
	}
}

// Annotating writes the subject and severity of the finding into the want
// that lacks them, and nothing else of the line changes.
func TestAnnotateFile(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/bad.jsonl"
	data := []byte("{}\n" + `{"want":[{"rule":"a","message":"x"}, {"rule":"b","message":"y","severity":"note"}],"seq":2}` + "\n")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, wants, err := parseWants(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range wants {
		wants[i].File = path
	}
	got := []gotFinding{
		{File: path, Line: 2, Rule: "a", Message: "x", Subject: `m "q"`, Severity: "error"},
		{File: path, Line: 2, Rule: "b", Message: "y", Subject: "s", Severity: "note"},
	}
	if err := annotateFixture(wants, got); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(path)
	want := "{}\n" + `{"want":[{"rule":"a","message":"x","subject":"m \"q\"","severity":"error"}, {"rule":"b","message":"y","severity":"note","subject":"s"}],"seq":2}` + "\n"
	if string(out) != want {
		t.Errorf("annotated\n%s\nwant\n%s", out, want)
	}
}

func TestParseWantsRejects(t *testing.T) {
	t.Parallel()
	for in, msg := range map[string]string{
		`{"want":["tool-error"],"seq":1}`:                                  `:1: want "tool-error": a plain rule id is not enough: write {"rule":"ID","message":"REGEXP"}`,
		`{"want":[{"rule":"tool-error"}]}`:                                 `"message" is missing: add a regexp of the finding's message`,
		`{"want":[{"rule":"tool-error","message":""}]}`:                    `"message" is missing`,
		`{"want":[{"message":"x"}]}`:                                       `"rule" is missing`,
		`{"want":[{"rule":"tool-error","message":"("}]}`:                   "missing closing )",
		`{"want":[{"rule":"tool-error","message":"x","lines":[]}]}`:        `unknown field "lines"`,
		`{"want":[{"rule":"tool-error","message":"x","related":5}]}`:       "cannot unmarshal number",
		`{"want":[{"rule":"tool-error","message":"x"}`:                     "want is not a JSON array",
		`{"want":[{"rule":"tool-error","message":"x","severity":"warn"}]}`: `"severity" "warn": write "error", "warning" or "note"`,
		`{"want":[{"rule":"tool-error","message":"x","subject":1}]}`:       "cannot unmarshal number",
	} {
		_, _, err := parseWants([]byte(in))
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want one containing %q", in, err, msg)
		}
	}
}

func TestMatchWants(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile
	got := []gotFinding{
		{Line: 5, Rule: "tool-error", Message: `tool "a" (id 1) reported an error: "x"`, Related: []Location{{Line: 4}}},
		{Line: 5, Rule: "tool-error", Message: `tool "a" (id 2) reported an error: "y"`},
		{Line: 7, Rule: "jsonrpc-error", Message: "boom"},
	}
	for _, c := range []struct {
		name  string
		wants []want
		want  []string // problems, in order, by prefix
	}{
		{"exact", []want{
			{Line: 5, Rule: "tool-error", Message: re(`id 1`), Related: []int{4}},
			{Line: 5, Rule: "tool-error", Message: re(`id 2`), Related: []int{}},
			{Line: 7, Rule: "jsonrpc-error", Message: re(`^boom$`)},
		}, nil},
		// a greedy pairing would give the id 1 finding to the broad pattern
		{"broad pattern first", []want{
			{Line: 5, Rule: "tool-error", Message: re(`reported`)},
			{Line: 5, Rule: "tool-error", Message: re(`id 1`)},
			{Line: 7, Rule: "jsonrpc-error", Message: re(`boom`)},
		}, nil},
		{"wrong message", []want{
			{Line: 5, Rule: "tool-error", Message: re(`id 1`)},
			{Line: 5, Rule: "tool-error", Message: re(`id 3`)},
			{Line: 7, Rule: "jsonrpc-error", Message: re(`boom`)},
		}, []string{"missed: want 5: tool-error /id 3/", `unexpected: 5: tool-error: tool "a" (id 2)`}},
		{"wrong related", []want{
			{Line: 5, Rule: "tool-error", Message: re(`id 1`), Related: []int{3}},
			{Line: 5, Rule: "tool-error", Message: re(`id 2`)},
			{Line: 7, Rule: "jsonrpc-error", Message: re(`boom`)},
		}, []string{"missed: want 5: tool-error /id 1/ related [3]", `unexpected: 5: tool-error: tool "a" (id 1)`}},
		{"wrong line and missing", []want{
			{Line: 5, Rule: "tool-error", Message: re(`id 1`)},
			{Line: 5, Rule: "tool-error", Message: re(`id 2`)},
			{Line: 6, Rule: "jsonrpc-error", Message: re(`boom`)},
		}, []string{"missed: want 6: jsonrpc-error /boom/", "unexpected: 7: jsonrpc-error: boom"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			problems := matchWants(c.wants, got)
			if len(problems) != len(c.want) {
				t.Fatalf("problems:\n%s\nwant %d", strings.Join(problems, "\n"), len(c.want))
			}
			for i, p := range problems {
				if !strings.HasPrefix(p, c.want[i]) {
					t.Errorf("problem %q, want it to start with %q", p, c.want[i])
				}
			}
		})
	}
}

// The suggestion printed for an unexpected finding is a want that matches it.
func TestWantForMatches(t *testing.T) {
	t.Parallel()
	f := gotFinding{Line: 1, Rule: "http-error", Message: `got HTTP 401: "{\"error\":\"a.b (c)\"}" [x]`, Related: []Location{{Line: 1}}}
	_, wants, err := parseWants([]byte(`{"want":[` + f.wantFor() + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !wants[0].matches(f) {
		t.Errorf("%s does not match its finding", f.wantFor())
	}
}

// keepFirstResult is a wrong rule: it keeps the bytes of the session's
// first result past its frame and reports them at the end. With clone it
// copies them, as a rule must.
func keepFirstResult(clone bool) *Rule {
	return &Rule{
		ID: "test-keeps-result", Doc: testDoc("reports the first result at the end"), Signal: SignalWarn,
		New: func() Checker { return &resultKeeper{clone: clone} },
	}
}

type resultKeeper struct {
	Base
	clone bool
	kept  json.RawMessage
	line  int
	seq   int64
}

func (c *resultKeeper) Frame(p *Pass, f *session.Frame) {
	if c.kept != nil || f.Msg.Kind != session.Response || f.Msg.Result == nil {
		return
	}
	c.kept, c.line, c.seq = f.Msg.Result, f.Line, f.Seq
	if c.clone {
		c.kept = bytes.Clone(c.kept)
	}
}

func (c *resultKeeper) End(p *Pass) {
	if c.kept != nil {
		p.ReportAt(Location{File: p.Session.File, Line: c.line}, c.seq, "first result", "first result: %s", c.kept)
	}
}

// The tiny-buffer run catches a rule that keeps a frame's bytes without
// copying them, and passes the same rule once it copies them.
func TestBufferDiffCatchesKeptBytes(t *testing.T) {
	t.Parallel()
	const path = "testdata/tool-error/bad-iserror-results.jsonl"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data, _, err = parseWants(data)
	if err != nil {
		t.Fatal(err)
	}
	// the session's first result is its initialize answer, on line 3
	const initResult = `first result: {"protocolVersion":"2025-11-25"`

	rules := append(All(), keepFirstResult(false))
	normal, err := runFixture(path, data, rules, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(listFindings(normal), ".jsonl:3: test-keeps-result: "+initResult) {
		t.Fatalf("the normal run did not report the intact first result:\n%s", listFindings(normal))
	}
	diff, err := bufferDiff(path, data, rules, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "only with the tiny buffer:   bad-iserror-results.jsonl:3: test-keeps-result: first result: ") ||
		!strings.Contains(diff, "only with the normal buffer: bad-iserror-results.jsonl:3: test-keeps-result: "+initResult) {
		t.Errorf("the harness did not catch a rule that keeps f.Msg.Result; diff:\n%s", diff)
	}

	diff, err = bufferDiff(path, data, append(All(), keepFirstResult(true)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("the rule that copies its bytes failed the comparison:\n%s", diff)
	}
}
