package report

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/report/sariftest"
	"github.com/mcpcheck/mcpcheck/result"
)

// defs builds definitions from tools in mcpcheck's baseline file format.
func defs(t *testing.T, revision, tools string) baseline.Definitions {
	t.Helper()
	b, err := baseline.Parse([]byte(`{"format":"mcpcheck-tool-baseline","version":1,"server":"notes","revision":"`+revision+`","tools":`+tools+`}`), "notes", "x.json")
	if err != nil {
		t.Fatal(err)
	}
	return b.Definitions
}

// driftResult is a run of two sessions: one whose tools drifted from an
// accepted baseline, one that listed no tools. gate is the --fail-on value.
func driftResult(t *testing.T, gate string) *result.Result {
	rules := testCatalogue()
	g, err := result.ParseGate(gate, rules)
	if err != nil {
		t.Fatal(err)
	}
	old := defs(t, "2025-11-25", `[{"name":"delete_note","input_schema":{"type":"object","properties":{"path":{"type":"string"}}},"annotations":{"readOnlyHint":true}},{"name":"gone"}]`)
	cur := defs(t, "2025-11-25", `[{"name":"delete_note","description":"Delete a note","input_schema":{"type":"object","properties":{"path":{"type":"array"}}},"annotations":{"readOnlyHint":false}},{"name":"export"}]`)
	changes := baseline.Compare(&old, &cur)
	file := filepath.Join(testWorkDir, "notes.jsonl")
	s := &result.SessionResult{ID: "notes-1", Label: "notes", File: file, FirstLine: 1, Revision: "2025-11-25", Transport: "stdio", Frames: 6}
	s.Drift = &baseline.Report{
		Label: "notes", Status: baseline.StatusCompared, Path: ".mcpcheck/baselines/ab5aa97074c454a0632057e704220d9a.json",
		Format:   "mcpcheck baseline version 1",
		Accepted: &baseline.Provenance{Reason: "2.1 reviewed", Time: "2026-08-28T09:12:44Z", Capture: "old.jsonl", Session: "notes-0"},
		Changes:  changes,
	}
	for i := range changes {
		f := finding(rules, g, "fake-definition-drift", file, 5, "tool "+changes[i].Tool, changes[i].Summary(func(s string) string { return `"` + s + `"` }))
		f.Drift, f.Session = &changes[i], s.ID
		s.Findings = append(s.Findings, f)
	}
	s.Recount()
	quiet := &result.SessionResult{ID: "wiki-1", Label: "wiki", File: file, FirstLine: 7, Frames: 2}
	quiet.Recount()
	res := &result.Result{Files: []string{file}, Sessions: []*result.SessionResult{s, quiet}, Gate: g, Rules: rules, Passed: true}
	if !s.Passed() {
		res.Passed, res.ExitCode = false, 1
	}
	return res
}

func TestDriftTextBlock(t *testing.T) {
	t.Parallel()
	r := driftResult(t, "drift")
	out := string(render(t, "text", testOptions(), r))
	want := CountsLine(r.Sessions[0]) + `
drift of server "notes" against its baseline .mcpcheck/baselines/ab5aa97074c454a0632057e704220d9a.json (mcpcheck baseline version 1, accepted 2026-08-28T09:12:44Z: "2.1 reviewed"): 1 added, 1 removed, 1 changed (breaking 2, review 0, info 1)
  ~ delete_note (breaking)
      description (review)
        added "Delete a note" (review)
      input_schema (breaking)
        /properties/path/type: "string" → "array" (breaking: argument retyped)
      annotations (breaking)
        /readOnlyHint: true → false (breaking: no longer read-only)
  + export (info)
  - gone (breaking)
check failed: drift
`
	if !strings.Contains(out, want) {
		t.Errorf("the drift block does not follow the summary line as expected:\n%s", out)
	}
	if strings.Contains(out, CountsLine(r.Sessions[1])+"\ndrift") {
		t.Errorf("a session without drift shows a block:\n%s", out)
	}

	quiet := testOptions()
	quiet.Quiet = true
	if out := string(render(t, "text", quiet, driftResult(t, "drift"))); !strings.Contains(out, "  ~ delete_note (breaking)") {
		t.Errorf("--quiet hides gated drift:\n%s", out)
	}
	if out := string(render(t, "text", quiet, driftResult(t, checks.DefaultGate))); strings.Contains(out, "delete_note") {
		t.Errorf("--quiet shows drift that does not fail the gate:\n%s", out)
	}
}

// Drift that fails no gate is folded to the block's head, which says how
// many tools changed; --verbose lists the changes.
func TestDriftTextBlockFoldedWhenNotGated(t *testing.T) {
	t.Parallel()
	out := string(render(t, "text", testOptions(), driftResult(t, checks.DefaultGate)))
	head := `drift of server "notes" against its baseline .mcpcheck/baselines/ab5aa97074c454a0632057e704220d9a.json (mcpcheck baseline version 1, accepted 2026-08-28T09:12:44Z: "2.1 reviewed"): 1 added, 1 removed, 1 changed (breaking 2, review 0, info 1); --verbose lists the changes` + "\n"
	if !strings.Contains(out, head) || strings.Contains(out, "delete_note (breaking)") {
		t.Errorf("ungated drift is not folded to its head:\n%s", out)
	}
	verbose := testOptions()
	verbose.Verbose = true
	if out := string(render(t, "text", verbose, driftResult(t, checks.DefaultGate))); !strings.Contains(out, "  ~ delete_note (breaking)\n") || strings.Contains(out, "--verbose lists") {
		t.Errorf("--verbose does not list the drift:\n%s", out)
	}
}

