package report

import (
	"encoding/xml"
	"fmt"
	"strings"
	"testing"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

func TestJUnitGolden(t *testing.T) {
	t.Parallel()
	golden(t, "junit-sample.golden", render(t, "junit", testOptions(), sampleResult(t)))
	golden(t, "junit-empty.golden", render(t, "junit", testOptions(), emptyResult(t)))
}

// parseJUnit reads a report back the way a CI server would.
func parseJUnit(t *testing.T, out []byte) junit.Testsuites {
	t.Helper()
	if !strings.HasPrefix(string(out), xmlHeader) {
		t.Fatalf("report does not start with the XML declaration:\n%.200s", out)
	}
	var suites junit.Testsuites
	if err := xml.Unmarshal(out, &suites); err != nil {
		t.Fatalf("report is not well-formed XML: %v\n%s", err, out)
	}
	return suites
}

// checkJUnitTotals checks that every count attribute agrees with the cases.
func checkJUnitTotals(t *testing.T, suites junit.Testsuites) {
	t.Helper()
	var tests, failures, errors, skipped int
	for _, s := range suites.Suites {
		var f, e, sk int
		for _, c := range s.Testcases {
			if c.Failure != nil {
				f++
			}
			if c.Error != nil {
				e++
			}
			if c.Skipped != nil {
				sk++
			}
		}
		if s.Tests != len(s.Testcases) || s.Failures != f || s.Errors != e || s.Skipped != sk {
			t.Errorf("suite %s: tests=%d failures=%d errors=%d skipped=%d, cases say %d/%d/%d/%d",
				s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Testcases), f, e, sk)
		}
		tests, failures, errors, skipped = tests+s.Tests, failures+s.Failures, errors+s.Errors, skipped+s.Skipped
	}
	if suites.Tests != tests || suites.Failures != failures || suites.Errors != errors || suites.Skipped != skipped {
		t.Errorf("testsuites: tests=%d failures=%d errors=%d skipped=%d, suites sum to %d/%d/%d/%d",
			suites.Tests, suites.Failures, suites.Errors, suites.Skipped, tests, failures, errors, skipped)
	}
}

// junitCase finds a case by classname and name.
func junitCase(s junit.Testsuite, classname, name string) *junit.Testcase {
	for i := range s.Testcases {
		if s.Testcases[i].Classname == classname && s.Testcases[i].Name == name {
			return &s.Testcases[i]
		}
	}
	return nil
}

// checkJUnitKeepsFindings checks that each finding is listed, with its
// location and rule id on one line, in the failure of its signal's case
// when gated and in its <system-out> otherwise.
func checkJUnitKeepsFindings(t *testing.T, r *result.Result, suites junit.Testsuites) {
	t.Helper()
	if len(suites.Suites) != len(r.Sessions) {
		t.Fatalf("%d suites for %d sessions", len(suites.Suites), len(r.Sessions))
	}
	for i, s := range r.Sessions {
		suite := suites.Suites[i]
		if suite.Name != junitText(s.ID) {
			t.Errorf("suite %d is named %q, want the session id %q", i, suite.Name, s.ID)
		}
		for _, f := range s.Findings {
			c := junitCase(suite, "mcpcheck."+f.Signal.String(), f.Signal.String())
			if f.Suppressed != nil {
				c = junitCase(suite, "mcpcheck.suppressed", "suppressed")
			}
			if c == nil {
				t.Fatalf("suite %s has no case for signal %s (suppressed %v)", suite.Name, f.Signal, f.Suppressed != nil)
			}
			var text string
			switch {
			case f.Suppressed != nil && c.Skipped != nil:
				text = c.Skipped.Data
			case f.Gated && c.Failure != nil:
				text = c.Failure.Data
			case !f.Gated && c.SystemOut != nil:
				text = c.SystemOut.Data
			}
			want := xmlSafe(fmt.Sprintf("%s %s%s (%s)", junitText(location(f.File, f.Line)), junitText(flatten(f.Message)), suppressedNote(f), f.Rule))
			if !strings.Contains(text, want) {
				t.Errorf("suite %s, case %s (gated=%v) lacks %q; got %q", suite.Name, f.Signal, f.Gated, want, text)
			}
		}
	}
}

