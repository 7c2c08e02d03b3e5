package report

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

func TestCodeClimateGolden(t *testing.T) {
	t.Parallel()
	golden(t, "codeclimate-sample.golden", render(t, "codeclimate", testOptions(), sampleResult(t)))
	golden(t, "codeclimate-empty.golden", render(t, "codeclimate", testOptions(), emptyResult(t)))
}

// gitlabSeverities are the values GitLab's Code Quality format allows.
var gitlabSeverities = []string{"info", "minor", "major", "critical", "blocker"}

// checkGitLabIssues holds out to what GitLab requires of a Code Quality
// report: a JSON array of objects, each with a non-empty string
// description, check_name and fingerprint (unique in the report), a
// severity of GitLab's scale, location.path a relative path and
// location.lines.begin a line number from 1. It returns the issues.
func checkGitLabIssues(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var issues []map[string]any
	if err := json.Unmarshal(out, &issues); err != nil {
		t.Fatalf("not a JSON array of objects: %v\n%s", err, out)
	}
	if issues == nil {
		t.Fatalf("not an array: %s", out)
	}
	seen := map[string]bool{}
	for i, is := range issues {
		for _, k := range []string{"description", "check_name", "fingerprint", "severity"} {
			if s, ok := is[k].(string); !ok || s == "" {
				t.Errorf("issue %d: %s is %v, want a non-empty string", i, k, is[k])
			}
		}
		if sev, _ := is["severity"].(string); !slices.Contains(gitlabSeverities, sev) {
			t.Errorf("issue %d: severity %q is not one of %v", i, sev, gitlabSeverities)
		}
		fp, _ := is["fingerprint"].(string)
		if seen[fp] {
			t.Errorf("issue %d: fingerprint %s is not unique", i, fp)
		}
		seen[fp] = true
		loc, _ := is["location"].(map[string]any)
		path, _ := loc["path"].(string)
		if path == "" {
			t.Errorf("issue %d: location.path is %v", i, loc["path"])
		}
		lines, _ := loc["lines"].(map[string]any)
		if begin, ok := lines["begin"].(float64); !ok || begin < 1 || begin != float64(int(begin)) {
			t.Errorf("issue %d: location.lines.begin is %v, want a line number from 1", i, lines["begin"])
		}
	}
	return issues
}

// Done when: the Code Quality JSON has every field GitLab requires, paths
// relative to the source root, the SARIF fingerprints, severities mapped
// from the gate and the rule's severity, and no suppressed finding.
func TestCodeClimateHasWhatGitLabRequires(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	issues := checkGitLabIssues(t, render(t, "codeclimate", testOptions(), r))

	var want []*result.Finding
	for f := range r.GatedFirst() {
		if f.Suppressed == nil {
			want = append(want, f)
		}
	}
	if len(issues) != len(want) {
		t.Fatalf("%d issues, want %d (every finding but the suppressed ones)", len(issues), len(want))
	}
	sarifFingerprints := map[string]bool{}
	for _, res := range parseSARIFResults(t, render(t, "sarif", testOptions(), r)) {
		sarifFingerprints[res] = true
	}
	for i, f := range want {
		is := issues[i]
		if is["check_name"] != f.Rule || is["fingerprint"] != f.Fingerprint || is["description"] != printable(f.Message) {
			t.Errorf("issue %d = %v, want rule %s, fingerprint %s, message %q", i, is, f.Rule, f.Fingerprint, f.Message)
		}
		if !sarifFingerprints[f.Fingerprint] {
			t.Errorf("issue %d: fingerprint %s is not one SARIF uses", i, f.Fingerprint)
		}
		wantSev := map[bool]map[checks.Severity]string{
			true:  {checks.SeverityError: "critical", checks.SeverityWarning: "major", checks.SeverityNote: "major"},
			false: {checks.SeverityError: "minor", checks.SeverityWarning: "minor", checks.SeverityNote: "info"},
		}[f.Gated][f.Severity]
		if is["severity"] != wantSev {
			t.Errorf("issue %d (%s, gated %v, %v): severity %v, want %s", i, f.Rule, f.Gated, f.Severity, is["severity"], wantSev)
		}
	}
	paths := map[string]bool{}
	for _, is := range issues {
		paths[is["location"].(map[string]any)["path"].(string)] = true
	}
	// The source root is testWorkDir: its capture is relative to it, the
	// one outside keeps its absolute path, stdin its --stdin-name (in the
	// working directory, as SARIF places it).
	for _, p := range []string{"captures/run 1.jsonl", "/tmp/elsewhere/agent.jsonl", "ci/" + StdinPath} {
		if !paths[p] {
			t.Errorf("no issue at path %q; paths are %v", p, paths)
		}
	}
}

func TestCodeClimateEmptyIsAnArray(t *testing.T) {
	t.Parallel()
	out := strings.TrimSpace(string(render(t, "codeclimate", testOptions(), emptyResult(t))))
	if out != "[]" {
		t.Errorf("a clean run gives %q, want []", out)
	}
}

// parseSARIFResults is the primaryLocationLineHash of every result of a log.
func parseSARIFResults(t *testing.T, out []byte) []string {
	t.Helper()
	var log struct {
		Runs []struct {
			Results []struct {
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	var fps []string
	for _, res := range log.Runs[0].Results {
		fps = append(fps, res.PartialFingerprints["primaryLocationLineHash"])
	}
	return fps
}
