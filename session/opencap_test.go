package session_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
)

// Past MaxOpenCalls unanswered requests a session stops following the
// oldest: it counts them, names the first, and an answer that comes for
// one of them later is absorbed rather than called unmatched.
func TestOpenCallsAreCapped(t *testing.T) {
	t.Parallel()
	const extra = 50
	n := session.MaxOpenCalls + extra
	var b strings.Builder
	seq := 0
	for id := 1; id <= n; id++ {
		seq++
		b.WriteString(env(seq, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)) + "\n")
	}
	unanswered := b.String()
	for id := 1; id <= n; id++ {
		seq++
		b.WriteString(env(seq, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)) + "\n")
	}
	rec := readString(t, unanswered)
	s := rec.sessions[0]
	if s.DroppedCalls != extra || s.FirstDropped == nil || s.FirstDropped.Line != 1 {
		t.Fatalf("dropped %d (first %+v), want %d from line 1", s.DroppedCalls, s.FirstDropped, extra)
	}
	if got := len(s.Unfinished()); got != session.MaxOpenCalls {
		t.Errorf("%d unfinished, want the %d newest", got, session.MaxOpenCalls)
	}
	if first := s.Unfinished()[0]; first.Line != extra+1 {
		t.Errorf("the oldest followed call is on line %d, want %d", first.Line, extra+1)
	}

	rec = readString(t, b.String())
	pairings := map[session.Pairing]int{}
	for _, f := range rec.frames {
		if f.Direction == session.ServerToClient {
			pairings[f.Pairing]++
		}
	}
	if pairings[session.Answered] != session.MaxOpenCalls || pairings[session.Absorbed] != extra || len(pairings) != 2 {
		t.Errorf("answers paired %v, want %d answered and %d absorbed", pairings, session.MaxOpenCalls, extra)
	}
	if s := rec.sessions[0]; len(s.Unfinished()) != 0 || s.DroppedCalls != extra {
		t.Errorf("%d unfinished, %d dropped", len(s.Unfinished()), s.DroppedCalls)
	}
}

// The oldest-first list of open calls holds no more than about twice the
// open ones, however many answered calls pass by a call that stays open.
func TestOpenOrderStaysNearTheOpenCalls(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	seq := 1
	b.WriteString(env(seq, "c2s", `{"jsonrpc":"2.0","id":"forever","method":"ping"}`) + "\n")
	for id := 1; id <= 5000; id++ {
		seq++
		b.WriteString(env(seq, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)) + "\n")
		seq++
		b.WriteString(env(seq, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)) + "\n")
	}
	peak := 0
	h := &peakHandler{peak: &peak}
	if err := readers.Read("test.jsonl", strings.NewReader(b.String()), h, readers.Options{}); err != nil {
		t.Fatal(err)
	}
	if peak > 2*2+64 { // two calls are open when a request arrives
		t.Errorf("the open-call order held %d calls for 1 open one", peak)
	}
	if h.open != 1 {
		t.Errorf("%d calls open at the end, want 1", h.open)
	}
}

type peakHandler struct {
	peak *int
	open int
}

func (h *peakHandler) Frame(s *session.Session, f *session.Frame) {
	*h.peak = max(*h.peak, session.OpenOrderLen(s))
}
func (h *peakHandler) Damage(*session.Session, session.Damage) {}
func (h *peakHandler) End(s *session.Session)                  { h.open = session.OpenLen(s) }
