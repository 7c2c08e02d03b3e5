package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
	"github.com/mcpcheck/mcpcheck/suppress"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testWorkDir stands for the source root (the repository) of the reports.
const testWorkDir = "/work/project"

// fakePrefix starts every rule id of the test catalogue; no real rule may
// use it (checks tests that), so the two can never collide.
const fakePrefix = "fake-"

// fakeCatalogue is the fixed catalogue every reporter renders in tests, so
// that adding or changing a real rule does not change any golden file. It
// has rules of every signal and severity, in the order the real catalogue
// groups them, and documentation that exercises Markdown escaping.
var fakeCatalogue = []*checks.Rule{
	fakeRule("rpc-error", checks.SignalError, checks.SeverityError, "A request was answered with an error",
		checks.Doc{
			Why: `An error answer: the peer refused a request (-32601) or failed it
(-32603).

1. A second paragraph, which starts like a numbered item, with *stars*,
_underscores_, <angle> brackets, a | pipe and a ` + "`code`" + ` span.`,
			Bad:  `{"id":4,"error":{"code":-32603,"message":"` + "```" + `"}}`,
			Good: `{"id":4,"result":{}}`,
		}),
	fakeRule("tool-failure", checks.SignalError, checks.SeverityError, "A tool reported failure", checks.Doc{}),
	fakeRule("http-status", checks.SignalError, checks.SeverityError, "An HTTP error status with no answer", checks.Doc{}),
	fakeRule("task-failure", checks.SignalError, checks.SeverityError, "A task ended failed", checks.Doc{}),
	fakeRule("rule-crash", checks.SignalError, checks.SeverityError, "A rule failed while checking", checks.Doc{}),
	fakeRule("bad-frame", checks.SignalInvalid, checks.SeverityError, "Something that is not a JSON-RPC message",
		checks.Doc{Why: "- A paragraph that starts like a list item.\n\n+ And one more."}),
	fakeRule("version-member", checks.SignalWarn, checks.SeverityError, "The jsonrpc member is not \"2.0\"", checks.Doc{}),
	fakeRule("odd-id", checks.SignalWarn, checks.SeverityError, "A request id of the wrong type", checks.Doc{}),
	fakeRule("response-form", checks.SignalWarn, checks.SeverityError, "A response with both or neither of result and error", checks.Doc{}),
	fakeRule("id-clash", checks.SignalWarn, checks.SeverityError, "A request id reused while in flight", checks.Doc{}),
	fakeRule("stray-answer", checks.SignalWarn, checks.SeverityWarning, "A response to an id no request used", checks.Doc{}),
	fakeRule("second-answer", checks.SignalWarn, checks.SeverityError, "A second answer for one request", checks.Doc{}),
	fakeRule("no-answer", checks.SignalPending, checks.SeverityWarning, "A request never answered", checks.Doc{}),
	fakeRule("late-answer", checks.SignalLateResult, checks.SeverityNote, "An answer after a cancellation", checks.Doc{}),
	fakeRule("seq-gap", checks.SignalIncomplete, checks.SeverityWarning, "The recorder dropped frames", checks.Doc{}),
	fakeRule("torn-envelope", checks.SignalIncomplete, checks.SeverityWarning, "An envelope that does not parse", checks.Doc{}),
	fakeRule("header-mismatch", checks.SignalMismatch, checks.SeverityWarning, "A routing header disagrees with the body", checks.Doc{}),
	fakeRule("definition-drift", checks.SignalDrift, checks.SeverityWarning, "A tool definition differs from the baseline", checks.Doc{}),
	fakeRule("old-feature", checks.SignalDeprecated, checks.SeverityNote, "Use of a deprecated feature", checks.Doc{}),
	fakeRule("schema-construct", checks.SignalSchema, checks.SeverityNote, "A schema construct some clients mishandle", checks.Doc{}),
	fakeRule("bad-arguments", checks.SignalContract, checks.SeverityWarning, "Arguments that do not validate", checks.Doc{}),
	fakeRule("hidden-text", checks.SignalSecurity, checks.SeverityError, "Hidden text in tool metadata", checks.Doc{}),
	fakeRule("stale-entry", checks.SignalSuppression, checks.SeverityWarning, "A suppressions entry that matched nothing", checks.Doc{}),
	fakeRule("same-call-differs", checks.SignalFlaky, checks.SeverityWarning, "The same call succeeded in one run and failed in another", checks.Doc{}),
}

