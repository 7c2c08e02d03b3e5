package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

func TestGitHubGolden(t *testing.T) {
	t.Parallel()
	golden(t, "github-sample.golden", render(t, "github", testOptions(), sampleResult(t)))
	golden(t, "github-empty.golden", render(t, "github", testOptions(), emptyResult(t)))
}

func TestGitHubSummaryGolden(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]*result.Result{"sample": sampleResult(t), "empty": emptyResult(t)} {
		o := testOptions()
		o.StepSummary = filepath.Join(t.TempDir(), "summary.md")
		render(t, "github", o, r)
		golden(t, "github-summary-"+name+".golden", readFile(t, o.StepSummary))
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// githubLines splits the command output into lines.
func githubLines(out []byte) []string {
	s := strings.TrimSuffix(string(out), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestGitHubLevelsAndPaths(t *testing.T) {
	t.Parallel()
	out := string(render(t, "github", testOptions(), sampleResult(t)))
	for _, want := range []string{
		// Gated, inside the working directory: relative path.
		"::error file=captures/run 1.jsonl,line=10,title=fake-rpc-error::tools/call \"echo\" (id 2) failed with JSON-RPC error -32603 \"boom: a,b:c 100%25\"\n",
		// Outside the working directory: as given.
		"::error file=/tmp/elsewhere/agent.jsonl,line=3,title=fake-stray-answer::",
		// Stdin: no file, no line.
		"::error title=fake-version-member::client request ping",
		// Not gated, rule severity warning / note.
		"::warning file=captures/run 1.jsonl,line=18,title=fake-header-mismatch::",
		"::notice file=captures/run 1.jsonl,line=22,title=fake-old-feature::",
		// Not gated although the rule's severity is error.
		"::warning file=captures/run 1.jsonl,line=27,title=fake-hidden-text::",
		// Failed assertion, no file.
		"::error title=assertion forbid-tool::session fs-1: forbidden tool \"delete\" was called 2 times",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
	// Capture text cannot smuggle raw control characters into the log.
	if strings.ContainsAny(out, "\x00\x1b\r") {
		t.Errorf("output holds raw control characters:\n%q", out)
	}
	for _, line := range githubLines([]byte(out)) {
		if !strings.HasPrefix(line, "::") {
			t.Errorf("not a workflow command: %q", line)
		}
	}
	// Suppressed findings are accepted: no annotation; a stale entry is
	// annotated in the suppressions file.
	if strings.Contains(out, "line=28,") || strings.Contains(out, "line=29,") || strings.Contains(out, "EROFS") {
		t.Errorf("a suppressed finding was annotated:\n%s", out)
	}
	if !strings.Contains(out, "::warning file=.mcpcheck-suppressions.json,line=14,title=fake-stale-entry::") {
		t.Errorf("the stale entry is not annotated at its line:\n%s", out)
	}
	// Gated findings come before every other annotation.
	firstOther := strings.Index(out, "::warning")
	if lastError := strings.LastIndex(out, "::error"); firstOther < lastError {
		t.Error("a non-gated annotation precedes a gated one")
	}
}

func TestGitHubEmptyRunWritesNothing(t *testing.T) {
	t.Parallel()
	if out := render(t, "github", testOptions(), emptyResult(t)); len(out) != 0 {
		t.Errorf("clean run wrote %q", out)
	}
	if out := render(t, "github", testOptions(), &result.Result{}); len(out) != 0 {
		t.Errorf("empty result wrote %q", out)
	}
}

func TestGitHubEscaping(t *testing.T) {
	t.Parallel()
	a := ghAnnotation{level: "error", file: "dir,a:b/x%.jsonl", line: 3, title: "a:b,c%", msg: "100% done\r\nnext: a,b\rend\nz"}
	want := "::error file=dir%2Ca%3Ab/x%25.jsonl,line=3,title=a%3Ab%2Cc%25::100%25 done%0D%0Anext: a,b%0Dend%0Az"
	if got := a.command(); got != want {
		t.Errorf("command =\n%s\nwant\n%s", got, want)
	}
	// Through the reporter: a file name with ':' and ',' inside WorkDir.
	r := sampleResult(t)
	f := r.Sessions[0].Findings[0]
	f.File = filepath.Join(testWorkDir, "a,b:c.jsonl")
	f.Message = "50% of\r\ncalls"
	out := string(render(t, "github", testOptions(), r))
	if !strings.Contains(out, "::error file=a%2Cb%3Ac.jsonl,line=10,title=fake-rpc-error::50%25 of%0D%0Acalls\n") {
		t.Errorf("escaped annotation missing:\n%s", out)
	}
	// Other control characters become visible escapes.
	if got := ghEscapeData("a\x1b[31mb\x00"); got != `a\u001b[31mb\u0000` {
		t.Errorf("ghEscapeData = %q", got)
	}
}

// Annotations name captures as SARIF does: relative to the source root,
// even when mcpcheck ran in a subdirectory of it.
func TestGitHubPath(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ workDir, root, file, want string }{
		{"/work/project", "/work/project", "/work/project/captures/a.jsonl", "captures/a.jsonl"},
		{"/work/project/ci", "/work/project", "two.jsonl", "ci/two.jsonl"},
		{"/work/project/ci", "/work/project", "../captures/a.jsonl", "captures/a.jsonl"},
		{"/work/project", "/work/project", "/work/project-other/a.jsonl", "/work/project-other/a.jsonl"},
		{"/work/project", "/work/project", "/tmp/a.jsonl", "/tmp/a.jsonl"},
		{"/work/project", "", "rel/a.jsonl", "rel/a.jsonl"},
		{"", "", "/work/project/a.jsonl", "/work/project/a.jsonl"},
		{"/work/project/", "/work/project/", "/work/project/a.jsonl", "a.jsonl"},
	} {
		g := &GitHub{place: newPlacer(Options{WorkDir: c.workDir, SourceRoot: c.root})}
		if got := g.path(c.file); got != c.want {
			t.Errorf("path(%q) in %q, root %q = %q, want %q", c.file, c.workDir, c.root, got, c.want)
		}
	}
}

// manyFindings is one session with n findings of rule id at lines 1..n.
func manyFindings(t testing.TB, n int, id, msg string) *result.Result {
	rules := testCatalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(testWorkDir, "big.jsonl")
	s := &result.SessionResult{ID: "big", Label: "big", File: file, Frames: int64(n)}
	for i := 1; i <= n; i++ {
		s.Findings = append(s.Findings, finding(rules, gate, id, file, i, fmt.Sprint(i), fmt.Sprintf("%s %d", msg, i)))
	}
	s.Recount()
	r := &result.Result{Files: []string{file}, Sessions: []*result.SessionResult{s}, Gate: gate, Rules: rules, Passed: s.Passed()}
	if !r.Passed {
		r.ExitCode = 1
	}
	return r
}

func TestGitHubCapsErrors(t *testing.T) {
	t.Parallel()
	lines := githubLines(render(t, "github", testOptions(), manyFindings(t, 25, "fake-rpc-error", "boom")))
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 10 errors and 1 notice:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i, l := range lines[:10] {
		if want := fmt.Sprintf("::error file=big.jsonl,line=%d,", i+1); !strings.HasPrefix(l, want) {
			t.Errorf("line %d = %q, want it to start %q", i, l, want)
		}
	}
	if !strings.HasPrefix(lines[10], "::notice::15 more findings not shown") || !strings.Contains(lines[10], "full report") {
		t.Errorf("last line = %q, want a notice about 15 more findings", lines[10])
	}
}

func TestGitHubCapsNoticesKeepingASlot(t *testing.T) {
	t.Parallel()
	// fake-old-feature is a note-severity rule outside the default gate.
	lines := githubLines(render(t, "github", testOptions(), manyFindings(t, 12, "fake-old-feature", "old")))
	if len(lines) != 10 || !strings.HasPrefix(lines[9], "::notice::3 more findings") {
		t.Errorf("12 notices: want 9 annotations and the overflow notice, got\n%s", strings.Join(lines, "\n"))
	}
	lines = githubLines(render(t, "github", testOptions(), manyFindings(t, 10, "fake-old-feature", "old")))
	if len(lines) != 10 || strings.HasPrefix(lines[9], "::notice::") {
		t.Errorf("exactly 10 notices fit: got\n%s", strings.Join(lines, "\n"))
	}
}

func TestGitHubSummaryAppends(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "step_summary.md")
	if err := os.WriteFile(path, []byte("earlier step\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := testOptions()
	o.StepSummary = path
	out1 := render(t, "github", o, sampleResult(t))
	render(t, "github", o, emptyResult(t))
	got := string(readFile(t, path))
	if !strings.HasPrefix(got, "earlier step\n## mcpcheck\n") || strings.Count(got, "## mcpcheck\n") != 2 {
		t.Errorf("summary did not append twice after the earlier content:\n%s", got)
	}
	if !strings.Contains(got, "**Check failed**") || !strings.Contains(got, "**Check passed**") {
		t.Errorf("summary lacks a verdict:\n%s", got)
	}
	if string(out1) != string(render(t, "github", testOptions(), sampleResult(t))) {
		t.Error("writing a summary changed the command output")
	}
	// A new file is created with mode 0644.
	fresh := filepath.Join(t.TempDir(), "new.md")
	o.StepSummary = fresh
	render(t, "github", o, emptyResult(t))
	if st, err := os.Stat(fresh); err != nil || st.Mode().Perm()&^0o644 != 0 {
		t.Errorf("new summary file: %v, mode %v", err, st.Mode())
	}
}

func TestGitHubSummaryContent(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.StepSummary = filepath.Join(t.TempDir(), "s.md")
	render(t, "github", o, sampleResult(t))
	got := string(readFile(t, o.StepSummary))
	for _, want := range []string{
		"| fs-1 | filesystem | **5** | **1** | **1** | 1 | 1 | 1 | 1 | 1 | 2 | 1 | 1 | 1 | 1 | 0 | 2 | error, invalid, warn |",
		"22 findings (9 failing the gate, 2 suppressed)",
		"| note | fs-1 | .mcpcheck-suppressions.json:14 | fake-stale-entry |",
		"- session gw-7, expect-tool echo: tool \"echo\" was never called",
		"| **error** | fs-1 | captures/run 1.jsonl:10 | fake-rpc-error |",
		"| note | fs-1 | captures/run 1.jsonl:27 | fake-hidden-text |",
		"&lt;html&gt;Bad Gateway&lt;/html&gt;",
		`\]\]&gt;`,
		"| **error** | piped | &lt;stdin&gt;:2 | fake-version-member |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q\n%s", want, got)
		}
	}
}

func TestGitHubSummaryEscapesMarkdown(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.StepSummary = filepath.Join(t.TempDir(), "s.md")
	render(t, "github", o, hostileResult(t))
	got := string(readFile(t, o.StepSummary))
	if strings.ContainsAny(got, "\x00\x1b\r") || strings.Contains(got, "<b>") || strings.Contains(got, "[l](") {
		t.Errorf("summary carries raw capture markup:\n%s", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| level") || strings.HasPrefix(line, "| session") {
			continue
		}
		// a finding row has 6, a rule row 5, a count row one per signal and 5 more
		if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 6 && n != 5 && n != len(checks.Signals())+5 {
			t.Errorf("a table row has %d cell separators: %q", n, line)
		}
	}
	if !strings.Contains(got, "md \\| \\`code\\` &lt;b&gt;x&lt;/b&gt; \\[l\\](http://e)") {
		t.Errorf("escaped message missing:\n%s", got)
	}
}

func TestGitHubSummaryStaysUnderOneMiB(t *testing.T) {
	t.Parallel()
	r := manyFindings(t, 20000, "fake-rpc-error", strings.Repeat("a long | message <x> ", 15))
	o := testOptions()
	o.StepSummary = filepath.Join(t.TempDir(), "s.md")
	render(t, "github", o, r)
	got := readFile(t, o.StepSummary)
	if len(got) >= 1<<20 {
		t.Fatalf("summary is %d bytes, want < 1 MiB", len(got))
	}
	if !strings.Contains(string(got), "more findings not shown") {
		t.Error("truncated summary has no note saying so")
	}
	if !strings.Contains(string(got), "big.jsonl:1 |") {
		t.Error("the first findings are missing")
	}
}

func TestGitHubSummaryWriteErrorIsReturned(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.StepSummary = filepath.Join(t.TempDir(), "missing-dir", "s.md")
	f, err := Lookup("github")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := f(o).Report(&out, sampleResult(t)); err == nil || !strings.Contains(err.Error(), "step summary") {
		t.Errorf("Report = %v, want the step summary error", err)
	}
}

// TestReportersSurviveOddInput feeds what a careless front end might build:
// no files, a session without findings slice, a finding with no file, line,
// message or related locations.
func TestReportersSurviveOddInput(t *testing.T) {
	t.Parallel()
	odd := &result.Result{ExitCode: 1, Sessions: []*result.SessionResult{
		{ID: "bare"},
		{ID: "thin", Findings: []*result.Finding{{Rule: "x", Severity: checks.SeverityNote}}, Assertions: []result.Assertion{{}}},
	}}
	for _, s := range odd.Sessions {
		s.Recount()
	}
	for _, format := range []string{"junit", "json", "github"} {
		o := testOptions()
		o.StepSummary = filepath.Join(t.TempDir(), "s.md")
		render(t, format, o, odd)
		render(t, format, o, &result.Result{})
	}
	if out := string(render(t, "github", testOptions(), odd)); !strings.HasPrefix(out, "::error title=assertion ::session thin: \n::notice title=x::\n") {
		t.Errorf("odd input rendered as %q", out)
	}
	checkJUnitTotals(t, parseJUnit(t, render(t, "junit", testOptions(), odd)))
	checkJSONMatches(t, odd, parseJSON(t, render(t, "json", testOptions(), odd)))
}

// Done when: the step summary never exceeds its 512 KiB budget, and with
// many sessions it draws the failing ones before the count table, which
// takes no more than its share.
func TestGitHubSummaryBudgetWithManySessions(t *testing.T) {
	t.Parallel()
	rules := testCatalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(testWorkDir, "many.jsonl")
	r := &result.Result{Files: []string{file}, Gate: gate, Rules: rules, ExitCode: 1}
	for i := 1; i <= 30000; i++ {
		s := &result.SessionResult{ID: fmt.Sprintf("agent-%05d-%s", i, strings.Repeat("x", 40)), Label: "fs", File: file, FirstLine: i, Frames: 1}
		if i == 30000 { // the one failing session is the last
			s.Findings = []*result.Finding{finding(rules, gate, "fake-rpc-error", file, i, "tools/call echo", `tools/call "echo" (id 1) failed with JSON-RPC error -32603`)}
		}
		s.Recount()
		r.Sessions = append(r.Sessions, s)
	}
	o := testOptions()
	o.StepSummary = filepath.Join(t.TempDir(), "s.md")
	render(t, "github", o, r)
	got := string(readFile(t, o.StepSummary))
	if len(got) > ghSummaryBudget {
		t.Errorf("summary of %d bytes, over its budget of %d", len(got), ghSummaryBudget)
	}
	failing, counts, findings := strings.Index(got, "#### session agent-30000"), strings.Index(got, "### Findings per signal"), strings.Index(got, "\n### Findings\n")
	if failing < 0 || counts < 0 || failing > counts || findings < counts {
		t.Fatalf("failing session at %d, count table at %d, findings at %d", failing, counts, findings)
	}
	if table := findings - counts; table > ghCountShare+ghSummaryReserve {
		t.Errorf("the count table took %d bytes, more than its share of %d", table, ghCountShare)
	}
	if !strings.Contains(got, "more sessions not shown") || !strings.Contains(got, "many.jsonl:30000") {
		t.Errorf("the summary does not say it left sessions out, or lacks the failing finding")
	}
}

// Should the closing lines ever outgrow the reserve, the text is cut at a
// line within the budget, saying so.
func TestGitHubSummaryTextIsCutWithinTheBudget(t *testing.T) {
	t.Parallel()
	var s ghSummary
	for s.b.Len() <= ghSummaryBudget+1000 {
		s.line("%s", strings.Repeat("y", 999))
	}
	got := s.text()
	if len(got) > ghSummaryBudget || !strings.HasSuffix(got, ghSummaryCut) || strings.Contains(got, "y"+ghSummaryCut) {
		t.Errorf("cut to %d bytes, ending %q", len(got), got[len(got)-120:])
	}
}
