package checks_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
)

// Findings about a request carry the exchange: the request, what came
// back and when, or why nothing did.
func TestFindingExchange(t *testing.T) {
	t.Parallel()
	demo, err := os.ReadFile(filepath.Join("..", "testdata", "demo-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	res := runCaptures(t, map[string][]byte{"demo.jsonl": demo})
	got := map[string]*result.Exchange{}
	for _, f := range res.Sessions[0].Findings {
		got[f.Rule] = f.Exchange // a result.Finding holds no call: it has no field for one
	}
	toolErr, pending := got["tool-error"], got["pending-request"]
	if toolErr == nil || pending == nil {
		t.Fatalf("exchanges %v", got)
	}
	if toolErr.From != session.ClientToServer || toolErr.Method != "tools/call" || toolErr.Name != "read_note" || toolErr.ID != "4" ||
		toolErr.Line != 12 || toolErr.Answer != "isError result" || toolErr.Note != "" {
		t.Errorf("tool-error exchange %+v", toolErr)
	}
	if d, ok := toolErr.Latency(); !ok || d != 7*time.Millisecond {
		t.Errorf("tool-error latency %v %v, want 7ms", d, ok)
	}
	if pending.Method != "ping" || pending.Answer != "" || pending.Note != "never answered" || pending.Line != 16 {
		t.Errorf("pending-request exchange %+v", pending)
	}
	if _, ok := pending.Latency(); ok {
		t.Error("an unanswered request has a latency")
	}
}