func TestDriftTextBlockNamesFieldsNotCompared(t *testing.T) {
	t.Parallel()
	r := driftResult(t, checks.DefaultGate)
	d := r.Sessions[0].Drift
	d.Changes, d.Format, d.NotCompared = nil, "mcpsnoop baseline version 1", []baseline.Field{baseline.FieldTitle, baseline.FieldAnnotations}
	out := string(render(t, "text", testOptions(), r))
	for _, want := range []string{
		`drift of server "notes" against its baseline .mcpcheck/baselines/ab5aa97074c454a0632057e704220d9a.json (mcpsnoop baseline version 1, accepted 2026-08-28T09:12:44Z: "2.1 reviewed"): no tool differs`,
		"  not compared, as the mcpsnoop baseline version 1 does not record them: title, annotations\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestDriftJSON(t *testing.T) {
	t.Parallel()
	out := render(t, "json", testOptions(), driftResult(t, "drift"))
	var raw struct {
		Sessions []map[string]json.RawMessage
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatal(err)
	}
	if got := string(raw.Sessions[1]["drift"]); got != "null" {
		t.Errorf("a session without tools has drift %s, want null", got)
	}
	rep := parseJSON(t, out)
	d := rep.Sessions[0].Drift
	if d == nil || d.Status != "compared" || d.Label != "notes" || d.Format != "mcpcheck baseline version 1" || d.Accepted == nil || d.Accepted.Reason != "2.1 reviewed" {
		t.Fatalf("drift %+v", d)
	}
	if d.Counts != (JSONDriftCounts{Added: 1, Removed: 1, Changed: 1, Breaking: 2, Info: 1}) || d.NotCompared == nil || d.RecordedInRun != nil {
		t.Errorf("counts %+v, not_compared %v", d.Counts, d.NotCompared)
	}
	if len(d.Tools) != 3 || d.Tools[0].Tool != "delete_note" || d.Tools[0].Tier != "breaking" || len(d.Tools[0].Fields) != 3 || d.Tools[1].Fields == nil {
		t.Fatalf("tools %+v", d.Tools)
	}
	in := d.Tools[0].Fields[1]
	want := JSONDriftDiff{Pointer: "/properties/path/type", Old: json.RawMessage(`"string"`), New: json.RawMessage(`"array"`), Tier: "breaking", Reason: "argument retyped"}
	if in.Field != "input_schema" || in.Tier != "breaking" || len(in.Diffs) != 1 || string(in.Diffs[0].Old) != string(want.Old) ||
		string(in.Diffs[0].New) != string(want.New) || in.Diffs[0].Pointer != want.Pointer || in.Diffs[0].Reason != want.Reason {
		t.Errorf("input_schema %+v", in)
	}
	// an added value has no old member at all
	var doc struct {
		Sessions []struct {
			Drift struct {
				Tools []struct {
					Fields []struct{ Diffs []map[string]json.RawMessage }
				}
			}
		}
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	desc := doc.Sessions[0].Drift.Tools[0].Fields[0].Diffs[0]
	if _, has := desc["old"]; has || string(desc["new"]) != `"Delete a note"` {
		t.Errorf("the added description is written as %v", desc)
	}
}

func TestDriftSARIFProperties(t *testing.T) {
	t.Parallel()
	out := render(t, "sarif", testOptions(), driftResult(t, "drift"))
	sariftest.Validate(t, out)
	var log struct {
		Runs []struct {
			Results []struct {
				Level      string
				Properties map[string]any
			}
		}
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0].Results[0]
	fields, _ := json.Marshal(r.Properties["fields"])
	if r.Level != "error" || r.Properties["tier"] != "breaking" || r.Properties["change"] != "changed" ||
		string(fields) != `[{"field":"description","tier":"review"},{"field":"input_schema","tier":"breaking"},{"field":"annotations","tier":"breaking"}]` {
		t.Errorf("result %+v", r)
	}
	if p := log.Runs[0].Results[1].Properties; p["tier"] != "info" || p["change"] != "added" {
		t.Errorf("added tool properties %+v", p)
	}
}

func TestDriftJUnitCarriesTierAndField(t *testing.T) {
	t.Parallel()
	suites := parseJUnit(t, render(t, "junit", testOptions(), driftResult(t, "drift")))
	checkJUnitTotals(t, suites)
	for _, c := range suites.Suites[0].Testcases {
		if c.Name != "drift" {
			continue
		}
		if c.Failure == nil || !strings.Contains(c.Failure.Data, `tool "delete_note" changed since the baseline (breaking): description review`) ||
			!strings.Contains(c.Failure.Data, "input_schema breaking (/properties/path/type") {
			t.Errorf("drift case %+v", c.Failure)
		}
		return
	}
	t.Error("no drift test case")
}

func TestDriftGitHubSummary(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.StepSummary = filepath.Join(t.TempDir(), "s.md")
	render(t, "github", o, driftResult(t, "drift"))
	got := string(readFile(t, o.StepSummary))
	for _, want := range []string{
		"### Tool drift\n\n| session | label | tool | change | tier | fields |\n|---|---|---|---|---|---|\n",
		`| notes-1 | notes | delete\_note | changed | breaking | description:review, input\_schema:breaking, annotations:breaking |`,
		`| notes-1 | notes | export | added | info | — |`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q\n%s", want, got)
		}
	}
	o.StepSummary = filepath.Join(t.TempDir(), "clean.md")
	render(t, "github", o, emptyResult(t))
	if strings.Contains(string(readFile(t, o.StepSummary)), "Tool drift") {
		t.Error("a run without drift has a drift section")
	}
}
