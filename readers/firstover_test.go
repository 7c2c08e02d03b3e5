package readers

import (
	"io"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

type endless byte

func (r endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// A first envelope past MaxEnvelope ends the read at once, however long it
// would go on; a later one is clipped and the read goes on (unread-capture).
func TestAFirstEnvelopePastTheLimitEndsTheRead(t *testing.T) {
	t.Parallel()
	o := Options{MaxEnvelope: 4096}
	head := `{"session_id":"s1","direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{"text":"`
	err := Read("cap.jsonl", io.MultiReader(strings.NewReader(head), endless('a')), discard{}, o)
	if err == nil || err.Error() != "cap.jsonl:1: its first envelope is larger than 4096 bytes, the most mcpcheck reads of one envelope; nothing was checked" {
		t.Fatalf("error %v", err)
	}

	first := `{"session_id":"s1","seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n"
	big := head + strings.Repeat("a", 8192) + `"}}}` + "\n"
	last := `{"session_id":"s1","seq":3,"direction":"c2s","raw":{"jsonrpc":"2.0","id":2,"method":"ping"}}` + "\n"
	h := &lineCounter{}
	if err := Read("cap.jsonl", strings.NewReader(first+big+last), h, o); err != nil {
		t.Fatal(err)
	}
	if h.frames != 3 || h.last != 3 {
		t.Errorf("%d frames, the last on line %d: a later envelope past the limit must not end the read", h.frames, h.last)
	}
}

type lineCounter struct {
	frames, last int
}

func (h *lineCounter) Frame(_ *session.Session, f *session.Frame) { h.frames++; h.last = f.Line }
func (h *lineCounter) Damage(*session.Session, session.Damage)    {}
func (h *lineCounter) End(*session.Session)                       {}

// growFor doubles a value's buffer past bigValue, up to the limit, so a
// value of hundreds of MiB is copied a handful of times, not dozens.
func TestGrowForDoublesUpToTheLimit(t *testing.T) {
	t.Parallel()
	small := make([]byte, 10, 10)
	if growFor(&small, 100, 1<<30); cap(small) != 10 {
		t.Errorf("a small value is left to append, grown to %d", cap(small))
	}
	buf := make([]byte, bigValue)
	if growFor(&buf, 1, 1<<30); cap(buf) != 2*bigValue || len(buf) != bigValue {
		t.Errorf("grown to cap %d len %d, want cap %d", cap(buf), len(buf), 2*bigValue)
	}
	if growFor(&buf, 40<<20-bigValue, 40<<20); cap(buf) != 40<<20 {
		t.Errorf("cap %d, want the limit %d", cap(buf), 40<<20)
	}
}
