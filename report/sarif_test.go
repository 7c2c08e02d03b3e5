package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/report/sariftest"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
	"github.com/mcpcheck/mcpcheck/suppress"
)

func validateSARIF(t *testing.T, out []byte) { sariftest.Validate(t, out) }

// TestSARIFSchemaRejects shows the validation is not vacuous: the trap
// go-sarif sets (a null description) and a null results array both fail.
func TestSARIFSchemaRejects(t *testing.T) {
	t.Parallel()
	sch := sariftest.Schema(t)
	out := string(render(t, "sarif", testOptions(), emptyResult(t)))
	for name, broken := range map[string]string{
		"null shortDescription": strings.Replace(out, `"shortDescription": {
                "text": "`+fakeCatalogue[0].Doc.Summary+`"
              }`, `"shortDescription": null`, 1),
		"null results": strings.Replace(out, `"results": []`, `"results": null`, 1),
	} {
		if broken == out {
			t.Errorf("%s: the golden shape changed; update this test", name)
			continue
		}
		if sariftest.Problem(sch, []byte(broken)) == nil {
			t.Errorf("%s: the schema accepted it", name)
		}
	}
}

// parseSARIF reads a log back into go-sarif's types.
func parseSARIF(t *testing.T, out []byte) (*sarif.Report, *sarif.Run) {
	t.Helper()
	log, err := sarif.FromBytes(out)
	if err != nil {
		t.Fatalf("output is not a SARIF log: %v", err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("got %d runs, want 1", len(log.Runs))
	}
	return log, log.Runs[0]
}

func TestSARIFGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		result func(testing.TB) *result.Result
	}{
		{"sarif-sample.golden", sampleResult},
		{"sarif-empty.golden", emptyResult},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := render(t, "sarif", testOptions(), tc.result(t))
			validateSARIF(t, out)
			golden(t, tc.name, out)
		})
	}
}

func TestSARIFResultsAlwaysArray(t *testing.T) {
	t.Parallel()
	out := render(t, "sarif", testOptions(), emptyResult(t))
	validateSARIF(t, out)
	var raw struct {
		Runs []map[string]json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Runs) != 1 {
		t.Fatalf("got %d runs, want 1", len(raw.Runs))
	}
	if got := string(raw.Runs[0]["results"]); got != "[]" {
		t.Errorf("results of a clean run = %q, want []", got)
	}
}

func TestSARIFRunMetadata(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	out := render(t, "sarif", testOptions(), r)
	validateSARIF(t, out)
	log, run := parseSARIF(t, out)

	if log.Version != "2.1.0" || log.Schema != sariftest.SchemaID {
		t.Errorf("version %q, $schema %q", log.Version, log.Schema)
	}
	d := run.Tool.Driver
	if d.Name != "mcpcheck" || sarifDeref(d.Version) != "0.0.0-test" || sarifDeref(d.InformationURI) != "https://github.com/mcpcheck/mcpcheck" {
		t.Errorf("driver name %q version %q informationUri %q", d.Name, sarifDeref(d.Version), sarifDeref(d.InformationURI))
	}
	if sarifDeref(d.SemanticVersion) != "0.0.0-test" {
		t.Errorf("driver semanticVersion %q", sarifDeref(d.SemanticVersion))
	}
	base := run.OriginalUriBaseIDs["%SRCROOT%"]
	if base == nil || sarifDeref(base.URI) != "file:///work/project/" {
		t.Errorf("originalUriBaseIds %v, want %%SRCROOT%% at file:///work/project/", run.OriginalUriBaseIDs)
	}
	if len(run.Invocations) != 1 {
		t.Fatalf("got %d invocations, want 1", len(run.Invocations))
	}
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful == nil || !*inv.ExecutionSuccessful || inv.ExitCode == nil || *inv.ExitCode != r.ExitCode {
		t.Errorf("invocation: executionSuccessful %v exitCode %v, want true and %d", inv.ExecutionSuccessful, inv.ExitCode, r.ExitCode)
	}
	if inv.WorkingDirectory == nil || sarifDeref(inv.WorkingDirectory.URI) != "file:///work/project/ci/" {
		t.Errorf("invocation: workingDirectory %v, want file:///work/project/ci/", inv.WorkingDirectory)
	}
	if run.AutomationDetails == nil || sarifDeref(run.AutomationDetails.ID) != "mcpcheck/" {
		t.Errorf("automationDetails.id is not mcpcheck/")
	}
}

