package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/sharedtest"
	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/report/sariftest"
	"github.com/mcpcheck/mcpcheck/usage"
)

// Done when: a coverage line and the --min-tool-coverage assertion on a
// capture: the line names the tools never called, the assertion fails
// under the share and passes at it.
func TestCoverageLineAndAssertion(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	capture := testdata("clean-stdio.jsonl")
	code, out, errs := cli.invoke(t, "", capture)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	const line = "coverage notes: tools 2/3 called successfully (67%), never called: read_note\n"
	if !strings.Contains(out, line) {
		t.Errorf("no coverage line %q in:\n%s", line, out)
	}
	code, out, _ = cli.invoke(t, "", "--min-tool-coverage", "90", capture)
	const failed = "assertion failed: min-tool-coverage: server notes: tool coverage 66.7% (2 of 3 tools called successfully) is under 90%; never called: read_note\n"
	if code != 1 || !strings.Contains(out, failed) || strings.Contains(out, "check passed") {
		t.Errorf("--min-tool-coverage 90: exit %d, want 1 and %q in:\n%s", code, failed, out)
	}
	if code, out, _ = cli.invoke(t, "", "--min-tool-coverage=66", capture); code != 0 || !strings.Contains(out, "check passed") {
		t.Errorf("--min-tool-coverage 66: exit %d, want 0:\n%s", code, out)
	}
	rep := jsonReport(t, cli, 1, "--min-tool-coverage", "90", capture)
	if len(rep.Assertions) != 1 || rep.Assertions[0].Passed || rep.Assertions[0].Name != "min-tool-coverage" {
		t.Errorf("JSON assertions %+v", rep.Assertions)
	}
	sv := rep.Usage.Server("notes")
	if sv == nil || sv.Tools.Advertised != 3 || sv.Tools.Succeeded != 2 || strings.Join(sv.Tools.NeverCalled, ",") != "read_note" {
		t.Fatalf("JSON usage %+v", rep.Usage)
	}
	for _, ts := range sv.ToolStats {
		if ts.Name == "search_notes" && (strings.Join(ts.Passed, ",") != "query" || strings.Join(ts.NeverPassed, ",") != "limit") {
			t.Errorf("search_notes properties: passed %v, never passed %v", ts.Passed, ts.NeverPassed)
		}
	}
	for _, bad := range []string{"101", "-1", "NaN", "x"} {
		if code, out, errs := cli.invoke(t, "", "--min-tool-coverage", bad, capture); code != 2 || out != "" || errs == "" {
			t.Errorf("--min-tool-coverage %s: exit %d, stdout %q, stderr %q", bad, code, out, errs)
		}
	}
}

// The same on a real capture of the filesystem server.
func TestCoverageOnARealCapture(t *testing.T) {
	t.Parallel()
	capture := sharedtest.Path(t, "captures/02-filesystem-stdio-clean.jsonl")
	cli := ownHome(t)
	code, out, _ := cli.invoke(t, "", "--min-tool-coverage", "90", capture)
	const want = "assertion failed: min-tool-coverage: server filesystem: tool coverage 85.7% (12 of 14 tools called successfully) is under 90%; never called: read_file, read_media_file\n"
	if code != 1 || !strings.Contains(out, "coverage filesystem: tools 12/14 called successfully (86%), never called: read_file, read_media_file\n") || !strings.Contains(out, want) {
		t.Errorf("exit %d, want 1 and the coverage line and %q in:\n%s", code, want, out)
	}
}

