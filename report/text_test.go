package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

func TestTextGolden(t *testing.T) {
	t.Parallel()
	golden(t, "sample.txt", render(t, "text", testOptions(), sampleResult(t)))
	golden(t, "empty.txt", render(t, "text", testOptions(), emptyResult(t)))
	quiet := testOptions()
	quiet.Quiet = true
	golden(t, "sample-quiet.txt", render(t, "text", quiet, sampleResult(t)))
	verbose := testOptions()
	verbose.Verbose = true
	golden(t, "sample-verbose.txt", render(t, "text", verbose, sampleResult(t)))
	golden(t, "folding.txt", render(t, "text", testOptions(), foldingResult(t)))
	golden(t, "folding-verbose.txt", render(t, "text", verbose, foldingResult(t)))
}

// A line shows the finding's own severity; the ones failing the gate are
// marked, whatever their severity, and the rest are not.
func TestTextShowsSeverityAndMarksTheGate(t *testing.T) {
	t.Parallel()
	out := string(render(t, "text", testOptions(), sampleResult(t)))
	for _, want := range []string{
		"run 1.jsonl:10: ✗ error tools/call \"echo\" (id 2) failed with JSON-RPC error -32603",
		// gated at severity warning: marked, and still a warning
		"/tmp/elsewhere/agent.jsonl:3: ✗ warning server answered id 9, which no client request used (fake-stray-answer)\n",
		// not gated at severity error: an error, unmarked
		"run 1.jsonl:27: error tool \"steal\" description hides text in Unicode tag characters (fake-hidden-text)\n",
		"run 1.jsonl:19: warning client tools/call \"hang\" (id 6) was never answered (fake-no-answer)\n",
		"run 1.jsonl:25: note tool \"search\" uses oneOf (fake-schema-construct)\n",
		"run 1.jsonl:28: note tool \"write\" (id 9) reported an error: \"EROFS: read-only file system\" (suppressed: the CI volume is read-only <until> the \"ops\" fix & more on a second line) (fake-tool-failure)\n",
		"/work/project/.mcpcheck-suppressions.json:14: warning suppression 0123456789abcdef0123456789abcdef of fake-seq-gap matched no finding (fake-stale-entry)\n",
		"check failed: error,invalid,warn\n",
		"assertion failed: forbid-tool: forbidden tool \"delete\" was called 2 times",
		"<stdin>:2: ✗ error client request ping (id 1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q\n%s", want, out)
		}
	}
	if got := strings.Count(out, ": ✗ "); got != 9 {
		t.Errorf("%d lines marked as failing the gate, want the 9 gated findings:\n%s", got, out)
	}
	if strings.Contains(out, "check passed") || strings.Contains(out, "[error]") || strings.Contains(out, "[note]") {
		t.Errorf("a failed run says check passed, or levels are the gate's:\n%s", out)
	}
	if !strings.HasSuffix(string(render(t, "text", testOptions(), emptyResult(t))), "check passed\n") {
		t.Error("a clean run does not end with check passed")
	}
}

// foldingResult is a session as real captures make them: many notes of
// one rule in a few kinds, a rule with many different notes, a gated
// message repeated for several tools at one place, a folded repeat, and
// suppressed findings.
func foldingResult(t testing.TB) *result.Result {
	rules := testCatalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(testWorkDir, "notion.jsonl")
	s := &result.SessionResult{ID: "notion-1", Label: "notion", File: file, FirstLine: 1, Frames: 9}
	for _, construct := range []string{"oneOf", "anyOf", "$ref"} {
		for i := range 24 {
			tool := fmt.Sprintf("API-tool-%02d", i)
			s.Findings = append(s.Findings, finding(rules, gate, "fake-schema-construct", file, 6, "tool "+tool+" "+construct,
				fmt.Sprintf("tool %q uses %s in its inputSchema", tool, construct)))
		}
	}
	for _, tool := range []string{"create_directory", "edit_file", "move_file"} {
		s.Findings = append(s.Findings, finding(rules, gate, "fake-version-member", file, 6, "tool "+tool,
			fmt.Sprintf("the inputSchema of tool %q has no root \"type\"", tool)))
	}
	for i := range 5 {
		s.Findings = append(s.Findings, finding(rules, gate, "fake-no-answer", file, 10+i, fmt.Sprintf("call %d", i),
			fmt.Sprintf("client tools/call (id %d) was never answered", i)))
	}
	late := finding(rules, gate, "fake-late-answer", file, 20, "late", "tools/call (id 7) was answered after the client cancelled it")
	late.Also = 4
	s.Findings = append(s.Findings, late)
	gap := finding(rules, gate, "fake-stray-answer", file, 21, "id 9", "server answered id 9, which no client request used")
	gap.Also = 2
	s.Findings = append(s.Findings, gap)
	for i := range 3 {
		s.Findings = append(s.Findings, suppressed(finding(rules, gate, "fake-tool-failure", file, 30+i, fmt.Sprintf("write %d", i),
			fmt.Sprintf("tool \"write\" (id %d) reported an error", 20+i)), "read-only volume", "", 3))
	}
	for _, f := range s.Findings {
		f.Session = s.ID
	}
	s.Recount()
	return &result.Result{Files: []string{file}, Sessions: []*result.SessionResult{s}, Gate: gate, Rules: rules, Passed: false, ExitCode: 1}
}

