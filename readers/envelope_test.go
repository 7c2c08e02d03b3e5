package readers

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// problems renders a frame's envelope problems for comparison.
func problems(f *session.Frame) string {
	var out []string
	for _, p := range f.EnvelopeProblems {
		out = append(out, fmt.Sprintf("%d/%s: %s", p.Fault, p.Member, p.Problem))
	}
	return strings.Join(out, "; ")
}

func TestEnvelopeProblems(t *testing.T) {
	t.Parallel()
	const ping = `"raw":{"jsonrpc":"2.0","id":1,"method":"ping"}`
	cases := []struct {
		envelope string
		dir      session.Direction
		seq      int64
		want     string
	}{
		{`{"session_id":"s1","seq":4,"direction":"c2s",` + ping + `}`, session.ClientToServer, 4, ""},
		{`{"session_id":"s1","seq":0,"direction":"stderr","text":"x"}`, session.Stderr, 0, ""},
		{`{"session_id":"s1","seq":null,"direction":"meta","raw":{"cwd":"/"}}`, session.Meta, 0, ""},
		{`{"session_id":"s1","direction":"c2s",` + ping + `}`, session.ClientToServer, 0, ""},
		{`{"session_id":"s1","seq":9223372036854775807,"direction":"c2s",` + ping + `}`, session.ClientToServer, 1<<63 - 1, ""},
		{`{"session_id":"s1","seq":-0,"direction":"c2s",` + ping + `}`, session.ClientToServer, 0, ""},

		{`{"session_id":"s1","seq":4,"direction":"S2C",` + ping + `}`, session.DirUnknown, 4, `1/direction: direction "S2C" is not c2s, s2c, stderr or meta`},
		{`{"session_id":"s1","seq":4,"direction":"server",` + ping + `}`, session.DirUnknown, 4, `1/direction: direction "server" is not c2s, s2c, stderr or meta`},
		{`{"session_id":"s1","seq":4,"direction":2,` + ping + `}`, session.DirUnknown, 4, `1/direction: direction is a JSON number, not a string`},
		{`{"session_id":"s1","seq":4,"direction":null,` + ping + `}`, session.DirUnknown, 4, `1/direction: direction is a JSON null, not a string`},
		{`{"session_id":"s1","seq":4,` + ping + `}`, session.DirUnknown, 4, `1/direction: the envelope has no direction`},

		{`{"session_id":"s1","seq":-3,"direction":"c2s",` + ping + `}`, session.ClientToServer, 0, `2/seq: seq -3 is negative`},
		{`{"session_id":"s1","seq":1.5,"direction":"c2s",` + ping + `}`, session.ClientToServer, 0, `2/seq: seq 1.5 is not written as an integer`},
		{`{"session_id":"s1","seq":1e3,"direction":"c2s",` + ping + `}`, session.ClientToServer, 0, `2/seq: seq 1e3 is not written as an integer`},
		{`{"session_id":"s1","seq":"7","direction":"c2s",` + ping + `}`, session.ClientToServer, 0, `2/seq: seq "7" is a JSON string, not an integer`},
		{`{"session_id":"s1","seq":true,"direction":"c2s",` + ping + `}`, session.ClientToServer, 0, `2/seq: seq true is a JSON boolean, not an integer`},
		{`{"session_id":"s1","seq":9223372036854775808,"direction":"c2s",` + ping + `}`, session.ClientToServer, 0, `2/seq: seq 9223372036854775808 does not fit in 63 bits`},
		{`{"session_id":"s1","seq":-99999999999999999999,"direction":"c2s",` + ping + `}`, session.ClientToServer, 0, `2/seq: seq -99999999999999999999 is negative`},

		{`{"session_id":"s1","seq":4,"direction":"c2s","seq":5,` + ping + `}`, session.ClientToServer, 5, `3/seq: the envelope has the member "seq" twice`},
		{`{"session_id":"s1","seq":4,"direction":"c2s","\u0064irection":"s2c",` + ping + `}`, session.ServerToClient, 4, `3/direction: the envelope has the member "direction" twice`},
		{`{"session_id":"s1","seq":-1,"direction":"up",` + ping + `}`, session.DirUnknown, 0,
			`1/direction: direction "up" is not c2s, s2c, stderr or meta; 2/seq: seq -1 is negative`},
	}
	for _, c := range cases {
		rec := readString(t, c.envelope+"\n")
		if len(rec.frames) != 1 {
			t.Errorf("%s: %d frames", c.envelope, len(rec.frames))
			continue
		}
		f := rec.frames[0]
		if got := problems(f); got != c.want || f.Seq != c.seq || f.Direction != c.dir {
			t.Errorf("%s:\n got %q seq %d dir %v\nwant %q seq %d dir %v", c.envelope, got, f.Seq, f.Direction, c.want, c.seq, c.dir)
		}
	}
}

// A frame whose seq cannot be read takes the place of the next one: the
// frames around it are not counted as dropped.
func TestBadSeqIsNotAGap(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`),
		`{"session_id":"s1","seq":-7,"direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{}}}`,
		`{"session_id":"s1","seq":9223372036854775808,"direction":"c2s","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}`,
		env(4, "c2s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`),
		`{"session_id":"s1","seq":"5","direction":"s2c","raw":{"jsonrpc":"2.0","id":2,"result":{}}}`,
		env(6, "stderr", "", `"text":"done"`),
	))
	if s := rec.sessions[0]; s.MissingFrames != 0 || s.Frames != 6 {
		t.Errorf("missing %d, frames %d", s.MissingFrames, s.Frames)
	}
	if f := rec.frames[1]; f.Pairing != session.Answered {
		t.Errorf("the answer with a bad seq was not correlated: %v", f.Pairing)
	}
}