// Done when: a flaky call found across two captures, by check's own rule
// (gated only when asked) and by stats in every format.
func TestFlakyCallAcrossTwoCaptures(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	a, b := testdata("clean-stdio.jsonl"), testdata("usage/notes-2.2.0.jsonl")
	rep := jsonReport(t, cli, 1, a, b) // the tool-error gates; flaky-call does not
	var flaky []report.JSONFinding
	for _, f := range findingsOf(rep) {
		if f.Rule == "flaky-call" {
			flaky = append(flaky, f)
		}
	}
	if len(flaky) != 1 {
		t.Fatalf("%d flaky-call findings, want 1: %+v", len(flaky), findingsOf(rep))
	}
	f := flaky[0]
	if f.Gated || f.Signal != "flaky" || f.Severity != "warning" || f.File != b || f.Line != 9 ||
		!strings.HasPrefix(f.Subject, "tools/call search_notes arguments ") ||
		!strings.Contains(f.Message, `tools/call "search_notes" with the same arguments`) ||
		!strings.HasSuffix(f.Message, "failed here (tool-error) and succeeded in "+a+":9") {
		t.Errorf("flaky-call finding %+v", f)
	}
	if code, out, _ := cli.invoke(t, "", "--fail-on", "flaky", a, b); code != 1 || !strings.Contains(out, "check failed: flaky") {
		t.Errorf("--fail-on flaky: exit %d:\n%s", code, out)
	}
	// One capture alone has nothing to compare: the rule is not observed.
	rep = jsonReport(t, cli, 0, a)
	for _, st := range rep.Rules {
		if st.Rule == "flaky-call" && st.Status != report.StatusNotObserved {
			t.Errorf("flaky-call over one capture: %+v", st)
		}
	}

	code, out, errs := cli.invoke(t, "", "stats", a, b)
	if code != 0 || errs != "" || !strings.Contains(out, "flaky: search_notes with arguments ") ||
		!strings.Contains(out, "coverage notes: tools 2/4 called successfully (50%)") {
		t.Errorf("stats: exit %d, stderr %q:\n%s", code, errs, out)
	}
	code, out, _ = cli.invoke(t, "", "stats", "--format", "json", a, b)
	var sum usage.Summary
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil {
		t.Fatalf("stats json: exit %d, %v", code, err)
	}
	sv := sum.Server("notes")
	if sum.Captures != 2 || sv == nil || len(sv.Flaky) != 1 || sv.Flaky[0].Tool != "search_notes" || sv.Flaky[0].FailKind != "tool-error" {
		t.Fatalf("stats json %+v", sum)
	}
	for _, ts := range sv.ToolStats {
		if ts.Name == "search_notes" && (ts.Calls != 2 || ts.OK != 1 || ts.Errors["tool-error"] != 1 || ts.ErrorRate != 0.5 || ts.Captures != 2 || ts.Latency.Count != 2) {
			t.Errorf("search_notes stats %+v", ts)
		}
	}
	code, out, _ = cli.invoke(t, "", "stats", "--format", "markdown", a, b)
	if code != 0 || !strings.Contains(out, "**Flaky calls**") || !strings.Contains(out, "| search\\_notes | 2 | 1 | 50.0% |") {
		t.Errorf("stats markdown: exit %d:\n%s", code, out)
	}
	if code, out, errs := cli.invoke(t, "", "stats"); code != 2 || out != "" || !strings.Contains(errs, "CAPTURE") {
		t.Errorf("stats without captures: exit %d, %q %q", code, out, errs)
	}
}