func TestSARIFRuleName(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{"jsonrpc-error": "JsonrpcError", "cancel": "CancelRule", "report-truncated": "ReportTruncated", "a--b": "AB"} {
		if got := sarifRuleName(id); got != want || strings.EqualFold(got, id) {
			t.Errorf("sarifRuleName(%q) = %q, want %q", id, got, want)
		}
	}
}

// Each category is its own analysis in code scanning: uploads for one
// commit under different categories do not replace each other.
func TestSARIFCategory(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.Category = "servers/notes"
	out := render(t, "sarif", o, emptyResult(t))
	validateSARIF(t, out)
	_, run := parseSARIF(t, out)
	if run.AutomationDetails == nil || sarifDeref(run.AutomationDetails.ID) != "mcpcheck/servers/notes/" {
		t.Errorf("automationDetails %+v, want id mcpcheck/servers/notes/", run.AutomationDetails)
	}
}

// A development build links to the documentation on main, a release to
// its own tag; every rule, report-truncated included, has a helpUri with
// its own anchor.
func TestSARIFHelpURI(t *testing.T) {
	t.Parallel()
	for semver, ref := range map[string]string{"0.0.0-devel+0123456789ab": "main", "1.4.2": "v1.4.2", "": "main", "1.5.0-rc.1": "main"} {
		o := testOptions()
		o.SemanticVersion = semver
		_, run := parseSARIF(t, render(t, "sarif", o, emptyResult(t)))
		for _, d := range run.Tool.Driver.Rules {
			want := "https://github.com/mcpcheck/mcpcheck/blob/" + ref + "/docs/rules.md#" + d.ID
			if got := sarifDeref(d.HelpURI); got != want {
				t.Errorf("%s (%q): helpUri %q, want %q", d.ID, semver, got, want)
			}
		}
	}
}

func TestSARIFRules(t *testing.T) {
	t.Parallel()
	r := emptyResult(t) // no findings: the catalogue is still complete
	out := render(t, "sarif", testOptions(), r)
	validateSARIF(t, out)
	_, run := parseSARIF(t, out)
	rules := run.Tool.Driver.Rules

	if len(rules) != len(r.Rules)+1 {
		t.Fatalf("got %d rules, want the %d of the catalogue and report-truncated", len(rules), len(r.Rules))
	}
	for i, want := range r.Rules {
		got := rules[i]
		if got.ID != want.ID {
			t.Errorf("rule %d is %q, want %q (catalogue order)", i, got.ID, want.ID)
			continue
		}
		checkSARIFRule(t, got)
		if lvl := got.DefaultConfiguration.Level; lvl != want.Severity.String() {
			t.Errorf("%s: defaultConfiguration.level %q, want %q", got.ID, lvl, want.Severity)
		}
		tags := sarifTags(got.Properties)
		if !sarifContains(tags, want.Signal.String()) {
			t.Errorf("%s: tags %v lack the signal %q", got.ID, tags, want.Signal)
		}
		sev, hasSev := got.Properties["security-severity"]
		if want.Signal == checks.SignalSecurity {
			if !sarifContains(tags, "security") || sev != "8.0" {
				t.Errorf("%s: tags %v security-severity %v, want the security tag and 8.0", got.ID, tags, sev)
			}
		} else if hasSev {
			t.Errorf("%s: security-severity on a non-security rule", got.ID)
		}
	}
	if last := rules[len(rules)-1]; last.ID != "report-truncated" {
		t.Errorf("last rule %q, want report-truncated", last.ID)
	} else {
		checkSARIFRule(t, last)
	}
}

