package checks_test

import (
	"io"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/session/sessiontest"

	. "github.com/mcpcheck/mcpcheck/checks"
)

// The content rules' cost budgets (issues 21 and 26), counted on the
// generated busy CI capture (sessiontest.Calls, the capture mcpbench
// measures) rather than timed, so that they hold on a shared machine: a
// change that makes a rule look at more bytes, or look closely more often,
// fails here.

var (
	budgetOnce    sync.Once
	budgetCapture []byte
)

// budgetCalls is 20,000 tool calls of the generator's mix in one session.
func budgetCalls(t *testing.T) []byte {
	t.Helper()
	budgetOnce.Do(func() {
		budgetCapture, _ = io.ReadAll(sessiontest.Calls(20_000, 20_000))
	})
	if len(budgetCapture) == 0 {
		t.Fatal("no generated capture")
	}
	return budgetCapture
}

// TestSecretLeakBudget: secret-leak's prefilter looks at each byte of the
// capture at most once (the strings of a frame are found in one walk, not
// scanned again), and looks closely at a pattern's start at most 5 times
// a kilobyte (4.1 today).
func TestSecretLeakBudget(t *testing.T) {
	data := budgetCalls(t)
	calls0, bytes0, closer0 := secrets.Counters.Snapshot()
	checkBytes(t, data, rulesByID(t, "secret-leak"))
	calls1, bytes1, closer1 := secrets.Counters.Snapshot()
	calls, scanned, closer := calls1-calls0, bytes1-bytes0, closer1-closer0
	perByte := float64(scanned) / float64(len(data))
	perKB := float64(closer) / (float64(len(data)) / 1000)
	t.Logf("%d bytes: %d prefilter calls, %d bytes scanned (%.2f a capture byte), %d closer looks (%.2f a KB)",
		len(data), calls, scanned, perByte, closer, perKB)
	if perByte > 1 {
		t.Errorf("secret-leak scanned %.2f bytes a capture byte; the budget is 1", perByte)
	}
	if perKB > 5 {
		t.Errorf("secret-leak looked closely %.2f times a KB; the budget is 5", perKB)
	}
}

func rulesByID(t *testing.T, ids ...string) []*Rule {
	t.Helper()
	var out []*Rule
	for _, id := range ids {
		r := Lookup(All(), id)
		if r == nil {
			t.Fatalf("no rule %s", id)
		}
		out = append(out, r)
	}
	return out
}
