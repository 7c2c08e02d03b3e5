package readers

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// A record that keeps a request's params as its body only (a LogRocket
// event, single or in a batch; a call of mcpsnoop's HAR export) makes its
// request around them where they were read, as its answer is made around
// the result: reading one with 8 MiB of tool arguments allocates what the
// same record with an 8 MiB answer does. Copied into a buffer grown to
// the request, it was 8 to 16 MiB more.
func TestLargeParamsAreHeldOnce(t *testing.T) {
	const size = 8 << 20
	const args = `{"name":"dump","arguments":{"data":"%s"}}`
	const answer = `{"content":[{"type":"text","text":"%s"}],"isError":true}`
	fill := func(text string, n int) string { return strings.Replace(text, "%s", strings.Repeat("a", n), 1) }
	initialize := lrEv(1, "initialize", `"params":{"protocolVersion":"2025-06-18","capabilities":{}},"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{}}},`)
	event := func(params, value int) string {
		return lrEv(2, "tools/call", `"params":`+fill(args, params)+`,"result":{"value":`+fill(answer, value)+`,"isError":true},`)
	}
	batch := func(params, value int) string {
		return `{"appID":"a","sdk":{"name":"logrocket-mcp-replay-go"},"events":[` + initialize + "," + event(params, value) + "]}\n"
	}
	call := func(params, value int) string {
		quoted := func(text string, n int) string { return fmt.Sprintf("%q", fill(text, n)) } // ASCII: Go's quoting is JSON's
		return `{"log":{"version":"1.2","creator":{"name":"mcpsnoop","version":"1"},"entries":[` +
			`{"startedDateTime":"2026-09-01T10:00:01.000Z","time":5,"request":{"method":"POST","url":"mcp://big/tools/call/dump","headers":[],` +
			`"postData":{"mimeType":"application/json","text":` + quoted(args, params) + `}},` +
			`"response":{"status":500,"statusText":"","headers":[],"content":{"mimeType":"application/json","text":` + quoted(answer, value) + `}}}]}}` + "\n"
	}
	for _, c := range []struct {
		name, file string
		doc        func(params, value int) string
		id         string // the call's: LogRocket's count the initialize before it
	}{
		{"a single LogRocket event", "events.logrocket.jsonl", func(p, v int) string { return lines(initialize, event(p, v)) }, "2"},
		{"a LogRocket event in a batch", "events.logrocket.json", batch, "2"},
		{"a call of mcpsnoop's HAR export", "calls.har", call, "1"},
	} {
		allocated := func(doc []byte, probe *answerProbe) uint64 {
			read := func() {
				if err := Read(c.file, bytes.NewReader(doc), probe, Options{}); err != nil {
					t.Fatalf("%s: Read: %v", c.name, err)
				}
			}
			read() // warm: what a first read sets up once
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			read()
			runtime.ReadMemStats(&after)
			return after.TotalAlloc - before.TotalAlloc
		}
		requests := &answerProbe{requests: true}
		params := allocated([]byte(c.doc(size, 1)), requests)
		requests.wantAnswer(t, `{"jsonrpc":"2.0","id":`+c.id+`,"method":"tools/call","params":`, args, size)
		answers := &answerProbe{}
		result := allocated([]byte(c.doc(1, size)), answers)
		answers.wantAnswer(t, `{"jsonrpc":"2.0","id":`+c.id+`,"result":`, answer, size)
		if params > result+size/8 {
			t.Errorf("%s: reading %d MiB of tool arguments allocated %.1f MiB, an answer of that size %.1f MiB", c.name, size>>20, float64(params)/(1<<20), float64(result)/(1<<20))
		}
		t.Logf("%s: %.1f MiB allocated, for an answer of that size %.1f MiB", c.name, float64(params)/(1<<20), float64(result)/(1<<20))
	}
}

