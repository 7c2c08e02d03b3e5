package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/report/sariftest"
)

// sarifLog is the part of a SARIF log these tests read.
type sarifLog struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Version         string `json:"version"`
				SemanticVersion string `json:"semanticVersion"`
			} `json:"driver"`
		} `json:"tool"`
		OriginalURIBaseIDs map[string]struct {
			URI string `json:"uri"`
		} `json:"originalUriBaseIds"`
		Invocations []struct {
			WorkingDirectory struct {
				URI string `json:"uri"`
			} `json:"workingDirectory"`
		} `json:"invocations"`
		AutomationDetails struct {
			ID string `json:"id"`
		} `json:"automationDetails"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
						EndLine     int `json:"endLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

// sarifSchema compiles the OASIS schema in a subtest, which alone is
// skipped without the shared checkout; nil then.
func sarifSchema(t *testing.T) (sch *jsonschema.Schema) {
	t.Run("sarif-schema", func(t *testing.T) { sch = sariftest.Schema(t) })
	return sch
}

// readSARIF validates a log against the schema compiled by sarifSchema
// (before the test changed directory: the shared checkout is found from
// the working directory) and reads it.
func readSARIF(t *testing.T, sch *jsonschema.Schema, data []byte) sarifLog {
	t.Helper()
	if sch == nil {
		// no shared checkout: sarifSchema's subtest was skipped
	} else if err := sariftest.Problem(sch, data); err != nil {
		t.Errorf("the SARIF log does not validate against the OASIS schema: %v", err)
	}
	var log sarifLog
	if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("not one SARIF run: %v", err)
	}
	return log
}