func checkSARIFRule(t *testing.T, d *sarif.ReportingDescriptor) {
	t.Helper()
	switch {
	case sarifDeref(d.Name) == "":
		t.Errorf("%s: no name", d.ID)
	case d.ShortDescription == nil || sarifDeref(d.ShortDescription.Text) == "":
		t.Errorf("%s: no shortDescription", d.ID)
	case d.FullDescription == nil || sarifDeref(d.FullDescription.Text) == "":
		t.Errorf("%s: no fullDescription", d.ID)
	case d.Help == nil || sarifDeref(d.Help.Text) == "" || sarifDeref(d.Help.Markdown) == "":
		t.Errorf("%s: help lacks text or markdown", d.ID)
	case d.DefaultConfiguration == nil:
		t.Errorf("%s: no defaultConfiguration", d.ID)
	}
}

func TestSARIFResults(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	out := render(t, "sarif", testOptions(), r)
	validateSARIF(t, out)
	_, run := parseSARIF(t, out)
	rules := run.Tool.Driver.Rules
	want := slices.Collect(r.GatedFirst())

	if len(run.Results) != len(want) {
		t.Fatalf("got %d results, want %d", len(run.Results), len(want))
	}
	for i, res := range run.Results {
		f := want[i]
		id := sarifDeref(res.RuleID)
		if id != f.Rule {
			t.Errorf("result %d is %q, want %q (gated first, then in order)", i, id, f.Rule)
			continue
		}
		if res.RuleIndex == nil || int(*res.RuleIndex) >= len(rules) || rules[*res.RuleIndex].ID != id {
			t.Errorf("%s: ruleIndex %v does not point at its rule", id, res.RuleIndex)
		}
		if got := sarifDeref(res.Level); got != f.Level() {
			t.Errorf("%s: level %q, want %q (gated %v)", id, got, f.Level(), f.Gated)
		}
		if got := res.PartialFingerprints["primaryLocationLineHash"]; got != f.Fingerprint {
			t.Errorf("%s: primaryLocationLineHash %v, want the finding's fingerprint %q", id, got, f.Fingerprint)
		}
		if sarifDeref(res.Message.Text) == "" {
			t.Errorf("%s: empty message", id)
		}
		if res.Properties["signal"] != f.Signal.String() {
			t.Errorf("%s: properties.signal %v", id, res.Properties["signal"])
		}
		checkSARIFLocation(t, res, f)
		checkSARIFSuppression(t, res, f)
	}
}

// checkSARIFSuppression: a suppressed finding carries one suppression,
// external and accepted, with its reason and the entry's place; no other
// finding carries any.
func checkSARIFSuppression(t *testing.T, res *sarif.Result, f *result.Finding) {
	t.Helper()
	e := f.Suppressed
	if e == nil {
		if len(res.Suppressions) != 0 {
			t.Errorf("%s: %d suppressions on a finding nobody suppressed", f.Rule, len(res.Suppressions))
		}
		return
	}
	if len(res.Suppressions) != 1 {
		t.Fatalf("%s: %d suppressions, want 1", f.Rule, len(res.Suppressions))
	}
	sup := res.Suppressions[0]
	if sup.Kind != "external" || sarifDeref(sup.Status) != "accepted" || sarifDeref(sup.Justification) != printable(e.Reason) {
		t.Errorf("%s: suppression kind %q status %q justification %q", f.Rule, sup.Kind, sarifDeref(sup.Status), sarifDeref(sup.Justification))
	}
	if sup.Location == nil {
		t.Errorf("%s: suppression without location", f.Rule)
	} else {
		checkSARIFURI(t, f.Rule+" suppression", []*sarif.Location{sup.Location}, ".mcpcheck-suppressions.json", e.Line)
	}
	if e.Expires != "" && sup.Properties["expires"] != e.Expires {
		t.Errorf("%s: suppression properties %v, want expires %s", f.Rule, sup.Properties, e.Expires)
	}
	if sarifDeref(sup.Guid) != sarifGUID("suppression "+e.Fingerprint) {
		t.Errorf("%s: guid %q", f.Rule, sarifDeref(sup.Guid))
	}
}

