package readers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// readLog reads a capture with the format detected and returns what each
// frame was found to be.
func readLog(t *testing.T, name, capture string) *frameLog {
	t.Helper()
	l := &frameLog{}
	if err := Read(name, strings.NewReader(capture), l, Options{}); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return l
}

func readFixture(t *testing.T, path string) *frameLog {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "formats", path))
	if err != nil {
		t.Fatal(err)
	}
	return readLog(t, filepath.Base(path), string(data))
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The tee of a stdio session: both sides number their requests from 0, an
// id is open on both sides at once (the client's tools/call 2 and the
// server's sampling/createMessage 2), progress is reported on a token,
// pings go both ways, and an answer was written before its request.
func TestPlainJSONRPCDirections(t *testing.T) {
	t.Parallel()
	l := readFixture(t, "jsonrpc/tee-notes.jsonl")
	sameLines(t, "frames", l.got, []string{
		"1 c2s opened by method", // initialize 0
		"2 s2c answered by answer",
		"3 c2s unpaired by method",
		"4 s2c opened by method",   // roots/list 0: the server's own numbering
		"5 c2s answered by answer", // only the server has 0 open now
		"6 c2s opened by method",
		"7 s2c answered by answer",
		"8 s2c unpaired by method",
		"9 c2s opened by method", // tools/call 2, offering progress token 2
		"10 s2c unpaired by progress",
		"11 s2c opened by method", // sampling 1
		"12 c2s answered by answer",
		"13 s2c unpaired by progress",
		"14 s2c opened by method",   // sampling 2, beside the client's open tools/call 2
		"15 c2s answered by answer", // a sampling result: the client answers
		"16 s2c answered by answer", // then only tools/call 2 is open
		"18 c2s opened by method",   // the request tee wrote after its answer
		"17 s2c answered by answer",
		"19 c2s opened by numbering", // ping 4 follows the client's 3
		"20 s2c answered by answer",
		"21 s2c opened by numbering", // ping 3 follows the server's 2
		"22 c2s answered by answer",
		"23 c2s opened by method",
		"24 s2c answered by answer",
		"25 c2s opened by method",
		"26 c2s cancelling by cancel",
		"27 c2s opened by method",
	})
	sameLines(t, "sessions", l.sessions, []string{"tee-notes.jsonl[notes-server] 27 frames"})

	// a 2026-07-28 session: no initialize; the label comes from discovery
	l = readFixture(t, "jsonrpc/tee-2026.jsonl")
	sameLines(t, "2026 frames", l.got, []string{
		"1 c2s opened by method", "2 s2c answered by answer", "3 c2s opened by method", "4 s2c answered by answer",
		"5 c2s opened by method", "6 s2c unpaired by progress", "7 s2c answered by answer",
		"9 c2s opened by method", "8 s2c answered by answer",
	})
	sameLines(t, "2026 sessions", l.sessions, []string{"tee-2026.jsonl[changelog-server] 9 frames"})
}

const (
	teeInit       = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"agent","version":"1"}}}`
	teeInitResult = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"notes-server","version":"2.1.0"}}}`
	teeInitd      = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// What nothing shows the direction of is reported, never guessed.
func TestPlainJSONRPCUndirected(t *testing.T) {
	t.Parallel()
	l := readLog(t, "tee.jsonl", lines(
		"Notes MCP server running on stdio", // the server's banner, before anything
		teeInit, teeInitResult, teeInitd,
		`{"jsonrpc":"2.0","method":"notifications/heartbeat"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"summarize","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}`,
		`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":"hb-1","method":"ping"}`,
		`{"jsonrpc":"2.0","id":42,"result":{}}`,
		`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}]`,
	))
	const none = " ! plain JSON-RPC records no direction, and "
	sameLines(t, "frames", l.got, []string{
		`1 unknown unpaired` + none + `the line is not JSON, so nothing shows who wrote it text "Notes MCP server running on stdio"`,
		"2 c2s opened by method", "3 s2c answered by answer", "4 c2s unpaired by method",
		`5 unknown unpaired` + none + `either side may send "notifications/heartbeat"`,
		"6 c2s opened by method", "7 s2c opened by method", "8 s2c opened by method",
		"9 unknown unpaired" + none + "both sides have a request of its id open and the answer fits either",
		"10 unknown unpaired" + none + "an answer without an id names no request",
		`11 unknown unpaired` + none + `either side may send "ping" and its id continues neither side's numbering of requests`,
		"13 unknown unpaired" + none + "the messages of the JSON array disagree about who sent them",
		"12 unknown unpaired" + none + "no request of its id was recorded within the reorder window",
	})
}