// fakeRule is a test rule that checks nothing; doc fields left empty get
// a plain text.
func fakeRule(name string, sig checks.Signal, sev checks.Severity, summary string, doc checks.Doc) *checks.Rule {
	id := fakePrefix + name
	doc.Summary, doc.Since = summary, "0.0.0"
	if doc.Why == "" {
		doc.Why = "Why " + id + " matters."
	}
	if doc.Fix == "" {
		doc.Fix = "Fix what " + id + " finds."
	}
	if doc.Bad == "" {
		doc.Bad, doc.Good = "-", "-"
	}
	return &checks.Rule{
		ID: id, Signal: sig, Severity: sev, Doc: doc,
		New: func() checks.Checker { return checks.Base{} },
	}
}

func testCatalogue() []*checks.Rule { return fakeCatalogue }

// TestFakeCatalogueIsValid: the reporters render a catalogue Validate
// would accept, with every signal and every severity.
func TestFakeCatalogueIsValid(t *testing.T) {
	t.Parallel()
	if err := checks.Validate(fakeCatalogue); err != nil {
		t.Fatal(err)
	}
	signals, severities := map[checks.Signal]bool{}, map[checks.Severity]bool{}
	for _, r := range fakeCatalogue {
		signals[r.Signal], severities[r.Severity] = true, true
	}
	if len(signals) != len(checks.Signals()) || len(severities) != 3 {
		t.Errorf("the fake catalogue covers %d signals and %d severities, want all %d and 3", len(signals), len(severities), len(checks.Signals()))
	}
}

// finding builds a finding the way the driver would, with rule metadata.
func finding(rules []*checks.Rule, gate result.Gate, id, file string, line int, subject, msg string) *result.Finding {
	r := checks.Lookup(rules, id)
	if r == nil {
		panic("no rule " + id)
	}
	return &result.Finding{
		Rule: r.ID, Signal: r.Signal, Severity: r.Severity, Message: msg,
		File: file, Line: line, Seq: int64(line), Subject: subject,
		Fingerprint: "fp-" + id + "-" + subject,
		Gated:       gate.Selects(r),
	}
}

// suppressionsFile is the sample's suppressions file.
var suppressionsFile = filepath.Join(testWorkDir, ".mcpcheck-suppressions.json")

const staleFingerprint = "0123456789abcdef0123456789abcdef"

// suppressed marks f as accepted by an entry at line of suppressionsFile.
// relate adds a related location to f, as a rule's Relate does.
func relate(f *result.Finding, file string, line int, message string) *result.Finding {
	f.Related = append(f.Related, result.Location{File: file, Line: line, Message: message})
	return f
}

func suppressed(f *result.Finding, reason, expires string, line int) *result.Finding {
	f.Suppressed = &suppress.Suppression{Fingerprint: f.Fingerprint, Reason: reason, Expires: expires, File: suppressionsFile, Line: line}
	f.Gated = false
	return f
}

// noSeq makes f a finding that belongs to no frame.
func noSeq(f *result.Finding) *result.Finding {
	f.Seq = 0
	return f
}