// The suppression guid is a version 5 UUID of the name, as RFC 9562 gives it.
func TestSARIFGUID(t *testing.T) {
	t.Parallel()
	// Python: uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/mcpcheck/mcpcheck#suppression " + fingerprint)
	const want = "8ed8da2b-b194-5e4f-9d45-32c33a0e82e0"
	if got := sarifGUID("suppression " + staleFingerprint); got != want {
		t.Errorf("sarifGUID = %q, want %q", got, want)
	}
	if got := sarifGUID("x"); !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(got) {
		t.Errorf("sarifGUID = %q, not a version 5 UUID", got)
	}
	if sarifGUID("a") == sarifGUID("b") || sarifGUID("a") != sarifGUID("a") {
		t.Error("guids must be distinct for distinct names and stable")
	}
}

// checkSARIFLocation checks where the sample's findings point.
func checkSARIFLocation(t *testing.T, res *sarif.Result, f *result.Finding) {
	t.Helper()
	id := f.Rule
	switch f.File {
	case session.StdinName:
		// Relative to the working directory, like any relative name.
		checkSARIFURI(t, id, res.Locations, "ci/stdin", f.Line)
	case "/tmp/elsewhere/agent.jsonl":
		checkSARIFURI(t, id, res.Locations, "file:///tmp/elsewhere/agent.jsonl", f.Line)
	case suppressionsFile:
		checkSARIFURI(t, id, res.Locations, ".mcpcheck-suppressions.json", f.Line)
	default:
		checkSARIFURI(t, id, res.Locations, "captures/run%201.jsonl", f.Line)
	}
	if len(f.Related) > 0 {
		checkSARIFURI(t, id+" related", res.RelatedLocations, "captures/run%201.jsonl", f.Related[0].Line)
		if msg := res.RelatedLocations[0].Message; msg == nil || sarifDeref(msg.Text) != f.Related[0].Message {
			t.Errorf("%s: related location message %v, want %q", id, msg, f.Related[0].Message)
		}
	}
}

func checkSARIFURI(t *testing.T, what string, locs []*sarif.Location, uri string, line int) {
	t.Helper()
	if len(locs) != 1 || locs[0].PhysicalLocation == nil || locs[0].PhysicalLocation.ArtifactLocation == nil {
		t.Errorf("%s: want exactly one physical location, got %d locations", what, len(locs))
		return
	}
	pl := locs[0].PhysicalLocation
	if got := sarifDeref(pl.ArtifactLocation.URI); got != uri {
		t.Errorf("%s: uri %q, want %q", what, got, uri)
	}
	base := sarifDeref(pl.ArtifactLocation.URIBaseId)
	if absolute := strings.HasPrefix(uri, "file://"); absolute == (base == "%SRCROOT%") || (absolute && base != "") {
		t.Errorf("%s: uri %q with uriBaseId %q", what, uri, base)
	}
	checkSARIFRegion(t, what, pl.Region, line)
}

// checkSARIFRegion: the whole envelope line, as GitHub wants a region.
func checkSARIFRegion(t *testing.T, what string, r *sarif.Region, line int) {
	t.Helper()
	if r == nil || sarifDeref(r.StartLine) != line || sarifDeref(r.StartColumn) != 1 || sarifDeref(r.EndLine) != line {
		t.Errorf("%s: region %+v, want lines %d to %d from column 1", what, r, line, line)
	}
}

