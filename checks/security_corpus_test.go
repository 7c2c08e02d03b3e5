package checks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/poisoning"
	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/internal/sharedtest"

	. "github.com/mcpcheck/mcpcheck/checks"
)

// The benign corpus: real captures of published servers and every fixture
// that announces no security finding. A security rule that fires on any of
// them is a false alarm, and false alarms are how a gate gets switched off.
func TestSecurityBenignCorpus(t *testing.T) {
	t.Parallel()
	captures, err := filepath.Glob(filepath.Join(sharedtest.Path(t, "captures"), "*.jsonl"))
	if err != nil || len(captures) == 0 {
		t.Fatalf("no real captures found (%v)", err)
	}
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "*", "*.jsonl"))
	e2e, _ := filepath.Glob(filepath.Join("..", "testdata", "*.jsonl"))
	corpus := 0
	for _, path := range slices.Concat(captures, fixtures, e2e) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		stripped, wants, err := parseWants(data)
		if err != nil {
			t.Fatalf("%s%v", path, err)
		}
		if slices.ContainsFunc(wants, func(w want) bool { return isSecurityRule(w.Rule) }) {
			continue // the malicious corpus
		}
		corpus++
		sup, _, err := fixtureSuppressions(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := runFixture(path, stripped, All(), sup, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, f := range got {
			if isSecurityRule(f.Rule) {
				t.Errorf("%s: false alarm: %s", path, f)
			}
		}
	}
	if corpus < len(captures)+20 {
		t.Errorf("the benign corpus has only %d files", corpus)
	}
}

// The malicious corpus: every planted case is found (the fixture harness
// holds each bad fixture to exactly its wants), and each field of a frame
// is one finding that lists every kind found there.
func TestSecurityMaliciousCorpus(t *testing.T) {
	t.Parallel()
	var messages []string
	for _, rule := range []string{RuleToolPoisoning.ID, RuleSecretLeak.ID} {
		bad, _ := filepath.Glob(filepath.Join("testdata", rule, "bad-*.jsonl"))
		for _, path := range bad {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			stripped, wants, err := parseWants(data)
			if err != nil {
				t.Fatalf("%s%v", path, err)
			}
			for i := range wants {
				wants[i].File = path
			}
			got, err := runFixture(path, stripped, All(), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if problems := matchWants(wants, got); len(problems) > 0 {
				t.Errorf("%s: %v", path, problems)
			}
			fields := map[string]bool{}
			for _, f := range got {
				if !isSecurityRule(f.Rule) {
					continue
				}
				messages = append(messages, f.Message)
				key := fmt.Sprintf("%s %d %s", f.Rule, f.Line, f.Subject)
				if fields[key] {
					t.Errorf("%s: two findings for one field: %s", path, key)
				}
				fields[key] = true
			}
		}
	}
	// The corpus plants every kind each rule knows.
	kinds := []string{"tag characters spelling", "zero-width characters", "bidirectional controls",
		"variation selectors", "confusable with tool", "differs only in case from tool"}
	for _, k := range poisoning.Kinds() {
		kinds = append(kinds, k+" ")
	}
	for _, k := range secrets.Kinds() {
		kinds = append(kinds, " "+k.String()+" (sha256:")
	}
	for _, k := range kinds {
		if !slices.ContainsFunc(messages, func(m string) bool { return strings.Contains(m, k) }) {
			t.Errorf("no finding of the malicious corpus shows %q", k)
		}
	}
}

func isSecurityRule(id string) bool {
	r := Lookup(All(), id)
	return r != nil && r.Signal == SignalSecurity
}
