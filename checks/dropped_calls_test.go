package checks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"

	. "github.com/mcpcheck/mcpcheck/checks"
)

// A session past MaxOpenCalls unanswered requests reports the ones it
// stopped following in one pending-request finding at the oldest, and the
// ones it still follows as usual.
func TestDroppedCallsAreOneFinding(t *testing.T) {
	t.Parallel()
	const extra = 7
	var b strings.Builder
	for id := 1; id <= session.MaxOpenCalls+extra; id++ {
		fmt.Fprintf(&b, `{"session_id":"s1","server_label":"notes","seq":%d,"ts":"2026-09-01T10:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":%d,"method":"ping"}}`+"\n", id, id)
	}
	got, err := runFixture("dropped.jsonl", []byte(b.String()), All(), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var dropped []gotFinding
	pending := 0
	for _, f := range got {
		switch {
		case f.Rule == "pending-request" && f.Subject == "dropped requests":
			dropped = append(dropped, f)
		case f.Rule == "pending-request":
			pending++
		}
	}
	want := fmt.Sprintf(`7 requests were still open when more than %d were, and mcpcheck stopped following them, oldest first (the oldest: client ping (id 1)); an answer to them was not paired`, session.MaxOpenCalls)
	if len(dropped) != 1 || dropped[0].Line != 1 || dropped[0].Message != want {
		t.Fatalf("dropped findings %v, want one on line 1: %s", dropped, want)
	}
	// the rule keeps 1,000 in full and folds the rest into one
	if pending == 0 {
		t.Errorf("no pending-request finding for the calls still followed")
	}
}
