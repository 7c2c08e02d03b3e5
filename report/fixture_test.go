package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/session"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testWorkDir stands for the working directory the reports are made in.
const testWorkDir = "/work/project"

// otherSignalRules stand in for rules of signals the catalogue does not
// cover yet, so that the shared result exercises every signal.
var otherSignalRules = []*checks.Rule{
	{ID: "routing-header", Signal: checks.SignalMismatch, Severity: checks.SeverityWarning, Doc: checks.Doc{Summary: "Mcp-Method or Mcp-Name disagrees with the body", Why: "Routing headers must agree with the body.", Fix: "Fix it.", Bad: "-", Good: "-", Since: "0.0.0"}, New: func() checks.Checker { return checks.Base{} }},
	{ID: "tool-drift", Signal: checks.SignalDrift, Severity: checks.SeverityWarning, Doc: checks.Doc{Summary: "A tool definition differs from the baseline", Why: "Tools changed.", Fix: "Fix it.", Bad: "-", Good: "-", Since: "0.0.0"}, New: func() checks.Checker { return checks.Base{} }},
	{ID: "deprecated-feature", Signal: checks.SignalDeprecated, Severity: checks.SeverityNote, Doc: checks.Doc{Summary: "Use of a feature 2026-07-28 deprecates", Why: "Roots, sampling and logging are deprecated.", Fix: "Fix it.", Bad: "-", Good: "-", Since: "0.0.0"}, New: func() checks.Checker { return checks.Base{} }},
	{ID: "schema-construct", Signal: checks.SignalSchema, Severity: checks.SeverityNote, Doc: checks.Doc{Summary: "A schema construct some clients mishandle", Why: "oneOf and friends.", Fix: "Fix it.", Bad: "-", Good: "-", Since: "0.0.0"}, New: func() checks.Checker { return checks.Base{} }},
	{ID: "input-schema", Signal: checks.SignalContract, Severity: checks.SeverityWarning, Doc: checks.Doc{Summary: "tools/call arguments that do not validate", Why: "Arguments must match the inputSchema.", Fix: "Fix it.", Bad: "-", Good: "-", Since: "0.0.0"}, New: func() checks.Checker { return checks.Base{} }},
	{ID: "tool-poisoning", Signal: checks.SignalSecurity, Severity: checks.SeverityError, Doc: checks.Doc{Summary: "Hidden or deceptive content in tool metadata", Why: "Invisible Unicode and instructions aimed at the model.", Fix: "Fix it.", Bad: "-", Good: "-", Since: "0.0.0"}, New: func() checks.Checker { return checks.Base{} }},
}

func testCatalogue() []*checks.Rule {
	return append(checks.All(), otherSignalRules...)
}

// finding builds a finding the way the driver would, with rule metadata.
func finding(rules []*checks.Rule, gate checks.Gate, id, file string, line int, subject, msg string) *checks.Finding {
	r := checks.Lookup(rules, id)
	if r == nil {
		panic("no rule " + id)
	}
	return &checks.Finding{
		Rule: r.ID, Signal: r.Signal, Severity: r.Severity, Message: msg,
		File: file, Line: line, Seq: int64(line), Subject: subject,
		Fingerprint: "fp-" + id + "-" + subject,
		Gated:       gate.Selects(r),
	}
}