func TestJUnitParsesBackConsistent(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	suites := parseJUnit(t, render(t, "junit", testOptions(), r))
	checkJUnitTotals(t, suites)
	checkJUnitKeepsFindings(t, r, suites)

	if suites.Name != "mcpcheck" {
		t.Errorf("testsuites name = %q", suites.Name)
	}
	// the signals, plus expect-tool, forbid-tool, max-duration and
	// suppressed / expect-tool.
	n := len(checks.Signals())
	for i, want := range []int{n + 4, n + 1, n} {
		if got := len(suites.Suites[i].Testcases); got != want {
			t.Errorf("suite %d has %d cases, want %d", i, got, want)
		}
	}
	fs := suites.Suites[0]
	if c := junitCase(fs, "mcpcheck.error", "error"); c == nil || c.Failure == nil || c.Failure.Message != "5 error findings" {
		t.Errorf("error case of fs-1 = %+v, want a failure saying 5 error findings", c)
	}
	if c := junitCase(fs, "mcpcheck.security", "security"); c == nil || c.Failure != nil || c.SystemOut == nil {
		t.Errorf("security is not gated: its case must pass and list its finding, got %+v", c)
	}
	if c := junitCase(fs, "mcpcheck.suppressed", "suppressed"); c == nil || c.Failure != nil || c.Skipped == nil || c.Skipped.Message != "2 suppressed findings" ||
		!strings.Contains(c.Skipped.Data, "(suppressed: known: the client sends a stale schema) (fake-rpc-error)\n") {
		t.Errorf("suppressed case of fs-1 = %+v, want it skipped listing 2 findings with their reasons", c)
	}
	if c := junitCase(suites.Suites[1], "mcpcheck.suppressed", "suppressed"); c != nil {
		t.Errorf("gw-7 has no suppressed finding, but a suppressed case %+v", c)
	}
	if suites.Skipped != 1 {
		t.Errorf("skipped = %d, want 1", suites.Skipped)
	}
	if c := junitCase(fs, "mcpcheck.assertion", "expect-tool"); c == nil || c.Failure != nil {
		t.Errorf("expect-tool held in fs-1 but its case is %+v", c)
	}
	c := junitCase(fs, "mcpcheck.assertion", "forbid-tool")
	if c == nil || c.Failure == nil || !strings.Contains(c.Failure.Data, `forbidden tool "delete" was called 2 times`) {
		t.Errorf("forbid-tool failed in fs-1 but its case is %+v", c)
	}
	props := map[string]string{}
	if fs.Properties != nil {
		for _, p := range *fs.Properties {
			props[p.Name] = p.Value
		}
	}
	for name, want := range map[string]string{"file": testWorkDir + "/captures/run 1.jsonl", "label": "filesystem", "revision": "2025-11-25"} {
		if props[name] != want {
			t.Errorf("property %s = %q, want %q", name, props[name], want)
		}
	}
	if suites.Failures != 8 {
		t.Errorf("failures = %d, want 8 (fs-1: error, invalid, warn, forbid-tool, max-duration; gw-7: warn, expect-tool; piped: warn)", suites.Failures)
	}
}

func TestJUnitEmptyRunPasses(t *testing.T) {
	t.Parallel()
	suites := parseJUnit(t, render(t, "junit", testOptions(), emptyResult(t)))
	checkJUnitTotals(t, suites)
	if suites.Failures != 0 || suites.Tests != len(checks.Signals()) {
		t.Errorf("clean run: tests=%d failures=%d, want %d and 0", suites.Tests, suites.Failures, len(checks.Signals()))
	}
	empty := parseJUnit(t, render(t, "junit", testOptions(), &result.Result{Passed: true}))
	if len(empty.Suites) != 0 {
		t.Errorf("no sessions gave %d suites", len(empty.Suites))
	}
}