// uris lists each result's location as URI@line, checking that each is
// relative to %SRCROOT% and a whole-line region.
func uris(t *testing.T, log sarifLog) []string {
	t.Helper()
	var out []string
	for _, r := range log.Runs[0].Results {
		if len(r.Locations) != 1 {
			t.Errorf("%s: %d locations, want 1", r.RuleID, len(r.Locations))
			continue
		}
		pl := r.Locations[0].PhysicalLocation
		if pl.ArtifactLocation.URIBaseID != "%SRCROOT%" {
			t.Errorf("%s: uri %q has uriBaseId %q, want %%SRCROOT%%", r.RuleID, pl.ArtifactLocation.URI, pl.ArtifactLocation.URIBaseID)
		}
		if g := pl.Region; g.StartLine < 1 || g.StartColumn != 1 || g.EndLine != g.StartLine {
			t.Errorf("%s: region %+v, want one whole line", r.RuleID, g)
		}
		out = append(out, pl.ArtifactLocation.URI+"@"+itoa(pl.Region.StartLine))
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// repoTree makes a git work tree (a .git directory is all mcpcheck looks
// for) with the demo capture in captures/, a link to it in ci/, and
// returns its top.
func repoTree(t *testing.T) string {
	t.Helper()
	demo, err := os.ReadFile(testdata("demo-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	top := t.TempDir()
	for _, d := range []string{".git", "captures", "ci"} {
		if err := os.Mkdir(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(top, "captures", "demo session.jsonl"), demo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "ci", "two.jsonl"), demo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../captures/demo session.jsonl", filepath.Join(top, "ci", "latest.jsonl")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	return top
}

// Run from a subdirectory of a git work tree: every location is relative
// to the tree's top, through %SRCROOT%, a link is replaced by its target,
// and the run records where it ran.
func TestSARIFFromASubdirectory(t *testing.T) {
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	top := repoTree(t)
	sch := sarifSchema(t)
	t.Chdir(filepath.Join(top, "ci"))
	code, out, errs := cli.invoke(t, "", "--format", "sarif", "two.jsonl", "latest.jsonl")
	if code != 1 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	log := readSARIF(t, sch, []byte(out))
	// The same findings in both files (the same capture), each placed at
	// its path from the top: the link at its target.
	lines := map[string][]string{}
	for _, u := range uris(t, log) {
		file, line, _ := strings.Cut(u, "@")
		lines[file] = append(lines[file], line)
	}
	two, linked := lines["ci/two.jsonl"], lines["captures/demo%20session.jsonl"]
	if len(lines) != 2 || len(two) < 2 || !slices.Contains(two, "13") || !slices.Equal(two, linked) {
		t.Errorf("locations by file %v, want ci/two.jsonl and captures/demo%%20session.jsonl with the same lines, 13 among them", lines)
	}
	run := log.Runs[0]
	realTop, _ := filepath.EvalSymlinks(top)
	if base := run.OriginalURIBaseIDs["%SRCROOT%"].URI; base != "file://"+filepath.ToSlash(top)+"/" && base != "file://"+filepath.ToSlash(realTop)+"/" {
		t.Errorf("%%SRCROOT%% is %q, want the work tree's top %s", base, top)
	}
	if wd := run.Invocations[0].WorkingDirectory.URI; !strings.HasSuffix(wd, "/ci/") || !strings.HasPrefix(wd, "file:///") {
		t.Errorf("workingDirectory %q", wd)
	}
	if run.AutomationDetails.ID != "mcpcheck/" {
		t.Errorf("automationDetails.id %q", run.AutomationDetails.ID)
	}
	if sv := run.Tool.Driver.SemanticVersion; !semverPattern.MatchString(sv) || run.Tool.Driver.Version != sv {
		t.Errorf("driver version %q semanticVersion %q, want SemVer in both", run.Tool.Driver.Version, sv)
	}

	// The annotations name the same paths.
	code, out, _ = cli.invoke(t, "", "--format", "github", "two.jsonl", "latest.jsonl")
	if code != 1 || !strings.Contains(out, "::error file=ci/two.jsonl,line=13,") || !strings.Contains(out, "::error file=captures/demo session.jsonl,line=13,") {
		t.Errorf("annotations:\n%s", out)
	}
}

// Standard input gets a location too: the name --stdin-name gives it,
// relative to the source root like any path, and "stdin" without it.
func TestSARIFFromStdin(t *testing.T) {
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	top := repoTree(t)
	sch := sarifSchema(t)
	demo, _ := os.ReadFile(filepath.Join(top, "ci", "two.jsonl"))
	t.Chdir(filepath.Join(top, "ci"))
	for _, c := range []struct {
		args []string
		uri  string
	}{
		{[]string{"--stdin-name", "../captures/demo session.jsonl"}, "captures/demo%20session.jsonl"},
		{[]string{"--stdin-name=piped/agent.jsonl"}, "ci/piped/agent.jsonl"},
		{nil, "ci/stdin"},
		{[]string{"--source-root", ".", "--stdin-name", "x.jsonl"}, "x.jsonl"},
	} {
		args := append(append([]string{"--format", "sarif"}, c.args...), "-")
		code, out, errs := cli.invoke(t, string(demo), args...)
		if code != 1 || errs != "" {
			t.Fatalf("%v: exit %d, stderr %q", c.args, code, errs)
		}
		for _, u := range uris(t, readSARIF(t, sch, []byte(out))) {
			if !strings.HasPrefix(u, c.uri+"@") {
				t.Errorf("%v: location %s, want %s", c.args, u, c.uri)
			}
		}
	}
	// The other reports call it so too.
	code, out, _ := cli.invoke(t, string(demo), "--stdin-name", "piped/agent.jsonl", "-")
	if code != 1 || !strings.Contains(out, "\npiped/agent.jsonl:16: warning ") {
		t.Errorf("text names stdin otherwise: exit %d\n%s", code, out)
	}
}

// Two sessions of one server in one file: two sets of fingerprints.
func TestSARIFMultiSessionFingerprints(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	top := repoTree(t)
	sch := sarifSchema(t)
	demo, _ := os.ReadFile(filepath.Join(top, "ci", "two.jsonl"))
	second := strings.ReplaceAll(string(demo), `"session_id":"notes-7f3a"`, `"session_id":"notes-9d2e"`)
	file := filepath.Join(top, "captures", "both.jsonl")
	if err := os.WriteFile(file, append(demo, second...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := cli.invoke(t, "", "--format", "sarif", "--category", "/notes/", file)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	log := readSARIF(t, sch, []byte(out))
	seen := map[string]bool{}
	for _, r := range log.Runs[0].Results {
		fp := r.PartialFingerprints["primaryLocationLineHash"]
		if fp == "" || seen[fp] {
			t.Errorf("%s: fingerprint %q missing or shared", r.RuleID, fp)
		}
		seen[fp] = true
	}
	if len(seen) < 4 || len(seen) != len(log.Runs[0].Results) || len(seen)%2 != 0 {
		t.Errorf("%d distinct fingerprints of %d results, want as many as results, the same number per session", len(seen), len(log.Runs[0].Results))
	}
	if id := log.Runs[0].AutomationDetails.ID; id != "mcpcheck/notes/" {
		t.Errorf("automationDetails.id %q, want mcpcheck/notes/", id)
	}
}

func TestSourceRootAndCategoryErrors(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	top := repoTree(t)
	capture := filepath.Join(top, "ci", "two.jsonl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--source-root", filepath.Join(top, "nope")}, "--source-root " + filepath.Join(top, "nope") + ": no such file or directory"},
		{[]string{"--source-root", capture}, "not a directory"},
		{[]string{"--source-root="}, "--source-root is empty"},
		{[]string{"--category", "//"}, "is empty"},
		{[]string{"--category", "a b"}, "white space"},
		{[]string{"--stdin-name", " "}, "--stdin-name is empty"},
	} {
		args := append(append([]string{"--format", "sarif"}, c.args...), capture)
		code, out, errs := cli.invoke(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want 2 and %q", c.args, code, len(out), errs, c.want)
		}
	}
}

// The source root: the flag, else $GITHUB_WORKSPACE when it exists, else
// the git work tree's top, else the working directory; and the default
// suppressions file is read there.
func TestSourceRoot(t *testing.T) {
	top := repoTree(t)
	ci := filepath.Join(top, "ci")
	outside := t.TempDir()
	for _, c := range []struct {
		env      map[string]string
		flag     string
		given    bool
		wd, want string
	}{
		{nil, "..", true, ci, top},
		{map[string]string{"GITHUB_WORKSPACE": ci}, "", false, ci, ci},
		{map[string]string{"GITHUB_WORKSPACE": filepath.Join(top, "gone")}, "", false, ci, top},
		{nil, "", false, ci, top},
		{nil, "", false, top, top},
		{nil, "", false, outside, outside},
	} {
		got, err := sourceRoot(withEnv(c.env).getenv, c.flag, c.given, c.wd)
		if err != nil || got != c.want {
			t.Errorf("sourceRoot(%q) in %s with %v = %q, %v; want %q", c.flag, c.wd, c.env, got, err, c.want)
		}
	}

	// The default suppressions file of a run in ci/ is the one at the top.
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	fp := demoFingerprint(t, cli)
	t.Chdir(ci)
	entry := `{"version": 1, "suppressions": [{"fingerprint": "` + fp + `", "reason": "known"}]}`
	if err := os.WriteFile(filepath.Join(top, defaultSuppressions), []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := cli.invoke(t, "", "two.jsonl"); code != 0 || !strings.Contains(out, "(suppressed: known)") {
		t.Errorf("the suppressions file at the top was not read: exit %d, %s\n%s", code, errs, out)
	}
}

func TestSemanticVersion(t *testing.T) {
	t.Parallel()
	stamped := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}}
	dirty := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	for _, c := range []struct {
		version string
		info    *debug.BuildInfo
		want    string
	}{
		{"v1.2.3", nil, "1.2.3"},
		{"v0.3.0-rc.1", nil, "0.3.0-rc.1"},
		{"v0.0.0-20261130120000-0123456789ab+dirty", nil, "0.0.0-20261130120000-0123456789ab+dirty"},
		{"(devel)", stamped, "0.0.0-devel+0123456789ab"},
		{"(devel)", dirty, "0.0.0-devel+0123456789ab.dirty"},
		{"(devel)", nil, "0.0.0-devel"},
		{"(devel)", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "not/semver"}}}, "0.0.0-devel"},
		{"v01.2.3", nil, "0.0.0-devel"},
	} {
		got := semanticVersion(c.version, c.info)
		if got != c.want || !semverPattern.MatchString(got) {
			t.Errorf("semanticVersion(%q) = %q, want %q", c.version, got, c.want)
		}
	}
}