// Done when: diff of a server's old and new release exits 1 naming the
// changed tools; diff of a capture with itself exits 0.
func TestDiffOfTwoReleases(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	old, cur := testdata("clean-stdio.jsonl"), testdata("usage/notes-2.2.0.jsonl")
	code, out, errs := cli.invoke(t, "", "diff", old, cur)
	for _, want := range []string{
		"notes: tool archive_note added (info)",
		"notes: tool read_note removed (breaking)",
		"notes: tool search_notes changed (breaking): input_schema breaking",
		"search_notes with arguments ", "succeeded in base, failed in head (tool-error) [regression]",
		"notes: tool coverage 67% → 33%; lost search_notes",
		"regression: server notes: breaking tool changes: read_note, search_notes",
		"regression: 1 new finding fails the gate",
		"diff failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q", want)
		}
	}
	if code != 1 || errs != "" {
		t.Errorf("exit %d, stderr %q:\n%s", code, errs, out)
	}
	for _, side := range []string{old, cur} {
		if code, out, _ := cli.invoke(t, "", "diff", side, side); code != 0 || out != "no regression\n" {
			t.Errorf("diff %s with itself: exit %d:\n%s", side, code, out)
		}
	}
	// BASE as the JSON report of an earlier run: tools by name, findings.
	dir := t.TempDir()
	base := filepath.Join(dir, "main.json")
	if code, _, errs := cli.invoke(t, "", "--output", "json="+base, old); code != 0 {
		t.Fatalf("writing the report: exit %d %s", code, errs)
	}
	code, out, _ = cli.invoke(t, "", "diff", base, cur)
	if code != 1 || !strings.Contains(out, "notes: tool read_note removed (breaking)") || !strings.Contains(out, "tools are compared by name only") {
		t.Errorf("diff REPORT HEAD: exit %d:\n%s", code, out)
	}
	if code, out, _ := cli.invoke(t, "", "diff", base, old); code != 0 {
		t.Errorf("diff of a capture's own report with it: exit %d:\n%s", code, out)
	}
	code, out, _ = cli.invoke(t, "", "diff", "--format", "json", old, cur)
	var d struct {
		Regressed bool `json:"regressed"`
		Tools     []struct {
			Label   string `json:"label"`
			Changes []struct {
				Tool string `json:"Tool"`
			} `json:"changes"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != 1 || !d.Regressed || len(d.Tools) != 1 || len(d.Tools[0].Changes) != 3 {
		t.Errorf("diff json: exit %d, %v: %s", code, err, out)
	}
	code, out, _ = cli.invoke(t, "", "diff", "--format", "markdown", old, cur)
	if code != 1 || !strings.HasPrefix(out, "## mcpcheck diff\n\n**Regression:**\n") || !strings.Contains(out, "### tools (3)") {
		t.Errorf("diff markdown: exit %d:\n%s", code, out)
	}
	for _, args := range [][]string{{"diff", old}, {"diff", old, cur, cur}, {"diff", "--duration-ratio", "0.5", old, cur}, {"diff", old, filepath.Join(dir, "missing.jsonl")}, {"diff", "-", "-"}} {
		if code, out, errs := cli.invoke(t, "", args...); code != 2 || out != "" || errs == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// The same on the real captures of two releases of the filesystem server.
func TestDiffOfTwoRealReleases(t *testing.T) {
	t.Parallel()
	old := sharedtest.Path(t, "captures/09-drift-filesystem-old-2025.1.14.jsonl")
	cur := sharedtest.Path(t, "captures/10-drift-filesystem-new-2026.8.31.jsonl")
	cli := ownHome(t)
	code, out, _ := cli.invoke(t, "", "diff", old, cur)
	if code != 1 || !strings.Contains(out, "filesystem-drift: tool read_text_file added (info)") ||
		!strings.Contains(out, "filesystem-drift: tool write_file changed (breaking)") ||
		!strings.Contains(out, "regression: server filesystem-drift: breaking tool changes: create_directory,") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if code, out, _ := cli.invoke(t, "", "diff", cur, cur); code != 0 {
		t.Errorf("diff with itself: exit %d:\n%s", code, out)
	}
}

// Done when: --new-from of a capture's own report passes, says which
// findings are new in every format, and gates a finding the report lacks.
func TestNewFromOwnReport(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	capture := testdata("demo-session.jsonl")
	dir := t.TempDir()
	own := filepath.Join(dir, "main.json")
	if code, _, errs := cli.invoke(t, "", "--output", "json="+own, capture); code != 1 {
		t.Fatalf("the capture fails on its own: exit %d %s", code, errs)
	}
	code, out, errs := cli.invoke(t, "", "--new-from", own, capture)
	if code != 0 || errs != "" || !strings.Contains(out, "(existing) (tool-error)") || !strings.Contains(out, "new from "+own+": 0 new findings") || !strings.HasSuffix(out, "check passed\n") {
		t.Errorf("--new-from its own report: exit %d, stderr %q:\n%s", code, errs, out)
	}
	rep := jsonReport(t, cli, 0, "--new-from", own, capture)
	if rep.NewFrom != own {
		t.Errorf("new_from %q", rep.NewFrom)
	}
	for _, f := range findingsOf(rep) {
		if !f.Existing || f.Gated {
			t.Errorf("finding %s: existing %v gated %v", f.Rule, f.Existing, f.Gated)
		}
	}
	// A report of another capture holds none of these: all are new.
	other := filepath.Join(dir, "other.json")
	cli.invoke(t, "", "--output", "json="+other, testdata("clean-stdio.jsonl"))
	if code, out, _ := cli.invoke(t, "", "--new-from", other, capture); code != 1 || strings.Contains(out, "(existing)") {
		t.Errorf("--new-from another report: exit %d:\n%s", code, out)
	}
	code, out, _ = cli.invoke(t, "", "--new-from", own, "--format", "sarif", capture)
	if code != 0 || !strings.Contains(out, `"baselineState": "unchanged"`) {
		t.Errorf("sarif: exit %d, no baselineState unchanged", code)
	}
	sariftest.Validate(t, []byte(out))
	code, out, _ = cli.invoke(t, "", "--new-from", own, "--format", "junit", capture)
	if code != 0 || !strings.Contains(out, "(existing)") {
		t.Errorf("junit: exit %d, existing findings not marked:\n%s", code, out)
	}
	notReport := filepath.Join(dir, "not.json")
	os.WriteFile(notReport, []byte("{\n  \"version\": 1,\n  \"sessions\": [\n    {\"findings\": [{\"fingerprint\": 7}]}\n  ]\n}\n"), 0o644)
	for _, bad := range []string{notReport, filepath.Join(dir, "missing.json"), capture} {
		if code, out, errs := cli.invoke(t, "", "--new-from", bad, capture); code != 2 || out != "" || !strings.Contains(errs, "--new-from") {
			t.Errorf("--new-from %s: exit %d, stdout %q, stderr %q", bad, code, out, errs)
		}
	}
	if _, _, errs := cli.invoke(t, "", "--new-from", notReport, capture); !strings.Contains(errs, notReport+":4:") {
		t.Errorf("a bad report is not located: %q", errs)
	}
}

// What each rule judged: per rule findings, judged none found, or not
// observed, in JSON, JUnit (a skipped case), the job summary and text (a
// gated signal that judged nothing).
func TestWhatEachRuleJudged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.md")
	cli := withEnv(map[string]string{"NO_COLOR": "1", "MCPCHECK_HOME": dir, "GITHUB_STEP_SUMMARY": summary})
	stdio, http := testdata("demo-session.jsonl"), testdata("http-connections.jsonl")
	status := func(rep report.JSONReport) map[string]string {
		m := map[string]string{}
		for _, st := range rep.Rules {
			m[st.Rule] = st.Status
		}
		return m
	}
	got := status(jsonReport(t, cli, 1, stdio))
	for rule, want := range map[string]string{
		"tool-error":        report.StatusFindings,
		"jsonrpc-version":   report.StatusNoneFound,
		"transport-headers": report.StatusNotObserved, // stdio: no HTTP
		"http-error":        report.StatusNotObserved,
		"meta-required":     report.StatusNotObserved, // a 2025-11-25 session
		"flaky-call":        report.StatusNotObserved, // one capture
	} {
		if got[rule] != want {
			t.Errorf("%s over stdio: %q, want %q", rule, got[rule], want)
		}
	}
	if got := status(jsonReport(t, cli, 1, http)); got["transport-headers"] != report.StatusNoneFound || got["http-error"] != report.StatusNoneFound {
		t.Errorf("over HTTP: transport-headers %q, http-error %q", got["transport-headers"], got["http-error"])
	}
	if got := status(jsonReport(t, cli, 1, "--disable", "http-error", stdio)); got["http-error"] != report.StatusNotRun {
		t.Errorf("disabled: %q", got["http-error"])
	}

	code, out, _ := cli.invoke(t, "", "--fail-on", "mismatch", stdio)
	if code != 0 || !strings.Contains(out, "note: gated signal mismatch judged nothing in this run (not observed): its pass says nothing\n") {
		t.Errorf("--fail-on mismatch over a 2025 stdio capture: exit %d:\n%s", code, out)
	}

	code, out, _ = cli.invoke(t, "", "--format", "junit", stdio)
	if code != 1 || !strings.Contains(out, `<testcase name="transport-headers" classname="mcpcheck.warn">`) ||
		!strings.Contains(out, `<skipped message="not observed: nothing in this session for the rule to judge">`) ||
		!strings.Contains(out, `<property name="coverage_tools" value="3/3">`) {
		t.Errorf("junit: exit %d:\n%s", code, out)
	}
	if code, _, _ := cli.invoke(t, "", "--format", "github", "--min-tool-coverage", "100", testdata("clean-stdio.jsonl")); code != 1 {
		t.Errorf("github: exit %d", code)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Coverage", "| notes | 2/3 (67%) | read\\_note | — | — |", "Not observed (nothing in the captures for them to judge): ",
		"- the run, min-tool-coverage 100%: server notes: tool coverage 66.7%"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("job summary lacks %q:\n%s", want, md)
		}
	}
}

// The configuration file sets the share for the run and per server (a
// label or a glob; the later key in lexical order wins), and the flag
// overrides the file.
func TestMinToolCoverageFromConfig(t *testing.T) {
	capture, _ := filepath.Abs(testdata("clean-stdio.jsonl"))
	dir := t.TempDir()
	t.Chdir(dir)
	cli := ownHome(t)
	const failed = "assertion failed: min-tool-coverage: server notes: tool coverage 66.7% (2 of 3 tools called successfully) is under 90%"
	for _, c := range []struct {
		name, file string
		args       []string
		code       int
	}{
		{"run-wide", "min-tool-coverage: 90\n", nil, 1},
		{"per server", "servers:\n  notes: {min-tool-coverage: 90}\n", nil, 1},
		{"per glob, a later key replacing", "min-tool-coverage: 10\nservers:\n  n*: {min-tool-coverage: 90}\n  other: {min-tool-coverage: 100}\n", nil, 1},
		{"another server's", "servers:\n  other: {min-tool-coverage: 90}\n", nil, 0},
		{"the flag over the file", "min-tool-coverage: 90\n", []string{"--min-tool-coverage", "50"}, 0},
	} {
		if err := os.WriteFile(filepath.Join(dir, ".mcpcheck.yml"), []byte("version: 1\n"+c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := cli.invoke(t, "", append(c.args, capture)...)
		if code != c.code || (c.code == 1) != strings.Contains(out, failed) {
			t.Errorf("%s: exit %d, want %d; stderr %q\n%s", c.name, code, c.code, errs, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".mcpcheck.yml"), []byte("version: 1\nmin-tool-coverage: 120\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli.invoke(t, "", capture); code != 2 || !strings.Contains(errs, ".mcpcheck.yml:2:") {
		t.Errorf("a share over 100: exit %d, stderr %q", code, errs)
	}
}

// Resource templates count in coverage: a resources/read of a URI a listed
// template expands to is a call of that template, whether the read came
// before or after the listing; a failed read is called, not succeeded.
func TestCoverageOfResourceTemplates(t *testing.T) {
	t.Parallel()
	env := func(seq int, dir, raw string) string {
		return fmt.Sprintf(`{"session_id":"tpl","server_label":"notes","seq":%d,"ts":"2026-09-01T10:00:00.%03dZ","direction":"%s","transport":"stdio","raw":%s}`+"\n", seq, seq, dir, raw)
	}
	capture := env(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`) +
		env(2, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"resources":{}},"serverInfo":{"name":"notes","version":"1"}}}`) +
		env(3, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`) +
		env(4, "c2s", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes://7/body"}}`) +
		env(5, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"notes://7/body","text":"x"}]}}`) +
		env(6, "c2s", `{"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}`) +
		env(7, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"resourceTemplates":[{"uriTemplate":"notes://{id}/body","name":"body"},{"uriTemplate":"files:///{+path}","name":"file"},{"uriTemplate":"logs://{day}","name":"log"}]}}`) +
		env(8, "c2s", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"logs://2026-09-01"}}`) +
		env(9, "s2c", `{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found"}}`)
	path := filepath.Join(t.TempDir(), "templates.jsonl")
	if err := os.WriteFile(path, []byte(capture), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := jsonReport(t, ownHome(t), 1, path) // the failed read fails the gate
	sv := rep.Usage.Server("notes")
	if sv == nil || !sv.Templates.Listed || sv.Templates.Advertised != 3 || sv.Templates.Called != 2 || sv.Templates.Succeeded != 1 ||
		strings.Join(sv.Templates.NeverCalled, ",") != "files:///{+path}" {
		t.Fatalf("template coverage %+v", sv)
	}
	if line := sv.Line(); !strings.Contains(line, "; resource templates 1/3") {
		t.Errorf("coverage line %q", line)
	}
}
