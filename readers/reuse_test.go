package readers

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// copier is a FrameReleaser that copies each frame, as a handler that
// keeps anything must.
type copier struct{ recorder }

func (c *copier) Frame(s *session.Session, f *session.Frame) {
	g := *f
	g.Msg = session.DecodeMessage(g.Raw) // not the reused frame's decoded params and result
	c.frames = append(c.frames, &g)
}
func (*copier) ReleasesFrames() {}

// frameKeeper breaks the FrameReleaser promise: it keeps the reused frame.
type frameKeeper struct{ recorder }

func (*frameKeeper) ReleasesFrames() {}

// TestReusedFrames: a handler that releases its frames sees the same
// frames, in the same order and paired the same way, as one that gets a
// fresh frame each time, held-back answers included; and with a test
// buffer a handler that keeps the reused frame sees it poisoned.
func TestReusedFrames(t *testing.T) {
	t.Parallel()
	capture := lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		env(2, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`),
		env(3, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"early"}]}}`),
		env(4, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a"}}}`),
		env(5, "c2s", `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`),
		env(6, "s2c", `{"jsonrpc":"2.0","id":3,"result":{}}`),
		env(7, "s2c", `{"jsonrpc":"2.0","id":2,"result":{}}`),
	)
	describe := func(frames []*session.Frame) string {
		var b strings.Builder
		for _, f := range frames {
			// strings and decoded fields only: Raw aliases the read buffer
			fmt.Fprintf(&b, "%s:%d:%s:%s:%s:%s:%v\n", f.SessionID, f.Line, f.Direction, f.Msg.Method, f.Msg.ID, f.Pairing, f.Msg.Res != nil)
		}
		return b.String()
	}
	for _, size := range []int{0, 64} {
		o := Options{ReadBuffer: size}
		fresh := &recorder{}
		if err := Read("t.jsonl", strings.NewReader(capture), fresh, o); err != nil {
			t.Fatal(err)
		}
		reused := &copier{}
		if err := Read("t.jsonl", strings.NewReader(capture), reused, o); err != nil {
			t.Fatal(err)
		}
		if got, want := describe(reused.frames), describe(fresh.frames); got != want || len(fresh.frames) != 8 {
			t.Errorf("buffer %d: reused frames\n%s\nfresh frames\n%s", size, got, want)
		}
	}
	k := &frameKeeper{}
	if err := Read("t.jsonl", strings.NewReader(capture), k, Options{ReadBuffer: 64}); err != nil {
		t.Fatal(err)
	}
	if f := k.frames[len(k.frames)-1]; f.Line != -1 {
		t.Errorf("a kept reused frame is not poisoned: line %d", f.Line)
	}
}
