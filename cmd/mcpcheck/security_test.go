package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/report/sariftest"
)

func ruleFixture(rule, name string) string {
	return filepath.Join("..", "..", "checks", "testdata", rule, name)
}

// The security rules are in every SARIF log with the security tag and a
// security-severity, and their findings are notes until a workflow gates on
// them.
func TestSecurityRulesInSARIF(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	capture := ruleFixture("tool-poisoning", "bad-instructions-to-the-model.jsonl")
	code, out, errs := cli.invoke(t, "", "--format", "sarif", capture)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d (security is not in the default gate), stderr %q", code, errs)
	}
	sariftest.Validate(t, []byte(out))
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID         string
						Properties map[string]any
					}
				}
			}
			Results []struct {
				RuleID string
				Level  string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("SARIF: %v", err)
	}
	run := log.Runs[0]
	for _, id := range []string{"tool-poisoning", "secret-leak"} {
		i := slices.IndexFunc(run.Tool.Driver.Rules, func(r struct {
			ID         string
			Properties map[string]any
		}) bool {
			return r.ID == id
		})
		if i < 0 {
			t.Fatalf("%s is not in the driver's rules", id)
		}
		props := run.Tool.Driver.Rules[i].Properties
		tags, _ := props["tags"].([]any)
		if !slices.Contains(tags, any("security")) || props["security-severity"] != "8.0" {
			t.Errorf("%s: properties %v, want the security tag and security-severity 8.0", id, props)
		}
	}
	n := 0
	for _, r := range run.Results {
		if r.RuleID == "tool-poisoning" {
			n++
			if r.Level != "note" {
				t.Errorf("an ungated tool-poisoning result has level %q", r.Level)
			}
		}
	}
	if n == 0 {
		t.Error("no tool-poisoning result")
	}
	if code, out, _ := cli.invoke(t, "", "--fail-on", "security", "--format", "sarif", capture); code != 1 || !strings.Contains(out, `"level": "error"`) {
		t.Errorf("--fail-on security: exit %d", code)
	}
}

// No report prints a secret of the capture, whichever rule quotes it.
func TestReportsNeverPrintSecrets(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	secrets := []string{
		"ghp_FAKEzQXzoo", "ghs_FAKE9aKd", "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI", "AIzaFAKEGnsw", "glpat-FAKEB0", "xoxb-1234",
		"hooks.slack.com/services/T0FAKE", "sk_live_FAKE", "sk-proj-FAKE", "sk-ant-api03-FAKE", "b3BlbnNzaC1rZXkt",
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", "8f3KqZ2mN7pX4wR9", "QDaIQdnz8sWsftq3", "S3cr3t-P4ss", "Tr0ub4dor",
	}
	captures := []string{
		ruleFixture("secret-leak", "bad-arguments-and-results.jsonl"),
		ruleFixture("secret-leak", "bad-command-line-stderr-headers.jsonl"),
	}
	for _, format := range []string{"text", "json", "sarif", "junit", "github"} {
		code, out, errs := cli.invoke(t, "", append([]string{"--format", format, "--fail-on", "error,invalid,warn,security"}, captures...)...)
		if code != 1 || errs != "" {
			t.Errorf("%s: exit %d, stderr %q", format, code, errs)
		}
		if !strings.Contains(out, "secret-leak") {
			t.Errorf("%s: no secret-leak finding", format)
		}
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s: the report prints %q", format, s)
			}
		}
	}
}