// A finding that belongs to no line is placed at line 1 of its capture:
// code scanning wants a region on every result.
func TestSARIFLineOneWithoutLine(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	r.Sessions[0].Findings[0].Line = 0 // a whole-session finding
	out := render(t, "sarif", testOptions(), r)
	validateSARIF(t, out)
	_, run := parseSARIF(t, out)
	checkSARIFRegion(t, "line 0", run.Results[0].Locations[0].PhysicalLocation.Region, 1)
}

// Paths relative to the source root, whatever the working directory; links
// resolved when their target stays inside; absolute file URIs outside.
func TestSARIFPlaces(t *testing.T) {
	t.Parallel()
	const wd = "/work/project/ci"
	for _, tc := range []struct {
		file, workDir, root, uri string
	}{
		{"/work/project/captures/run 1.jsonl", wd, "/work/project", "captures/run%201.jsonl"},
		{"/work/project/a/../b.jsonl", wd, "/work/project", "b.jsonl"},
		{"two.jsonl", wd, "/work/project", "ci/two.jsonl"},
		{"./x.jsonl", wd, "/work/project", "ci/x.jsonl"},
		{"../up.jsonl", wd, "/work/project", "up.jsonl"},
		{"../../out.jsonl", wd, "/work/project", "file:///work/out.jsonl"},
		{"x.jsonl", wd, "", "x.jsonl"}, // no root: the working directory
		{"/tmp/elsewhere/agent.jsonl", wd, "/work/project", "file:///tmp/elsewhere/agent.jsonl"},
		{"/work/projectile/x.jsonl", wd, "/work/project", "file:///work/projectile/x.jsonl"},
		{"/tmp/100% #1?.jsonl", wd, "/work/project", "file:///tmp/100%25%20%231%3F.jsonl"},
		{"c:run.jsonl", "/work/project", "/work/project", "./c:run.jsonl"}, // not read as a scheme
		{"/tmp/x.jsonl", "", "", "file:///tmp/x.jsonl"},
		{"rel.jsonl", "", "", "rel.jsonl"},
		{session.StdinName, wd, "/work/project", "ci/stdin"},
		{"ci/named.jsonl", "/work/project", "..", "project/ci/named.jsonl"}, // a relative root starts at the working directory
	} {
		got := placeURI(Options{WorkDir: tc.workDir, SourceRoot: tc.root}, tc.file)
		if got != tc.uri {
			t.Errorf("place(%q) in %q, root %q = %q; want %q", tc.file, tc.workDir, tc.root, got, tc.uri)
		}
	}
}

func placeURI(o Options, file string) string {
	pl := newPlacer(o).at(file)
	if pl.rel != "" {
		return relativeURI(pl.rel)
	}
	return fileURI(pl.abs, false)
}