// hostileResult carries capture text no report may pass on raw: characters
// XML cannot hold, a CDATA terminator, workflow-command and Markdown syntax.
func hostileResult(t testing.TB) *result.Result {
	rules := testCatalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	file := testWorkDir + "/odd\x1b,name:1.jsonl"
	s := &result.SessionResult{ID: "s\x00-1", Label: "lab\x1bel ]]>", File: file, Revision: "x\uFFFEy", Frames: 3}
	s.Findings = []*result.Finding{
		finding(rules, gate, "fake-tool-failure", file, 1, "a", "nul \x00 here"),
		finding(rules, gate, "fake-rpc-error", file, 2, "b", "escape \x1b[2J cleared"),
		finding(rules, gate, "fake-bad-frame", file, 3, "c", "cdata ]]> end <![CDATA[ and ]]]]> twice"),
		finding(rules, gate, "fake-no-answer", file, 0, "d", "bad utf8 \xed\xa0\x80 and \xff, U+FFFF \uffff, bell \a"),
		finding(rules, gate, "fake-hidden-text", file, 5, "e", "md | `code` <b>x</b> [l](http://e) %0A 100% \r\n::error::x"),
	}
	s.Findings[0].Related = []result.Location{{File: file, Line: 0, Message: "rel \x00 ]]>"}}
	s.Assertions = []result.Assertion{{Name: "expect-tool", Arg: "a\x00b", Passed: false, Message: "never \x1b called ]]>"}}
	s.Recount()
	return &result.Result{Files: []string{file}, Sessions: []*result.SessionResult{s}, Gate: gate, Rules: rules, ExitCode: 1}
}

func TestJUnitHostileTextStaysWellFormed(t *testing.T) {
	t.Parallel()
	r := hostileResult(t)
	out := render(t, "junit", testOptions(), r)
	suites := parseJUnit(t, out)
	checkJUnitTotals(t, suites)
	checkJUnitKeepsFindings(t, r, suites)

	for _, bad := range []string{"\x00", "\x1b", "\a", "\uffff", "\ufffe", "\xed\xa0\x80", "\xff"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("output contains %q", bad)
		}
	}
	// The CDATA terminator is carried, not cut: parsed text holds it intact.
	c := junitCase(suites.Suites[0], "mcpcheck.invalid", "invalid")
	if c == nil || c.Failure == nil || !strings.Contains(c.Failure.Data, "cdata ]]> end <![CDATA[ and ]]]]> twice") {
		t.Errorf("the ]]> text did not survive: %+v", c)
	}
	if suites.Suites[0].Name != "s-1" {
		t.Errorf("suite name = %q, want the NUL dropped", suites.Suites[0].Name)
	}
}

func TestJUnitRuleGateFailsItsSignal(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	gate, err := result.ParseGate("fake-hidden-text", r.Rules)
	if err != nil {
		t.Fatal(err)
	}
	r.Gate = gate
	for _, s := range r.Sessions {
		for _, f := range s.Findings {
			f.Gated = gate.Selects(checks.Lookup(r.Rules, f.Rule))
		}
	}
	suites := parseJUnit(t, render(t, "junit", testOptions(), r))
	checkJUnitTotals(t, suites)
	checkJUnitKeepsFindings(t, r, suites)
	fs := suites.Suites[0]
	if c := junitCase(fs, "mcpcheck.security", "security"); c == nil || c.Failure == nil || c.Failure.Message != "1 security finding" {
		t.Errorf("security case = %+v, want a failure for the gated rule", c)
	}
	if c := junitCase(fs, "mcpcheck.error", "error"); c == nil || c.Failure != nil || c.SystemOut == nil {
		t.Errorf("error is not gated now, its case must pass with its findings in system-out: %+v", c)
	}
}

func TestXMLSafe(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":                  "plain",
		"tab\tnl\ncr\r":          "tab\tnl\ncr\r",
		"a\x00b\x01c\x1fd\x1be":  "abcde",
		"x\uFFFEy\uFFFFz":        "xyz",
		"s\xed\xa0\x80t":         "st", // an encoded lone surrogate
		"bad\xffbyte":            "badbyte",
		"keep \uFFFD é 😀 \u0085": "keep \uFFFD é 😀 \u0085",
		"]]>":                    "]]>",
		"one \x1f":               "one ", // one control alone, none below 0x10
		"esc\x1b[31m red":        "esc[31m red",
	} {
		if got := xmlSafe(in); got != want {
			t.Errorf("xmlSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// flatten puts a message on one line: each line break, CRLF included,
// becomes one space.
func TestFlatten(t *testing.T) {
	for in, want := range map[string]string{"": "", "one line": "one line", "a\r\nb": "a b", "a\rb\nc": "a b c",
		"\n\r\n\r": "   ", "a\n\nb": "a  b", "tab\tstays": "tab\tstays"} {
		if got := flatten(in); got != want {
			t.Errorf("flatten(%q) = %q, want %q", in, got, want)
		}
	}
}