// What only one side may send, given the session so far, shows who sent
// it: a 2026-07-28 client sends no notification but notifications/cancelled
// and its server no request; progress comes from the side that received
// requests when only one did. What still fits both sides stays unknown.
func TestPlainJSONRPCWhatEachSideMaySend(t *testing.T) {
	t.Parallel()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	const none = " ! plain JSON-RPC records no direction, and "
	// A 2026-07-28 session: the server reports progress on a null token (a
	// server quirk: the request offered none).
	l := readLog(t, "tee.jsonl", lines(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_job","arguments":{},`+meta+`}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":null,"progress":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/heartbeat"}`,
		`{"jsonrpc":"2.0","id":"hb-1","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}`,
	))
	sameLines(t, "2026-07-28 frames", l.got, []string{
		"1 c2s opened by method",
		"2 s2c unpaired by legal", // clients send no progress
		"3 s2c unpaired by legal", // nor any notification but cancelled
		"4 c2s opened by legal",   // servers send no requests
		"5 unknown unpaired" + none + "no request of the id it cancels was recorded on one side only",
		"6 s2c answered by answer",
	})

	// A legacy session: progress on a token no request offered comes from
	// the server when only the client sent requests. A dual-era client's
	// fallback initialize makes the session legacy: a notification either
	// side may send stays unknown.
	l = readLog(t, "tee.jsonl", lines(
		`{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{`+meta+`}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`,
		teeInit, teeInitResult, teeInitd,
		`{"jsonrpc":"2.0","method":"notifications/heartbeat"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_job","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":null,"progress":1}}`,
	))
	sameLines(t, "legacy frames", l.got[5:], []string{
		"6 unknown unpaired" + none + `either side may send "notifications/heartbeat"`,
		"7 c2s opened by method",
		"8 s2c unpaired by legal",
	})

	// Once the server has sent a request too (within the reorder window of
	// the progress, which tee may have written first), either side may be
	// reporting: unknown.
	l = readLog(t, "tee.jsonl", lines(
		teeInit, teeInitResult, teeInitd,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_job","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":null,"progress":1}}`,
		`{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}`,
	))
	sameLines(t, "both sides asked", l.got[3:], []string{
		"4 c2s opened by method",
		"6 s2c opened by method",
		"5 unknown unpaired" + none + "no request offered its progress token within the reorder window, and both sides sent requests it may report on",
	})
}

// An answer tee wrote before its request waits for it within the reorder
// window, no longer; progress on a token not offered yet waits too.
func TestPlainJSONRPCReorderWindow(t *testing.T) {
	t.Parallel()
	msgs := []string{teeInit, teeInitResult, teeInitd,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t5","progress":1}}`,
		`{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"t5"}}}`,
		`{"jsonrpc":"2.0","id":6,"result":{"content":[]}}`,
	}
	for i := 0; i < session.ReorderWindow; i++ {
		msgs = append(msgs, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"tick"}}`)
	}
	msgs = append(msgs, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"late"}}`)
	l := readLog(t, "tee.jsonl", lines(msgs...))
	var got []string
	for _, g := range l.got {
		if !strings.Contains(g, "unpaired by method") {
			got = append(got, g)
		}
	}
	sameLines(t, "frames", got, []string{
		"1 c2s opened by method", "2 s2c answered by answer",
		"6 c2s opened by method", "4 s2c unpaired by progress", "5 s2c answered by answer",
		"7 unknown unpaired ! plain JSON-RPC records no direction, and no request of its id was recorded within the reorder window",
		"72 c2s opened by method",
	})
}

// A message that is not valid JSON still shows its method, so it is judged
// (as invalid) in the direction the method gives.
func TestPlainJSONRPCBrokenMessage(t *testing.T) {
	t.Parallel()
	l := readLog(t, "tee.jsonl", lines(teeInit, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":x}}`))
	sameLines(t, "frames", l.got, []string{"1 c2s opened by method", "2 s2c unpaired by method"})
}

func TestPlainJSONRPCDetection(t *testing.T) {
	t.Parallel()
	f := jsonrpcFormat{}
	cases := []struct {
		name, head string
		want       bool
	}{
		{"a message", teeInit + "\n", true},
		{"method first", `{"method":"initialize","params":{},"jsonrpc":"2.0","id":0}`, true},
		{"no jsonrpc member", `{"id":1,"method":"tools/list"}`, true},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, true},
		{"pretty", "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"ping\"\n}\n", true},
		{"banner first", "Starting notes server\n[notes] ready\n" + teeInit, true},
		{"cut inside the first message", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","desc`, true},
		{"an envelope", `{"session_id":"s1","direction":"c2s","raw":` + teeInit + `}`, false},
		{"an envelope of a foreign writer", `{"jsonrpc":"2.0","direction":"c2s"}`, false},
		{"a HAR", `{"log":{"version":"1.2","entries":[]}}`, false},
		{"a LogRocket event", `{"type":"request","startTime":1,"method":"tools/call","params":{},"seq":1}`, false},
		{"a JSON log line", `{"level":"info","msg":"listening"}`, false},
		{"a Claude Desktop log", "2025-06-13T14:44:29.945Z [info] [x] Message from client: " + teeInit, false},
		{"too much text first", strings.Repeat("starting…\n", maxLeadingJunk+1) + teeInit, false},
		{"text only", "hello\n", false},
	}
	for _, c := range cases {
		if got := f.Detect([]byte(c.head)); got != c.want {
			t.Errorf("%s: detected %v", c.name, got)
		}
	}
}
