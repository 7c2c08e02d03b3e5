package checks_test

import (
	"fmt"
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