// sampleResult is the one result every reporter renders in tests: three
// sessions, every signal, gated, informational and suppressed findings, a related
// location, failed and passed assertions, capture text with characters that
// XML, workflow commands and terminals must not see raw, a file outside the
// working directory, and one read from stdin.
func sampleResult(t testing.TB) *result.Result {
	rules := testCatalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(testWorkDir, "captures", "run 1.jsonl")
	outside := "/tmp/elsewhere/agent.jsonl"

	s1 := &result.SessionResult{
		ID: "fs-1", Label: "filesystem", File: inside, FirstLine: 1, Revision: "2025-11-25", Transport: "stdio",
		Frames: 40, MissingFrames: 2,
	}
	s1.Findings = []*result.Finding{
		relate(finding(rules, gate, "fake-rpc-error", inside, 10, "tools/call echo #2", `tools/call "echo" (id 2) failed with JSON-RPC error -32603 "boom: a,b:c 100%"`), inside, 9, "request sent here"),
		finding(rules, gate, "fake-tool-failure", inside, 12, "tools/call read #3", "tool \"read\" (id 3) reported an error: \"bad \x00 byte \x1b[31m and ]]> end\""),
		finding(rules, gate, "fake-http-status", inside, 13, "status 502", "the server answered HTTP 502 with a body that is not JSON: \"<html>Bad Gateway</html>\""),
		finding(rules, gate, "fake-task-failure", inside, 14, "tools/call slow #4 task t1", `task "t1" of tools/call "slow" (id 4) ended with status "failed"`),
		finding(rules, gate, "fake-rule-crash", inside, 15, "fake-version-member", "rule fake-version-member failed: runtime error; its findings for this session are incomplete"),
		finding(rules, gate, "fake-bad-frame", inside, 16, "s2c text", "server wrote a line that is not JSON on the protocol channel: \"Listening\\r\\non stdio\""),
		finding(rules, gate, "fake-second-answer", inside, 17, "tools/call echo #2", `server answered tools/call "echo" (id 2) again (answer 2)`),
		finding(rules, gate, "fake-header-mismatch", inside, 18, "tools/call echo #5", "Mcp-Name \"ech0\" disagrees with params.name \"echo\""),
		finding(rules, gate, "fake-no-answer", inside, 19, "tools/call hang #6", `client tools/call "hang" (id 6) was never answered`),
		finding(rules, gate, "fake-late-answer", inside, 20, "tools/call slow #7", `tools/call "slow" (id 7) was answered after the client cancelled it`),
		finding(rules, gate, "fake-definition-drift", inside, 21, "tool echo", "tool \"echo\": description changed (review)"),
		finding(rules, gate, "fake-old-feature", inside, 22, "sampling/createMessage", "sampling/createMessage is deprecated by 2026-07-28; use a direct LLM provider integration"),
		finding(rules, gate, "fake-seq-gap", inside, 23, "seq 21", "2 frames are missing before seq 23 (seq 21 to 22 were not recorded)"),
		finding(rules, gate, "fake-torn-envelope", inside, 24, "damaged envelope", "unreadable envelope: the file ends inside an envelope"),
		finding(rules, gate, "fake-schema-construct", inside, 25, "tool search oneOf", `tool "search" uses oneOf`),
		finding(rules, gate, "fake-bad-arguments", inside, 26, "tools/call add #8", `tools/call "add" (id 8) arguments do not validate: /a: got string, want number`),
		finding(rules, gate, "fake-hidden-text", inside, 27, "tool steal", "tool \"steal\" description hides text in Unicode tag characters"),
		suppressed(relate(finding(rules, gate, "fake-tool-failure", inside, 28, "tools/call write", `tool "write" (id 9) reported an error: "EROFS: read-only file system"`), inside, 27, "request sent here"),
			"the CI volume is read-only <until> the \"ops\" fix & more\non a second line", "2026-12-31", 4),
		suppressed(finding(rules, gate, "fake-rpc-error", inside, 29, "tools/call move", `tools/call "move" (id 10) failed with JSON-RPC error -32602`), "known: the client sends a stale schema", "", 9),
		noSeq(finding(rules, gate, "fake-stale-entry", suppressionsFile, 14, "suppression "+staleFingerprint, "suppression "+staleFingerprint+" of fake-seq-gap matched no finding")),
	}
	// The exchanges the failing findings are about, for the summary's diagram.
	sent := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	s1.Findings[0].Exchange = &result.Exchange{From: session.ClientToServer, Method: "tools/call", Name: "echo", ID: "2", Line: 9,
		Sent: sent, Answer: "error -32603", Answered: sent.Add(12 * time.Millisecond)}
	s1.Findings[1].Exchange = &result.Exchange{From: session.ClientToServer, Method: "tools/call", Name: "read", ID: "3", Line: 11,
		Sent: sent, Answer: "isError result", Answered: sent.Add(1500 * time.Millisecond)}
	s1.Findings[6].Exchange = &result.Exchange{From: session.ClientToServer, Method: "tools/call", Name: "echo", ID: "2", Line: 9,
		Sent: sent, Answer: "result", Note: "a further answer", Answered: sent.Add(40 * time.Millisecond)}
	s1.Findings[8].Exchange = &result.Exchange{From: session.ClientToServer, Method: "tools/call", Name: "hang", ID: "6", Line: 19,
		Sent: sent, Note: "never answered"}
	s1.Assertions = []result.Assertion{
		{Name: "expect-tool", Arg: "echo", Passed: true, Message: `tool "echo" was called 1 time`},
		{Name: "forbid-tool", Arg: "delete", Passed: false, Message: `forbidden tool "delete" was called 2 times, first at ` + inside + `:30`},
		{Name: "max-duration", Arg: "5s", Passed: false, Message: `1 tool call took longer than 5s; the worst, tools/call "slow" (id 4) at ` + inside + `:14, took 7.25s`},
	}
	s1.Recount()

	s2 := &result.SessionResult{ID: "gw-7", Label: "gateway", File: outside, FirstLine: 1, Revision: "2026-07-28", Transport: "http", Frames: 4}
	s2.Findings = []*result.Finding{
		finding(rules, gate, "fake-stray-answer", outside, 3, "id 9", "server answered id 9, which no client request used"),
	}
	s2.Assertions = []result.Assertion{{Name: "expect-tool", Arg: "echo", Passed: false, Message: `tool "echo" was never called`}}
	s2.Recount()

	s3 := &result.SessionResult{ID: "piped", Label: "", File: session.StdinName, FirstLine: 1, Frames: 2}
	s3.Findings = []*result.Finding{
		finding(rules, gate, "fake-version-member", session.StdinName, 2, "request ping", `client request ping (id 1) has jsonrpc "1.0", not "2.0"`),
	}
	s3.Recount()

	for _, s := range []*result.SessionResult{s1, s2, s3} {
		for _, f := range s.Findings {
			f.Session = s.ID
		}
	}
	return &result.Result{
		Files:    []string{inside, outside, session.StdinName},
		Sessions: []*result.SessionResult{s1, s2, s3},
		Gate:     gate,
		Rules:    rules,
		Passed:   false,
		ExitCode: 1,
	}
}

// emptyResult is a passing run with one clean session.
func emptyResult(t testing.TB) *result.Result {
	rules := testCatalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	s := &result.SessionResult{ID: "clean-1", Label: "filesystem", File: filepath.Join(testWorkDir, "clean.jsonl"), FirstLine: 1, Revision: "2025-11-25", Transport: "stdio", Frames: 12}
	s.Recount()
	return &result.Result{Files: []string{s.File}, Sessions: []*result.SessionResult{s}, Gate: gate, Rules: rules, Passed: true}
}

// testWorkSubdir is the working directory the reports are made in: a
// directory of the source root testWorkDir, as when a CI step runs in ci/.
const testWorkSubdir = testWorkDir + "/ci"

// testOptions are the reporter options golden files are made with.
func testOptions() Options {
	return Options{WorkDir: testWorkSubdir, SourceRoot: testWorkDir, Version: "v0.0.0-test", SemanticVersion: "0.0.0-test"}
}

// render runs the named format over r.
func render(t testing.TB, format string, opts Options, r *result.Result) []byte {
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