func TestTextFoldsWhatDoesNotFailTheGate(t *testing.T) {
	t.Parallel()
	out := string(render(t, "text", testOptions(), foldingResult(t)))
	want := []string{
		`/work/project/notion.jsonl:6: note 24× tool "…" uses oneOf in its inputSchema: API-tool-00, API-tool-01, API-tool-02, API-tool-03, API-tool-04, API-tool-05, and 18 more (fake-schema-construct)`,
		`/work/project/notion.jsonl:6: note 24× tool "…" uses anyOf in its inputSchema: API-tool-00, API-tool-01, API-tool-02, API-tool-03, API-tool-04, API-tool-05, and 18 more (fake-schema-construct)`,
		`/work/project/notion.jsonl:6: note 24× tool "…" uses $ref in its inputSchema: API-tool-00, API-tool-01, API-tool-02, API-tool-03, API-tool-04, API-tool-05, and 18 more (fake-schema-construct)`,
		`/work/project/notion.jsonl:6: ✗ error 3× the inputSchema of tool "…" has no root "type": create_directory, edit_file, move_file (fake-version-member)`,
		`/work/project/notion.jsonl:10: warning 5 fake-no-answer warnings; --verbose lists them (fake-no-answer)`,
		`/work/project/notion.jsonl:20: note tools/call (id 7) was answered after the client cancelled it (4 more like it) (fake-late-answer)`,
		`/work/project/notion.jsonl:21: ✗ warning server answered id 9, which no client request used (2 more like it) (fake-stray-answer)`,
		`/work/project/notion.jsonl:30: note 3 fake-tool-failure findings suppressed; --verbose lists them (fake-tool-failure)`,
		`session notion-1: warnings=6 pending=5 late_results=5 schema_findings=72 suppressed=3`,
		`check failed: warn`,
		`1 capture, 1 session: 6 findings fail the gate (warn 6, marked ✗); 82 other findings, not gated; 3 suppressed; check failed`,
	}
	if got := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); !slices.Equal(got, want) {
		t.Errorf("folded text:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}

// --verbose lists every finding with its fingerprint and the full counts.
func TestTextVerboseListsEveryFinding(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.Verbose = true
	r := foldingResult(t)
	out := string(render(t, "text", o, r))
	for _, f := range r.Sessions[0].Findings {
		line := fmt.Sprintf("%s:%d: ", f.File, f.Line)
		if !strings.Contains(out, line) || !strings.Contains(out, printable(f.Message)) || !strings.Contains(out, " [fingerprint "+f.Fingerprint+"] ("+f.Rule+")\n") {
			t.Errorf("--verbose lacks %s %s [fingerprint %s]", line, f.Message, f.Fingerprint)
		}
	}
	if n := strings.Count(out, "\n"); n != len(r.Sessions[0].Findings)+3 {
		t.Errorf("--verbose printed %d lines for %d findings, a counts line, a gate line and the verdict", n, len(r.Sessions[0].Findings))
	}
	if !strings.Contains(out, "session notion-1: errors=0 invalid=0 warnings=6 ") {
		t.Errorf("--verbose does not keep the full counts line:\n%s", out)
	}
}

// --show-fingerprints prints each finding line's fingerprint, listing
// gated findings one by one, and leaves the folding alone.
func TestTextShowFingerprints(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.ShowFingerprints = true
	out := string(render(t, "text", o, foldingResult(t)))
	for _, want := range []string{
		`/work/project/notion.jsonl:6: ✗ error the inputSchema of tool "edit_file" has no root "type" [fingerprint fp-fake-version-member-tool edit_file] (fake-version-member)` + "\n",
		`/work/project/notion.jsonl:20: note tools/call (id 7) was answered after the client cancelled it (4 more like it) [fingerprint fp-fake-late-answer-late] (fake-late-answer)` + "\n",
		"warning 5 fake-no-answer warnings; --verbose lists them (fake-no-answer)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--show-fingerprints lacks %q:\n%s", want, out)
		}
	}
	if plain := string(render(t, "text", testOptions(), foldingResult(t))); strings.Contains(plain, "fingerprint") {
		t.Errorf("fingerprints shown without being asked for:\n%s", plain)
	}
}

func TestTextConfigFileFirst(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.ConfigFile = ".mcpcheck.yml"
	out := string(render(t, "text", o, emptyResult(t)))
	if !strings.HasPrefix(out, "config: .mcpcheck.yml\n") {
		t.Errorf("the first line does not name the config file:\n%s", out)
	}
	if out := string(render(t, "text", testOptions(), emptyResult(t))); strings.Contains(out, "config") {
		t.Errorf("a run without a config file names one:\n%s", out)
	}
}