// Links: a capture reached through a link inside the repository is placed
// at its target; a link to a file outside keeps its own path; a source
// root that is itself reached through a link still places its files.
func TestSARIFPlacesLinks(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	outside := filepath.Join(tmp, "outside.jsonl")
	for _, d := range []string{"captures", "ci"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(repo, "captures", "real.jsonl"), outside} {
		if err := os.WriteFile(f, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(repo, "ci", "latest.jsonl"):   "../captures/real.jsonl",
		filepath.Join(repo, "ci", "external.jsonl"): outside,
		filepath.Join(tmp, "alias"):                 repo,
		filepath.Join(tmp, "dangling.jsonl"):        filepath.Join(repo, "captures", "real.jsonl"),
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	ci := filepath.Join(repo, "ci")
	for _, tc := range []struct {
		file, workDir, root, uri string
	}{
		{"latest.jsonl", ci, repo, "captures/real.jsonl"},
		{"external.jsonl", ci, repo, "ci/external.jsonl"},
		{"../captures/real.jsonl", filepath.Join(tmp, "alias", "ci"), repo, "captures/real.jsonl"},
		{"ci/latest.jsonl", filepath.Join(tmp, "alias"), filepath.Join(tmp, "alias"), "captures/real.jsonl"},
		{filepath.Join(tmp, "dangling.jsonl"), ci, repo, "captures/real.jsonl"}, // a link from outside into the repository
		{"stdin", ci, filepath.Join(tmp, "alias"), "ci/stdin"},                  // a name that exists nowhere
	} {
		if got := placeURI(Options{WorkDir: tc.workDir, SourceRoot: tc.root}, tc.file); got != tc.uri {
			t.Errorf("place(%q) in %q, root %q = %q; want %q", tc.file, tc.workDir, tc.root, got, tc.uri)
		}
	}
}

// sarifManyFindings is a run with n findings over two sessions, every
// third one gated.
func sarifManyFindings(t testing.TB, n int) *result.Result {
	rules := testCatalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(testWorkDir, "big.jsonl")
	sessions := []*result.SessionResult{
		{ID: "big-1", Label: "big", File: file, FirstLine: 1},
		{ID: "big-2", Label: "big", File: file, FirstLine: n/2 + 1},
	}
	for i := 0; i < n; i++ {
		id := "fake-no-answer" // not gated by default
		if i%3 == 0 {
			id = "fake-rpc-error"
		}
		s := sessions[i*2/n]
		f := finding(rules, gate, id, file, i+1, fmt.Sprintf("call #%d", i), fmt.Sprintf("finding %d", i))
		f.Session = s.ID
		s.Findings = append(s.Findings, f)
	}
	for _, s := range sessions {
		s.Recount()
	}
	return &result.Result{Files: []string{file}, Sessions: sessions, Gate: gate, Rules: rules, ExitCode: 1}
}

func TestSARIFTruncation(t *testing.T) {
	t.Parallel()
	const n = 6000
	r := sarifManyFindings(t, n)
	out := render(t, "sarif", testOptions(), r)
	validateSARIF(t, out)
	_, run := parseSARIF(t, out)

	if len(run.Results) != MaxSARIFResults {
		t.Fatalf("got %d results, want %d", len(run.Results), MaxSARIFResults)
	}
	want := slices.Collect(r.GatedFirst())
	if want[1999].Gated != true || want[2000].Gated != false {
		t.Fatal("test data: want 2000 gated findings first")
	}
	for i, res := range run.Results[:MaxSARIFResults-1] {
		if got := res.PartialFingerprints["primaryLocationLineHash"]; got != want[i].Fingerprint {
			t.Fatalf("result %d has fingerprint %v, want %q (gated first, then in order)", i, got, want[i].Fingerprint)
		}
		if sarifDeref(res.Level) != want[i].Level() {
			t.Fatalf("result %d: level %q, want %q", i, sarifDeref(res.Level), want[i].Level())
		}
	}

	last := run.Results[MaxSARIFResults-1]
	if sarifDeref(last.RuleID) != "report-truncated" {
		t.Fatalf("last result is %q, want report-truncated", sarifDeref(last.RuleID))
	}
	rules := run.Tool.Driver.Rules
	if last.RuleIndex == nil || rules[*last.RuleIndex].ID != "report-truncated" {
		t.Errorf("report-truncated ruleIndex %v does not point at its rule", last.RuleIndex)
	}
	msg := sarifDeref(last.Message.Text)
	if left := n - (MaxSARIFResults - 1); !strings.Contains(msg, fmt.Sprintf("%d of %d findings were left out", left, n)) {
		t.Errorf("truncation message %q does not say %d findings were left out", msg, left)
	}
	if l := sarifDeref(last.Level); l != "warning" {
		t.Errorf("report-truncated level %q, want warning", l)
	}
	// Code scanning refuses an upload with a locationless result.
	checkSARIFURI(t, "report-truncated", last.Locations, "big.jsonl", 1)
	if last.PartialFingerprints["primaryLocationLineHash"] == nil {
		t.Errorf("report-truncated has no fingerprint")
	}
}

func TestSARIFCapBoundary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ findings, results, left int }{
		{MaxSARIFResults, MaxSARIFResults, 0},
		{MaxSARIFResults + 1, MaxSARIFResults, 2},
	} {
		out := render(t, "sarif", testOptions(), sarifManyFindings(t, tc.findings))
		validateSARIF(t, out)
		_, run := parseSARIF(t, out)
		if len(run.Results) != tc.results {
			t.Errorf("%d findings: %d results, want %d", tc.findings, len(run.Results), tc.results)
			continue
		}
		last := run.Results[len(run.Results)-1]
		truncated := sarifDeref(last.RuleID) == "report-truncated"
		if truncated != (tc.left > 0) {
			t.Errorf("%d findings: last result %q", tc.findings, sarifDeref(last.RuleID))
		}
		if truncated && !strings.HasPrefix(sarifDeref(last.Message.Text), fmt.Sprintf("%d of", tc.left)) {
			t.Errorf("%d findings: message %q, want %d left out", tc.findings, sarifDeref(last.Message.Text), tc.left)
		}
	}
}

