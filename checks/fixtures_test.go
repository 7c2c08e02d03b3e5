package checks

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// Every rule ships examples in testdata/<rule-id>/: ok-*.jsonl must produce
// no finding of that rule, bad-*.jsonl must produce exactly the findings its
// envelopes announce with an inline "want" key:
//
//	{"want":["tool-error"],"session_id":"s1",…}
//
// The reader ignores unknown keys, and the harness finds "want" by text, so
// it works on damaged lines too. Findings of other rules must be announced
// too: a fixture's findings are exactly its wants, whatever the rule.
var wantPattern = regexp.MustCompile(`"want"\s*:\s*\[([^\]]*)\]`)

func TestRuleFixtures(t *testing.T) {
	for _, r := range All() {
		t.Run(r.ID, func(t *testing.T) {
			dir := filepath.Join("testdata", r.ID)
			ok, _ := filepath.Glob(filepath.Join(dir, "ok-*.jsonl"))
			bad, _ := filepath.Glob(filepath.Join(dir, "bad-*.jsonl"))
			if len(ok) == 0 || len(bad) == 0 {
				t.Fatalf("rule %s needs at least one ok-*.jsonl and one bad-*.jsonl in %s", r.ID, dir)
			}
			for _, path := range append(ok, bad...) {
				checkFixture(t, r, path, strings.HasPrefix(filepath.Base(path), "bad-"))
			}
		})
	}
}

// fixtureRules are the rules a fixture runs with: the whole catalogue, and
// for internal-error a rule that panics on tools/call, since no real rule
// panics on purpose.
func fixtureRules(r *Rule) []*Rule {
	rules := All()
	if r == ruleInternalError {
		rules = append(rules, panicOnToolsCall)
	}
	return rules
}

var panicOnToolsCall = &Rule{
	ID: "test-panics", Doc: testDoc("panics on tools/call"), Signal: SignalWarn,
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if f.Msg.Method == "tools/call" {
			panic("assignment to entry in nil map") // as a real bug would
		}
	}),
}

// testDoc is the documentation of a rule that exists only in tests.
func testDoc(summary string) Doc {
	return Doc{Summary: summary, Why: "Test only.", Fix: "None.", Bad: "-", Good: "-", Since: "0.0.0"}
}

func checkFixture(t *testing.T, r *Rule, path string, bad bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int{} // rule -> lines
	for i, line := range strings.Split(string(data), "\n") {
		for _, m := range wantPattern.FindAllStringSubmatch(line, -1) {
			for _, id := range strings.Split(m[1], ",") {
				id = strings.Trim(strings.TrimSpace(id), `"`)
				if id == "" {
					continue
				}
				if Lookup(fixtureRules(r), id) == nil {
					t.Fatalf("%s:%d: want names unknown rule %q", path, i+1, id)
				}
				want[id] = append(want[id], i+1)
			}
		}
	}
	if bad && len(want[r.ID]) == 0 {
		t.Fatalf("%s: a bad fixture must announce at least one %s finding with \"want\"", path, r.ID)
	}
	if !bad && len(want[r.ID]) > 0 {
		t.Fatalf("%s: an ok fixture cannot want %s", path, r.ID)
	}
	rules := fixtureRules(r)
	gate, _ := ParseGate(DefaultGate, rules)
	res, err := Run([]session.Source{fileSource(path)}, Config{Rules: rules, Catalogue: rules, Gate: gate})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	got := map[string][]int{}
	var all []string
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			got[f.Rule] = append(got[f.Rule], f.Line)
			all = append(all, fmt.Sprintf("  %d: %s (%s)", f.Line, f.Message, f.Rule))
		}
	}
	// every rule is checked: a finding nobody announced fails the fixture
	checked := []string{}
	for _, rule := range rules {
		checked = append(checked, rule.ID)
	}
	for _, id := range checked {
		w, g := sorted(want[id]), sorted(got[id])
		if !slices.Equal(w, g) {
			t.Errorf("%s: rule %s: want findings at lines %v, got %v\nall findings:\n%s", path, id, w, g, strings.Join(all, "\n"))
		}
	}
}

func sorted(lines []int) []int {
	out := slices.Clone(lines)
	sort.Ints(out)
	return out
}

func fileSource(path string) session.Source {
	return session.Source{Name: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}