func TestTextVerdictCoversTheRun(t *testing.T) {
	t.Parallel()
	out := string(render(t, "text", testOptions(), sampleResult(t)))
	const want = "3 captures, 3 sessions: 9 findings fail the gate (error 5, invalid 1, warn 3, marked ✗); 3 assertions failed; 11 other findings, not gated; 2 suppressed; check failed\n"
	if !strings.HasSuffix(out, want) || strings.Count(out, "captures, ") != 1 {
		t.Errorf("verdict is not one closing line %q:\n%s", want, out)
	}
	if got := string(render(t, "text", testOptions(), emptyResult(t))); got != "session clean-1: no findings\n1 capture, 1 session: nothing fails the gate; check passed\n" {
		t.Errorf("clean run:\n%s", got)
	}
}

func TestTextQuietKeepsOnlyGatedFindingsAndVerdict(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.Quiet = true
	out := string(render(t, "text", o, sampleResult(t)))
	if strings.Contains(out, " note ") || strings.Contains(out, "session fs-1:") || strings.Contains(out, "suppressed:") {
		t.Errorf("--quiet printed informational lines:\n%s", out)
	}
	if strings.Count(out, ": ✗ ") != 9 || !strings.Contains(out, "check failed:") || !strings.HasSuffix(out, "check failed\n") {
		t.Errorf("--quiet dropped failing findings or the verdict:\n%s", out)
	}
}

func TestTextColor(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.Color = true
	out := render(t, "text", o, sampleResult(t))
	if !bytes.Contains(out, []byte("\x1b[1m\x1b[31m✗ error\x1b[0m")) || !bytes.Contains(out, []byte("\x1b[36mnote\x1b[0m")) {
		t.Errorf("coloured output has no red ✗ error or cyan note:\n%q", out[:200])
	}
	if bytes.Contains(render(t, "text", testOptions(), sampleResult(t)), []byte("\x1b[")) {
		t.Error("uncoloured output contains escape sequences")
	}
}

func TestLookupUnknownFormatListsValidOnes(t *testing.T) {
	t.Parallel()
	_, err := Lookup("yaml")
	if err == nil || !strings.Contains(err.Error(), "text") {
		t.Fatalf("Lookup(yaml) = %v, want an error listing the formats", err)
	}
	if _, err := Lookup("TEXT"); err != nil {
		t.Errorf("format names are case-insensitive: %v", err)
	}
}

// A session id is capture data: it cannot forge a verdict line or reach the
// terminal raw.
func TestTextSessionIDCannotForgeLines(t *testing.T) {
	t.Parallel()
	r := emptyResult(t)
	r.Sessions[0].ID = "s1\ncheck passed\x1b[2J\xff"
	out := string(render(t, "text", testOptions(), r))
	if strings.Count(out, "\n") != 2 || strings.Contains(out, "\x1b") || strings.Contains(out, "\xff") {
		t.Errorf("session id leaked control characters or bytes:\n%q", out)
	}
	if !strings.HasPrefix(out, `session s1\u000acheck passed\u001b[2J`+"\ufffd: no findings\n") {
		t.Errorf("unexpected escaping: %q", out)
	}
}

// manyNotes is a session of n notes of one rule, each naming its own tool,
// and n gated findings on lines of their own.
func manyNotes(t testing.TB, n int) *result.Result {
	r := emptyResult(t)
	s := r.Sessions[0]
	for i := range n {
		s.Findings = append(s.Findings,
			finding(r.Rules, r.Gate, "fake-schema-construct", s.File, 5, fmt.Sprintf("tool t%d", i), fmt.Sprintf("tool \"t%d\" uses oneOf", i)),
			finding(r.Rules, r.Gate, "fake-version-member", s.File, 10+i, fmt.Sprintf("request %d", i), fmt.Sprintf("client request ping (id %d) has jsonrpc \"1.0\", not \"2.0\"", i)))
	}
	s.Recount()
	r.Passed = false
	return r
}

// Folding is linear work: the allocations per finding do not grow with
// the session, and the notes stay one line however many they are.
func TestTextFoldingBudget(t *testing.T) {
	r1, r10 := manyNotes(t, 1000), manyNotes(t, 10000)
	rep, _ := Lookup("text")
	text := rep(testOptions())
	var out bytes.Buffer
	allocs := func(r *result.Result) float64 {
		return testing.AllocsPerRun(3, func() {
			out.Reset()
			if err := text.Report(&out, r); err != nil {
				t.Fatal(err)
			}
		})
	}
	a1, a10 := allocs(r1), allocs(r10)
	perFinding := a10 / 20000
	t.Logf("figure: %.0f allocations for 2,000 findings, %.0f for 20,000 (%.1f per finding)", a1, a10, perFinding)
	if perFinding > 8 || a10 > 11*a1 {
		t.Errorf("text folding allocates %.0f for 2,000 findings and %.0f for 20,000", a1, a10)
	}
	if lines := strings.Count(out.String(), "\n"); lines != 10000+4 {
		t.Errorf("%d lines for 10,000 gated findings, 10,000 notes, a counts line, a gate line and the verdict", lines)
	}
	if !strings.Contains(out.String(), `note 10000× tool "…" uses oneOf: t0, t1, t2, t3, t4, t5, and 9994 more (fake-schema-construct)`) {
		t.Errorf("notes not folded:\n%.600s", out.String())
	}
}