func TestSARIFDeterministic(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	first := render(t, "sarif", testOptions(), r)
	again := render(t, "sarif", testOptions(), r)
	fresh := render(t, "sarif", testOptions(), sampleResult(t))
	if !bytes.Equal(first, again) || !bytes.Equal(first, fresh) {
		t.Error("rendering the same result twice gave different bytes")
	}
}

func sarifDeref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func sarifTags(p sarif.Properties) []string {
	raw, _ := p["tags"].([]any)
	var out []string
	for _, v := range raw {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sarifContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// --sarif-gated-only: notes stay out of code scanning; gated and
// suppressed findings stay in, the truncation count follows.
func TestSARIFGatedOnly(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	opts := testOptions()
	opts.SARIFGatedOnly = true
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID       string           `json:"ruleId"`
				Level        string           `json:"level"`
				Suppressions []map[string]any `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(render(t, "sarif", opts, r), &log); err != nil {
		t.Fatal(err)
	}
	want := 0
	for f := range r.GatedFirst() {
		if f.Gated || f.Suppressed != nil {
			want++
		}
	}
	got := log.Runs[0].Results
	if len(got) != want || want == 0 || want == r.NumFindings() {
		t.Fatalf("%d results, want %d of %d findings", len(got), want, r.NumFindings())
	}
	for _, res := range got {
		if res.Level != "error" && len(res.Suppressions) == 0 {
			t.Errorf("a %s result of %s that neither fails the gate nor is suppressed", res.Level, res.RuleID)
		}
	}
}

// Scoped entries (no fingerprint) are told apart in SARIF too.
func TestSARIFScopedSuppressionGUIDs(t *testing.T) {
	t.Parallel()
	r := emptyResult(t)
	s := r.Sessions[0]
	for i, label := range []string{"notion", "everything"} {
		f := finding(r.Rules, r.Gate, "fake-schema-construct", s.File, 3+i, "tool t"+label, `tool "t" uses oneOf`)
		f.Suppressed = &suppress.Suppression{Rule: "fake-schema-construct", Label: label, Reason: "x", File: suppressionsFile, Line: 2 + i}
		s.Findings = append(s.Findings, f)
	}
	s.Recount()
	var log struct {
		Runs []struct {
			Results []struct {
				Suppressions []struct {
					GUID string `json:"guid"`
				} `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(render(t, "sarif", testOptions(), r), &log); err != nil {
		t.Fatal(err)
	}
	var guids []string
	for _, res := range log.Runs[0].Results {
		for _, sup := range res.Suppressions {
			guids = append(guids, sup.GUID)
		}
	}
	if len(guids) != 2 || guids[0] == guids[1] || guids[0] == "" {
		t.Errorf("scoped suppression guids %q", guids)
	}
}
