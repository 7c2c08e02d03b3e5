package session_test

import (
	"github.com/mcpcheck/mcpcheck/session"
	"testing"
)

// A member name used twice anywhere in a message makes it invalid, but it
// is still correlated as what it reads as: its request is not left
// pending, nor its answer unmatched.
func TestDuplicateMemberInMessage(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.txt","path":"/etc/passwd"}}}`),
		env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok","text":"denied"}],"isError":true}}`),
		env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"ping","\u0069d":3}`),
		env(4, "s2c", `{"jsonrpc":"2.0","id":3,"result":{}}`),
		env(5, "c2s", `[{"jsonrpc":"2.0","id":4,"method":"tools/list"},{"jsonrpc":"2.0","id":5,"method":"prompts/list","params":{"cursor":"a","cursor":"b"}}]`),
		env(6, "s2c", `[{"jsonrpc":"2.0","id":4,"result":{"tools":[]}},{"jsonrpc":"2.0","id":5,"result":{"prompts":[]}}]`),
	))
	want := []struct {
		kind    session.Kind
		problem string
		pairing session.Pairing
	}{
		{session.Invalid, `an object with the member "path" twice in arguments`, session.Opened},
		{session.Invalid, `an object with the member "text" twice in content`, session.Answered},
		{session.Invalid, `a message with the member "id" twice`, session.Opened},
		{session.Response, "", session.Answered},
		{session.Request, "", session.Opened},
		{session.Invalid, `an object with the member "cursor" twice in params`, session.Opened},
		{session.Response, "", session.Answered},
		{session.Response, "", session.Answered},
	}
	if len(rec.frames) != len(want) {
		t.Fatalf("%d frames", len(rec.frames))
	}
	for i, w := range want {
		f := rec.frames[i]
		if f.Msg.Kind != w.kind || f.Msg.Problem != w.problem || f.Pairing != w.pairing {
			t.Errorf("frame %d (line %d): %v %q %v, want %v %q %v", i, f.Line, f.Msg.Kind, f.Msg.Problem, f.Pairing, w.kind, w.problem, w.pairing)
		}
	}
	if f := rec.frames[2]; f.Call == nil || f.Call.ID.String() != "3" {
		t.Errorf("the last id counts, as most decoders keep it: %+v", f.Call)
	}
	if c := rec.frames[1].Call; c == nil || c.State != session.Failed {
		t.Errorf("the isError answer with a duplicate still fails its call: %+v", c)
	}
	if u := rec.sessions[0].Unfinished(); len(u) != 0 {
		t.Errorf("unfinished %v", u)
	}
}