// An envelope whose direction is unknown is still judged when its message
// shows which way it went, and delivered uncorrelated when it does not.
func TestDirectionInference(t *testing.T) {
	t.Parallel()
	bad := func(seq int, dir, raw string) string {
		return fmt.Sprintf(`{"session_id":"s1","seq":%d,"direction":%s,"transport":"stdio","raw":%s}`, seq, dir, raw)
	}
	rec := readString(t, lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`),
		bad(2, `"S2C"`, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`),
		bad(3, `"client"`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		bad(4, `"server"`, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"ready"}}`),
		bad(5, `7`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{}}}`),
		env(6, "s2c", `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`),
		bad(7, `"S2C"`, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"EACCES"}],"isError":true}}`),
		bad(8, `"CLIENT"`, `{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}`),
		bad(9, `"?"`, `{"jsonrpc":"2.0","id":2,"method":"ping"}`),
		env(10, "c2s", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}`),
		bad(11, `"c->s"`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`),
		bad(12, `"?"`, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`),
		bad(13, `"?"`, `[{"jsonrpc":"2.0","id":4,"method":"tools/list"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`),
		`{"session_id":"s1","seq":14,"transport":"stdio","text":"listening"}`,
	))
	type want struct {
		line int
		dir  session.Direction
		from session.Inference
		pair session.Pairing
	}
	wants := []want{
		{1, session.ClientToServer, session.NotInferred, session.Opened},
		{2, session.ServerToClient, session.FromAnsweredCall, session.Answered},
		{3, session.ClientToServer, session.FromMethod, session.Unpaired},
		{4, session.ServerToClient, session.FromMethod, session.Unpaired},
		{5, session.ClientToServer, session.FromMethod, session.Opened},
		{6, session.ServerToClient, session.NotInferred, session.Opened},
		{7, session.DirUnknown, session.NotInferred, session.Unpaired}, // id 1 is open both ways
		{8, session.DirUnknown, session.NotInferred, session.Unpaired},
		{9, session.DirUnknown, session.NotInferred, session.Unpaired}, // ping goes both ways
		{10, session.ClientToServer, session.NotInferred, session.Opened},
		{11, session.ClientToServer, session.FromCancelledCall, session.Cancelling},
		{12, session.DirUnknown, session.NotInferred, session.Unpaired},
		{13, session.ClientToServer, session.FromMethod, session.Opened}, // tools/list decides, ping agrees by default
		{13, session.ClientToServer, session.FromMethod, session.Opened},
		{14, session.DirUnknown, session.NotInferred, session.Unpaired},
	}
	if len(rec.frames) != len(wants) {
		t.Fatalf("%d frames, want %d", len(rec.frames), len(wants))
	}
	for i, w := range wants {
		f := rec.frames[i]
		if f.Line != w.line || f.Direction != w.dir || f.Inferred != w.from || f.Pairing != w.pair {
			t.Errorf("frame %d: line %d %v %v %v, want line %d %v %v %v", i, f.Line, f.Direction, f.Inferred, f.Pairing, w.line, w.dir, w.from, w.pair)
		}
		if f.Direction == session.DirUnknown && (f.Msg.Kind != session.NoMessage || f.Call != nil) {
			t.Errorf("line %d: an uncorrelated frame carries a message view %v", f.Line, f.Msg.Kind)
		}
		if recorded := f.Line == 1 || f.Line == 6 || f.Line == 10; recorded != (len(f.EnvelopeProblems) == 0) {
			t.Errorf("line %d: envelope problems %q", f.Line, problems(f))
		}
	}
	if s := rec.sessions[0]; s.Frames != 15 {
		t.Errorf("frames counted %d, want 15 (none dropped; the array is two)", s.Frames)
	}
}

// Tasks and answers that can go both ways are told apart by the call they
// belong to.
func TestDirectionInferenceFromTasksAndAnswers(t *testing.T) {
	t.Parallel()
	bad := func(seq int, raw string) string {
		return fmt.Sprintf(`{"session_id":"s1","seq":%d,"direction":"S2C","raw":%s}`, seq, raw)
	}
	rec := readString(t, lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"render","arguments":{},"task":{"ttl":60000}}}`),
		env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t-1","status":"working"}}}`),
		bad(3, `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t-1","status":"working"}}`),
		bad(4, `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t-1"}}`),
		bad(5, `{"jsonrpc":"2.0","id":2,"result":{"taskId":"t-1","status":"completed"}}`),
		bad(6, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"unknown"}}`),
		env(7, "c2s", `{"jsonrpc":"2.0","id":4,"method":"ping"}`),
		bad(8, `{"jsonrpc":"2.0","id":4,"result":{}}`),
		bad(9, `{"jsonrpc":"2.0","id":4,"result":{}}`),
	))
	wants := []struct {
		dir  session.Direction
		from session.Inference
	}{
		{session.ClientToServer, session.NotInferred}, {session.ServerToClient, session.NotInferred},
		{session.ServerToClient, session.FromTask},
		{session.ClientToServer, session.FromTask},
		{session.ServerToClient, session.FromAnsweredCall},
		{session.DirUnknown, session.NotInferred},
		{session.ClientToServer, session.NotInferred},
		{session.ServerToClient, session.FromAnsweredCall},
		{session.DirUnknown, session.NotInferred}, // a second answer: nothing open any more
	}
	for i, w := range wants {
		if f := rec.frames[i]; f.Direction != w.dir || f.Inferred != w.from {
			t.Errorf("line %d: %v %v, want %v %v", f.Line, f.Direction, f.Inferred, w.dir, w.from)
		}
	}
	if c := rec.frames[0].Call; c.State != session.Completed || c.Task == nil || !c.Task.Terminal {
		t.Errorf("the task did not end: %+v", c)
	}
}
