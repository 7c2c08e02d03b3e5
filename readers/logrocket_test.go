package readers

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// The LogRocket Go module cannot be fetched here, so these fixtures follow
// its published documentation, ../shared/formats/logrocket-mcpreplay.md; each test names the part.

// lrEv is a RequestEvent of the notes server for tests (the document's
// "type RequestEvent": type, startTime in epoch ms, durationMs, method,
// instanceID, seq).
func lrEv(seq int, method, rest string) string {
	return fmt.Sprintf(`{"type":"mcp_request","startTime":%d,"durationMs":4,"method":%q,%s"instanceID":"inst-1","seq":%d}`, 1788858000000+seq*100, method, rest, seq)
}

func readLR(t *testing.T, doc string) *recorder {
	t.Helper()
	rec := &recorder{}
	if err := Read("events.logrocket.json", strings.NewReader(doc), rec, Options{}); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return rec
}

func TestLogRocketDetect(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		head string
		want bool
	}{
		{`{"appID":"org/app","sdk":{"name":"logrocket-mcp-replay-go","version":"0.1.0"},"events":[`, true},
		{`{"events":[{"type":"mcp_request"`, true},
		{`[{"type":"mcp_request","startTime":1,"durationMs":2,"method":"tools/list","seq":1}]`, true},
		{lrEv(1, "tools/list", ""), true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","startTime":1,"durationMs":2}`, false},
		{`{"session_id":"s1","direction":"c2s","startTime":1,"durationMs":2,"method":"x"}`, false},
		{`{"log":{"entries":[]}}`, false},
		{`{"method":"tools/list"}`, false},
	} {
		if got := (logRocket{}).Detect([]byte(c.head)); got != c.want {
			t.Errorf("Detect(%q) = %v", c.head, got)
		}
	}
}

