package checks_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"

	. "github.com/mcpcheck/mcpcheck/checks"
)

// A rule that panics is retired for its session alone: the rules after it
// still see the frame it panicked on and every later one, and the panic is
// one internal-error finding.
func TestPanickingRuleDoesNotStopTheOthers(t *testing.T) {
	t.Parallel()
	seen := &Rule{
		ID: "test-sees-calls", Doc: testDoc("reports every tools/call"), Signal: SignalWarn,
		New: EachFrame(func(p *Pass, f *session.Frame) {
			if f.Msg.Method == "tools/call" {
				p.Report(f, "", "call seen")
			}
		}),
	}
	capture := strings.Join([]string{
		`{"session_id":"s","seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}`,
		`{"session_id":"s","seq":2,"direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}`,
		`{"session_id":"s","seq":3,"direction":"c2s","raw":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"}}}`,
	}, "\n") + "\n"
	got, err := runFixture("panics.jsonl", []byte(capture), []*Rule{panicOnToolsCall, seen, RuleInternalError}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range got {
		lines = append(lines, fmt.Sprintf("%s@%d", f.Rule, f.Line))
	}
	if want := "internal-error@1 test-sees-calls@1 test-sees-calls@3"; strings.Join(lines, " ") != want {
		t.Errorf("findings %v, want %s", lines, want)
	}
}

// endChecker reports once at the session's end, or panics there.
type endChecker struct {
	Base
	panics bool
	id     string
}

func (c *endChecker) End(p *Pass) {
	if c.panics {
		panic("index out of range") // as a real bug would
	}
	p.ReportAt(Location{File: "panics.jsonl", Line: 1}, 1, "", "%s ended", c.id)
}

// A rule that panics as its checker is made or as the session ends is
// retired with one internal-error finding; every rule after it still
// starts and ends.
func TestRulesPanickingAtStartOrEndDoNotStopTheOthers(t *testing.T) {
	t.Parallel()
	ender := func(id string, panics bool) *Rule {
		return &Rule{ID: id, Doc: testDoc("reports at the end"), Signal: SignalWarn, New: func() Checker { return &endChecker{panics: panics, id: id} }}
	}
	atStart := &Rule{ID: "test-panics-at-start", Doc: testDoc("panics as it is made"), Signal: SignalWarn, New: func() Checker { panic("nil pointer") }}
	rules := []*Rule{atStart, ender("test-a", false), ender("test-panics-at-end", true), ender("test-b", false), RuleInternalError}
	capture := `{"session_id":"s","seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n"
	got, err := runFixture("panics.jsonl", []byte(capture), rules, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range got {
		lines = append(lines, f.Rule+": "+f.Message)
	}
	slices.Sort(lines)
	want := []string{
		"internal-error: rule test-panics-at-end failed: index out of range; its findings for this session are incomplete",
		"internal-error: rule test-panics-at-start failed: nil pointer; its findings for this session are incomplete",
		"test-a: test-a ended",
		"test-b: test-b ended",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
