package checks

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// A token reused by request after request that never settles (a task
// running, an answer still to come) is looked at once per registration, not
// once per request that ever carried it: what waits to settle stays bounded
// by the tokens remembered.
func TestTokenTableForgetsReplacedRequests(t *testing.T) {
	t.Parallel()
	var r progressRule
	keys := []tokenKey{{session.ClientToServer, "a"}, {session.ClientToServer, "b"}}
	for i := 0; i < 10000; i++ {
		r.register(keys[i%2], &session.Call{State: session.Pending})
	}
	if n := len(r.tokens.unsettled); n > len(keys)+2 {
		t.Errorf("%d requests wait to settle for %d tokens", n, len(keys))
	}
	answered := &session.Call{State: session.Completed, Answers: 1, Line: 9, EndLine: 12}
	r.register(keys[0], answered)
	r.register(keys[1], &session.Call{State: session.Pending})
	r.register(keys[1], &session.Call{State: session.Pending})
	if u := r.tokens.uses[keys[0]]; u.call != nil || u.done.endLine != 12 {
		t.Errorf("an answered request is kept as %+v; want let go, with its lines", u)
	}
}