// A batch's events become request/answer pairs; what the recorder cut or
// left out is marked truncated, and its own redaction marks the frame.
// Follows "type EventBatch" (appID, sdk, events), "Constants"
// (TruncatedMarker "[truncated by logrocket-mcp-replay-go]" on values past
// MaxValueLength), "type RecordedResult" (isError, value), RequestEvent's
// errorMessage/errorName/errorCode and headers, and "Sanitization"
// (credential headers always [REDACTED]).
func TestLogRocketBatch(t *testing.T) {
	t.Parallel()
	h := `"headers":{"Accept":"application/json, text/event-stream","Authorization":"[REDACTED]","Mcp-Session-Id":"m-1","Mcp-Protocol-Version":"2025-06-18","Mcp-Name":"[REDACTED]"},"serverUrl":"https://notes.example/mcp",`
	doc := "{\n  \"appID\": \"org/notes\",\n  \"sdk\": {\"name\": \"logrocket-mcp-replay-go\", \"version\": \"0.1.0\"},\n  \"events\": [\n    " + strings.Join([]string{
		lrEv(1, "initialize", `"params":{"protocolVersion":"2025-06-18","capabilities":{}},"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{}}},`+h),
		lrEv(2, "notifications/initialized", h),
		lrEv(3, "tools/call", `"target":"search","params":"{\"name\":\"search\",\"arguments\":{\"q\":\"xxxx[truncated by logrocket-mcp-replay-go]","result":{"isError":true},`+h),
		lrEv(4, "resources/read", `"target":"notes://a","errorMessage":"not found","errorName":"*jsonrpc.WireError","errorCode":-32002,`+h),
		lrEv(5, "prompts/get", `"target":"weekly","params":{"name":"weekly"},"errorMessage":"boom","errorName":"*errors.errorString",`+h),
		lrEv(6, "tools/list", `"result":{"value":"{\"tools\":[{\"name\":\"a\"[truncated by logrocket-mcp-replay-go]"},`+h),
	}, ",\n    ") + "\n  ]\n}\n"
	rec := readLR(t, doc)
	want := strings.Join([]string{
		`m-1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
		`m-1 s2c 0 {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
		`m-1 c2s 0 {"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`m-1 c2s 0 {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search"}}`,
		`m-1 s2c 0 {"jsonrpc":"2.0","id":2,"result":{"content":[],"isError":true}}`,
		`m-1 c2s 0 {"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"notes://a"}}`,
		`m-1 s2c 0 {"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"not found"}}`,
		`m-1 c2s 0 {"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"weekly"}}`,
		`m-1 s2c 0 {"jsonrpc":"2.0","id":4,"error":{"code":0,"message":"boom"}}`,
		`m-1 c2s 0 {"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
		`m-1 s2c 0 {"jsonrpc":"2.0","id":5,"result":{}}`,
	}, "\n")
	if got := frameSummary(rec); got != want {
		t.Errorf("frames:\n%s\nwant:\n%s", got, want)
	}
	var flags []string
	for _, f := range rec.frames {
		flags = append(flags, fmt.Sprintf("%d:%v/%v", f.Line, f.Truncated, f.Redacted))
	}
	// Events start on lines 5 to 10. resources/read kept no params, which
	// it requires: what survives is its target, and the rest is truncated.
	// The requests' Mcp-Name was redacted by the recorder.
	if got := strings.Join(flags, " "); got != "5:false/true 5:false/false 6:false/true 7:true/true 7:true/false 8:true/true 8:false/false 9:false/true 9:false/false 10:false/true 10:true/false" {
		t.Errorf("truncated/redacted by line: %s", got)
	}
	if f := rec.frames[0]; f.Label != "notes.example/mcp" || f.Transport != "http" || f.MCPProtocolVersion != "2025-06-18" || f.Time.IsZero() {
		t.Errorf("request fields: %+v", f)
	}
	if d, ok := rec.frames[1].Call.Duration(); !ok || d.Milliseconds() != 4 {
		t.Errorf("duration %v %v", d, ok)
	}
	if len(rec.damage) != 0 {
		t.Errorf("a recorded notifications/initialized leaves nothing to say: %+v", rec.damage)
	}
}

// Events one per line, and arrays of events; without Mcp-Session-Id a
// server process's sessions are told apart by their initialize, and the
// notifications nobody recorded are said to be missing. Follows
// RequestEvent's instanceID ("last-resort sessionization key ... stdio")
// and "Usage" (receiving middleware records the requests a server handles:
// no notifications, no requestID, which the Go SDK does not expose).
func TestLogRocketEventLines(t *testing.T) {
	t.Parallel()
	doc := lines(
		lrEv(1, "initialize", `"params":{"protocolVersion":"2025-06-18","capabilities":{}},"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{}}},`),
		lrEv(2, "tools/list", `"result":{"value":{"tools":[]}},`),
		"["+lrEv(3, "initialize", `"params":{"protocolVersion":"2025-06-18","capabilities":{}},"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{}}},`)+","+
			lrEv(4, "ping", `"result":{"value":{}},`)+"]",
		`{"jsonrpc":"2.0","id":9,"method":"tools/list","startTime":1,"durationMs":2}`,
	)
	rec := readLR(t, doc)
	var got []string
	for _, f := range rec.frames {
		got = append(got, fmt.Sprintf("%s/%d/%s", f.SessionID, f.Line, f.Transport))
	}
	if s := strings.Join(got, " "); s != "inst-1/1/ inst-1/1/ inst-1/2/ inst-1/2/ inst-1 #2/3/ inst-1 #2/3/ inst-1 #2/3/ inst-1 #2/3/" {
		t.Errorf("frames %s", s)
	}
	if len(rec.damage) != 2 || !strings.Contains(rec.damage[0].Reason, "LogRocket records no notifications") || rec.damage[0].Line != 2 ||
		!strings.HasPrefix(rec.damage[1].Reason, "not a RequestEvent") || rec.damage[1].Line != 4 {
		t.Errorf("damage %+v", rec.damage)
	}
}

// A 2026-07-28 event lost the _meta its revision requires: the request is
// marked as rewritten by the recorder. Follows RequestEvent's params
// ("the request params (minus _meta)") and protocolVersion.
func TestLogRocketModernEventsAreRedacted(t *testing.T) {
	t.Parallel()
	rec := readLR(t, lines(lrEv(1, "tools/list", `"protocolVersion":"2026-07-28","result":{"value":{"tools":[],"resultType":"complete"}},`)))
	if !rec.frames[0].Redacted || rec.frames[1].Redacted {
		t.Errorf("redacted: request %v, answer %v", rec.frames[0].Redacted, rec.frames[1].Redacted)
	}
}

func TestLogRocketNotACapture(t *testing.T) {
	t.Parallel()
	var nc *NotCaptureError
	c := session.NewCorrelator("x.jsonl", &recorder{}, session.Limits{})
	err := (logRocket{}).Read("x.jsonl", strings.NewReader(lines(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)), c, DefaultOptions())
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "no RequestEvent in it") {
		t.Errorf("JSON-RPC forced as LogRocket events: %v", err)
	}
	err = Read("x.logrocket.json", strings.NewReader(`{"appID":"a","sdk":{},"events":[{"type"`), &recorder{}, Options{})
	if !errors.As(err, &nc) || nc.Line != 1 {
		t.Errorf("a batch that breaks off before its first event: %v", err)
	}
}

// An event past MaxEnvelope in an {"events":[…]} document whose first
// bytes hold no RequestEvent is damage on the line the event starts on,
// not on the line before it, and fails the gate.
func TestLogRocketLargeEventIsDamageOnItsLine(t *testing.T) {
	t.Parallel()
	doc := "{\"events\": [\n" +
		lrEv(1, "initialize", `"params":{"protocolVersion":"2025-06-18","capabilities":{}},"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{}}},`) + ",\n" +
		`{"type":"mcp_request","note":"` + strings.Repeat("a", 8192) + `","startTime":1788858000200,"durationMs":4,"method":"tools/call"}` + "\n]}\n"
	rec := &recorder{}
	if err := Read("events.logrocket.json", strings.NewReader(doc), rec, Options{MaxEnvelope: 4096, ReadBuffer: 16}); err != nil {
		t.Fatal(err)
	}
	if len(rec.damage) != 1 || rec.damage[0].Line != 3 || rec.damage[0].Reason != "an event of more than 4096 bytes was skipped: its first 4096 bytes hold no RequestEvent" ||
		rec.damage[0].Lost != "an event of more than 4096 bytes, the most mcpcheck reads, was not read" {
		t.Errorf("damage %+v, want one on line 3", rec.damage)
	}
}

// An event past MaxEnvelope is read as far as the limit allows (spec
// §2.1, fail closed): a value the cut falls in is left out, the isError
// flag or the error before the cut is still judged, and the last frame is
// marked past the limit; an answer past the cut excuses its request. The
// event's instanceID (and headers) come last, past the cut: its session
// is the file's.
func TestLogRocketEventPastTheSizeLimit(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("a", 8192)
	const problem = " | past the size limit: the event is larger than the 4096 bytes mcpcheck reads: what follows its first 4096 bytes was left out, the rest was judged | truncated"
	initialize := lrEv(1, "initialize", `"params":{"protocolVersion":"2025-06-18","capabilities":{}},"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{}}},`)
	after := lrEv(3, "ping", `"result":{"value":{}},`)
	for _, c := range []struct {
		name, event, want, damage string
	}{
		{"isError before the cut", lrEv(2, "tools/call", `"params":{"name":"dump"},"result":{"isError":true,"value":{"content":[{"type":"text","text":"`+pad+`"}],"isError":true}},`),
			`events.logrocket.json s2c 0 {"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text"}]}}` + problem, ""},
		{"isError in the value before the cut", lrEv(2, "tools/call", `"params":{"name":"dump"},"result":{"value":{"isError":true,"content":[{"type":"text","text":"`+pad+`"}]}},`),
			`events.logrocket.json s2c 0 {"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text"}]}}` + problem, ""},
		{"an error before the cut", lrEv(2, "tools/call", `"params":{"name":"dump"},"errorMessage":"boom","errorCode":-32603,"pad":"`+pad+`",`),
			`events.logrocket.json s2c 0 {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}` + problem, ""},
		{"the answer past the cut", lrEv(2, "tools/call", `"params":{"name":"upload","arguments":{"blob":"`+pad+`"}},"result":{"isError":true,"value":{}},`),
			`events.logrocket.json c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upload","arguments":{}}}` + problem,
			"the answer lies past the first 4096 bytes of this event, the most mcpcheck reads"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{}
			doc := "{\"events\": [\n" + initialize + ",\n" + c.event + ",\n" + after + "\n]}\n"
			if err := Read("events.logrocket.json", strings.NewReader(doc), rec, Options{MaxEnvelope: 4096, ReadBuffer: 16}); err != nil {
				t.Fatal(err)
			}
			frames := strings.Split(overLimitFrames(rec), "\n")
			cut := 3 // initialize, its answer, the cut event's request, its answer
			if c.damage != "" {
				cut = 2
			}
			if len(frames) != cut+3 || frames[cut] != c.want || strings.Contains(frames[cut-1]+frames[cut+1]+frames[cut+2], "truncated") {
				t.Errorf("frames:\n%s\nwant at %d:\n%s", strings.Join(frames, "\n"), cut, c.want)
			}
			var damage []string
			for _, d := range rec.damage {
				if !d.ByDesign {
					damage = append(damage, d.Reason+d.Lost)
				}
			}
			if got := strings.Join(damage, "\n"); got != c.damage {
				t.Errorf("damage %q, want %q", got, c.damage)
			}
		})
	}
}
