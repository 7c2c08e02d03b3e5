package session_test

import (
	"fmt"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
	"strings"
	"testing"
)

// A burst of concurrent calls does not keep its memory once answered: the
// open-call maps are released when they empty after holding many calls,
// and the calls after the burst are correlated as before.
func TestOpenCallMapsAreReleasedWhenEmpty(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	seq := 0
	for id := 1; id <= 200; id++ {
		seq++
		b.WriteString(env(seq, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id), `"conn_id":"c1"`) + "\n")
	}
	for id := 1; id <= 200; id++ {
		seq++
		b.WriteString(env(seq, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id), `"conn_id":"c1"`) + "\n")
	}
	var open []*session.Session
	h := &funcHandler{end: func(s *session.Session) {
		if session.HoldsOpenMaps(s) {
			open = append(open, s)
		}
	}}
	if err := readers.Read("burst.jsonl", strings.NewReader(b.String()), h, readers.Options{}); err != nil {
		t.Fatal(err)
	}
	if len(open) != 0 || h.ends != 1 {
		t.Errorf("the maps of a session whose calls were all answered are kept (%d sessions ended)", h.ends)
	}
	// a request after the release opens a map again and pairs
	seq++
	b.WriteString(env(seq, "c2s", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, `"conn_id":"c1"`) + "\n")
	seq++
	b.WriteString(env(seq, "s2c", `{"jsonrpc":"2.0","id":7,"result":{}}`, `"conn_id":"c2"`) + "\n")
	rec := readString(t, b.String())
	if last := rec.frames[len(rec.frames)-1]; last.Pairing != session.Answered {
		t.Errorf("the answer after the release is %v", last.Pairing)
	}
}

type funcHandler struct {
	end  func(*session.Session)
	ends int
}

func (h *funcHandler) Frame(*session.Session, *session.Frame)  {}
func (h *funcHandler) Damage(*session.Session, session.Damage) {}
func (h *funcHandler) End(s *session.Session)                  { h.ends++; h.end(s) }
