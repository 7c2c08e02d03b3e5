package readers

import (
	"bytes"
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

// valueBuf gathers a value of any size in parts that double up to
// bigValue, and joins them into one buffer of the value's exact size: a
// large value is copied once, never regrown.
func TestValueBufJoinsPartsIntoTheExactSize(t *testing.T) {
	t.Parallel()
	var v valueBuf
	v.start()
	piece := bytes.Repeat([]byte("0123456789abcdef"), 16<<10) // 256 KiB
	var want []byte
	for i := 0; len(want) < 40<<20+17; i++ {
		p := piece[:len(piece)-i%7]
		v.add(p)
		want = append(want, p...)
	}
	// 1 MiB in the head, then parts of 1, 2, 4, 8 and 16 MiB
	if len(v.parts) > 6 {
		t.Errorf("%d parts for %d MiB", len(v.parts), len(want)>>20)
	}
	for _, p := range v.parts {
		if cap(p) > bigValue {
			t.Errorf("a part of %d bytes", cap(p))
		}
	}
	got := v.bytes()
	if !bytes.Equal(got, want) || cap(got) != len(want) || v.len() != len(want) {
		t.Errorf("joined %d bytes (cap %d), want %d", len(got), cap(got), len(want))
	}
	v.truncate(5000)
	if got := v.bytes(); !bytes.Equal(got, want[:5000]) || len(v.parts) != 0 {
		t.Errorf("truncated to %d bytes, %d parts", len(got), len(v.parts))
	}
	v.start()
	if v.head != nil || v.len() != 0 {
		t.Error("the large value's buffer is kept for the next")
	}
	v.add([]byte("small"))
	if got := v.bytes(); string(got) != "small" || len(v.parts) != 0 {
		t.Errorf("small value %q in %d parts", got, len(v.parts))
	}
}