// sampleResult is the one result every reporter renders in tests: two
// sessions, every signal, gated and informational findings, a related
// location, failed and passed assertions, capture text with characters that
// XML, workflow commands and terminals must not see raw, a file outside the
// working directory, and one read from stdin.
func sampleResult(t testing.TB) *checks.Result {
	rules := testCatalogue()
	gate, err := checks.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(testWorkDir, "captures", "run 1.jsonl")
	outside := "/tmp/elsewhere/agent.jsonl"

	s1 := &checks.SessionResult{
		ID: "fs-1", Label: "filesystem", File: inside, FirstLine: 1, Revision: "2025-11-25", Transport: "stdio",
		Frames: 40, MissingFrames: 2,
	}
	s1.Findings = []*checks.Finding{
		finding(rules, gate, "jsonrpc-error", inside, 10, "tools/call echo #2", `tools/call "echo" (id 2) failed with JSON-RPC error -32603 "boom: a,b:c 100%"`).Relate(inside, 9, "request sent here"),
		finding(rules, gate, "tool-error", inside, 12, "tools/call read #3", "tool \"read\" (id 3) reported an error: \"bad \x00 byte \x1b[31m and ]]> end\""),
		finding(rules, gate, "http-error", inside, 13, "status 502", "the server answered HTTP 502 with a body that is not JSON: \"<html>Bad Gateway</html>\""),
		finding(rules, gate, "task-failed", inside, 14, "tools/call slow #4 task t1", `task "t1" of tools/call "slow" (id 4) ended with status "failed"`),
		finding(rules, gate, "internal-error", inside, 15, "jsonrpc-version", "rule jsonrpc-version failed: runtime error; its findings for this session are incomplete"),
		finding(rules, gate, "invalid-frame", inside, 16, "s2c text", "server wrote a line that is not JSON on the protocol channel: \"Listening\\r\\non stdio\""),
		finding(rules, gate, "duplicate-response", inside, 17, "tools/call echo #2", `server answered tools/call "echo" (id 2) again (answer 2)`),
		finding(rules, gate, "routing-header", inside, 18, "tools/call echo #5", "Mcp-Name \"ech0\" disagrees with params.name \"echo\""),
		finding(rules, gate, "pending-request", inside, 19, "tools/call hang #6", `client tools/call "hang" (id 6) was never answered`),
		finding(rules, gate, "late-result", inside, 20, "tools/call slow #7", `tools/call "slow" (id 7) was answered after the client cancelled it`),
		finding(rules, gate, "tool-drift", inside, 21, "tool echo", "tool \"echo\": description changed (review)"),
		finding(rules, gate, "deprecated-feature", inside, 22, "sampling/createMessage", "sampling/createMessage is deprecated by 2026-07-28; use a direct LLM provider integration"),
		finding(rules, gate, "missing-frames", inside, 23, "seq 21", "2 frames are missing before seq 23 (seq 21 to 22 were not recorded)"),
		finding(rules, gate, "truncated-capture", inside, 24, "damaged envelope", "unreadable envelope: the file ends inside an envelope"),
		finding(rules, gate, "schema-construct", inside, 25, "tool search oneOf", `tool "search" uses oneOf`),
		finding(rules, gate, "input-schema", inside, 26, "tools/call add #8", `tools/call "add" (id 8) arguments do not validate: /a: got string, want number`),
		finding(rules, gate, "tool-poisoning", inside, 27, "tool steal", "tool \"steal\" description hides text in Unicode tag characters"),
	}
	s1.Assertions = []checks.Assertion{
		{Name: "expect-tool", Arg: "echo", Passed: true, Message: `tool "echo" was called 1 time`},
		{Name: "forbid-tool", Arg: "delete", Passed: false, Message: `forbidden tool "delete" was called 2 times, first at ` + inside + `:30`},
		{Name: "max-duration", Arg: "5s", Passed: false, Message: `1 tool call took longer than 5s; the worst, tools/call "slow" (id 4) at ` + inside + `:14, took 7.25s`},
	}
	s1.Recount()

	s2 := &checks.SessionResult{ID: "gw-7", Label: "gateway", File: outside, FirstLine: 1, Revision: "2026-07-28", Transport: "http", Frames: 4}
	s2.Findings = []*checks.Finding{
		finding(rules, gate, "unmatched-response", outside, 3, "id 9", "server answered id 9, which no client request used"),
	}
	s2.Assertions = []checks.Assertion{{Name: "expect-tool", Arg: "echo", Passed: false, Message: `tool "echo" was never called`}}
	s2.Recount()

	s3 := &checks.SessionResult{ID: "piped", Label: "", File: session.StdinName, FirstLine: 1, Frames: 2}
	s3.Findings = []*checks.Finding{
		finding(rules, gate, "jsonrpc-version", session.StdinName, 2, "request ping", `client request ping (id 1) has jsonrpc "1.0", not "2.0"`),
	}
	s3.Recount()

	for _, s := range []*checks.SessionResult{s1, s2, s3} {
		for _, f := range s.Findings {
			f.Session = s.ID
		}
	}
	return &checks.Result{
		Files:    []string{inside, outside, session.StdinName},
		Sessions: []*checks.SessionResult{s1, s2, s3},
		Gate:     gate,
		Rules:    rules,
		Passed:   false,
		ExitCode: 1,
	}
}

// emptyResult is a passing run with one clean session.
func emptyResult(t testing.TB) *checks.Result {
	rules := testCatalogue()
	gate, err := checks.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	s := &checks.SessionResult{ID: "clean-1", Label: "filesystem", File: filepath.Join(testWorkDir, "clean.jsonl"), FirstLine: 1, Revision: "2025-11-25", Transport: "stdio", Frames: 12}
	s.Recount()
	return &checks.Result{Files: []string{s.File}, Sessions: []*checks.SessionResult{s}, Gate: gate, Rules: rules, Passed: true}
}

// testOptions are the reporter options golden files are made with.
func testOptions() Options {
	return Options{WorkDir: testWorkDir, Version: "v0.0.0-test"}
}

// render runs the named format over r.
func render(t testing.TB, format string, opts Options, r *checks.Result) []byte {
	t.Helper()
	f, err := Lookup(format)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f(opts).Report(&buf, r); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return buf.Bytes()
}

// golden compares got with testdata/NAME, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run go test ./report -update and review the diff\n--- got ---\n%s", name, got)
	}
}