// A request written around its params in the bytes they were read in
// leaves its answer's value whole, wherever it lies: just after the
// params (the answer is then written over the request's end, handed on
// by then), just before them, or in a buffer of its own (a single event),
// with the recorded id written over, the method after the params, white
// space about them, and a tiny read buffer that overwrites what a reader
// keeps of a reused one.
func TestParamsWrittenInPlaceLeaveTheAnswer(t *testing.T) {
	t.Parallel()
	big := `{"name":"a","arguments":{"q":"` + strings.Repeat("q", 200) + `"}}`
	value := `{"content":[{"type":"text","text":"` + strings.Repeat("v", 200) + `"}]}`
	events := []string{
		lrEv(1, "tools/call", `"requestID":7,"params":`+big+`,"result":{"value":{"content":[]}},`),
		lrEv(2, "tools/call", `"requestID":"r-8","params":{"name":"b"},"result":{"value":`+value+`},`),
		lrEv(3, "tools/call", `"result":{"value":{"content":[]}},"requestID":9,"params":`+big+`,`),
		lrEv(4, "tools/call", `"params": `+big+` ,"result":{ "value" : `+value+` },`),
		`{"type":"mcp_request","startTime":1788858000500,"durationMs":4,"params":` + big + `,"method":"tools/call","result":{"value":{"content":[]}},"instanceID":"inst-1","seq":5}`,
	}
	want := strings.Join([]string{
		`inst-1 c2s 0 {"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + big + `}`,
		`inst-1 s2c 0 {"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
		`inst-1 c2s 0 {"jsonrpc":"2.0","id":"r-8","method":"tools/call","params":{"name":"b"}}`,
		`inst-1 s2c 0 {"jsonrpc":"2.0","id":"r-8","result":` + value + `}`,
		`inst-1 c2s 0 {"jsonrpc":"2.0","id":9,"method":"tools/call","params":` + big + `}`,
		`inst-1 s2c 0 {"jsonrpc":"2.0","id":9,"result":{"content":[]}}`,
		`inst-1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + big + `}`,
		`inst-1 s2c 0 {"jsonrpc":"2.0","id":1,"result":` + value + `}`,
		`inst-1 c2s 0 {"jsonrpc":"2.0","id":2,"method":"tools/call","params":` + big + `}`,
		`inst-1 s2c 0 {"jsonrpc":"2.0","id":2,"result":{"content":[]}}`,
	}, "\n")
	for _, c := range []struct {
		name string
		doc  string
		o    Options
	}{
		{"single events", lines(events...), Options{}},
		{"single events, a tiny read buffer", lines(events...), Options{ReadBuffer: 16}},
		{"a batch", `{"appID":"a","sdk":{"name":"logrocket-mcp-replay-go"},"events":[` + strings.Join(events, ",") + "]}\n", Options{}},
		{"a batch, a tiny read buffer", `{"appID":"a","sdk":{"name":"logrocket-mcp-replay-go"},"events":[` + strings.Join(events, ",") + "]}\n", Options{ReadBuffer: 16}},
	} {
		rec := &recorder{}
		if err := Read("events.logrocket.json", strings.NewReader(c.doc), rec, c.o); err != nil {
			t.Fatalf("%s: Read: %v", c.name, err)
		}
		if got := frameSummary(rec); got != want {
			t.Errorf("%s: frames:\n%s\nwant:\n%s", c.name, got, want)
		}
	}
}

// The same for calls of mcpsnoop's HAR export: the answer's body after the
// params or before them (a writer that puts the response first), larger
// or smaller than they are, and so close before them that the request's
// start would be written over it.
func TestCallParamsWrittenInPlaceLeaveTheAnswer(t *testing.T) {
	t.Parallel()
	big := `{"name":"a","arguments":{"q":"` + strings.Repeat("q", 200) + `"}}`
	value := `{"content":[{"type":"text","text":"` + strings.Repeat("v", 200) + `"}]}`
	request := func(params string) string {
		return fmt.Sprintf(`"request":{"method":"POST","url":"mcp://big/tools/call/a","headers":[],"postData":{"mimeType":"application/json","text":%q}}`, params)
	}
	response := func(body string) string {
		return fmt.Sprintf(`"response":{"status":200,"statusText":"","headers":[],"content":{"mimeType":"application/json","text":%q}}`, body)
	}
	entry := func(first, second string) string {
		return `{"startedDateTime":"2026-09-01T10:00:01.000Z","time":5,` + first + "," + second + "}"
	}
	doc := `{"log":{"version":"1.2","creator":{"name":"mcpsnoop","version":"1"},"entries":[` + strings.Join([]string{
		entry(request(big), response(`{"content":[]}`)),
		entry(request(`{"name":"b"}`), response(value)),
		entry(response(`{"content":[]}`), request(big)),
		entry(response(value), request(big)),
		`{"response":{"status":200,"content":{"text":"{}"}},"request":{"postData":{"text":` + fmt.Sprintf("%q", big) + `},"method":"POST","url":"mcp://big/tools/call/a"}}`,
	}, ",") + "]}}\n"
	want := strings.Join([]string{
		`big c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + big + `}`,
		`big s2c 0 {"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`big c2s 0 {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}`,
		`big s2c 0 {"jsonrpc":"2.0","id":2,"result":` + value + `}`,
		`big c2s 0 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":` + big + `}`,
		`big s2c 0 {"jsonrpc":"2.0","id":3,"result":{"content":[]}}`,
		`big c2s 0 {"jsonrpc":"2.0","id":4,"method":"tools/call","params":` + big + `}`,
		`big s2c 0 {"jsonrpc":"2.0","id":4,"result":` + value + `}`,
		`big c2s 0 {"jsonrpc":"2.0","id":5,"method":"tools/call","params":` + big + `}`,
		`big s2c 0 {"jsonrpc":"2.0","id":5,"result":{}}`,
	}, "\n")
	for _, o := range []Options{{}, {ReadBuffer: 16}} {
		rec := &recorder{}
		if err := Read("calls.har", strings.NewReader(doc), rec, o); err != nil {
			t.Fatalf("Read: %v", err)
		}
		if got := frameSummary(rec); got != want {
			t.Errorf("read buffer %d: frames:\n%s\nwant:\n%s", o.ReadBuffer, got, want)
		}
	}
}
