package readers

import (
	"fmt"
	"strings"
	"testing"
)

// Single LogRocket events: a RequestEvent that is an object of its own (on
// its line, or in an array) rather than one of a batch's events.

// A single event's answer is written around its result's value in the
// buffer the result was read into, after room for the answer's start
// (the recorded id when it comes first, else one mcpcheck counts): the
// frames are those the same events make in a batch, with a long id before
// the result or after it (then the value is copied), white space about
// the value, and a tiny read buffer that overwrites what a reader keeps of
// a reused one.
func TestLogRocketSingleEventsAnswerAsInABatch(t *testing.T) {
	t.Parallel()
	long := `"` + strings.Repeat("id-", 40) + `"`
	events := []string{
		lrEv(1, "initialize", `"requestID":"r-1","params":{"protocolVersion":"2025-06-18","capabilities":{}},"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{}}},`),
		lrEv(2, "tools/call", `"requestID":`+long+`,"params":{"name":"a"},"result":{"value":{"content":[{"type":"text","text":"before"}],"isError":true},"isError":true},`),
		lrEv(3, "tools/call", `"params":{"name":"b"},"result": { "value" : {"content":[{"type":"text","text":"after"}]} },"requestID":`+long+`,`),
		lrEv(4, "tools/call", `"params":{"name":"c"},"result":{"value":{"content":[]}},`),
	}
	want := strings.Join([]string{
		`inst-1 c2s 0 {"jsonrpc":"2.0","id":"r-1","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
		`inst-1 s2c 0 {"jsonrpc":"2.0","id":"r-1","result":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
		`inst-1 c2s 0 {"jsonrpc":"2.0","id":` + long + `,"method":"tools/call","params":{"name":"a"}}`,
		`inst-1 s2c 0 {"jsonrpc":"2.0","id":` + long + `,"result":{"content":[{"type":"text","text":"before"}],"isError":true}}`,
		`inst-1 c2s 0 {"jsonrpc":"2.0","id":` + long + `,"method":"tools/call","params":{"name":"b"}}`,
		`inst-1 s2c 0 {"jsonrpc":"2.0","id":` + long + `,"result":{"content":[{"type":"text","text":"after"}]}}`,
		`inst-1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"c"}}`,
		`inst-1 s2c 0 {"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
	}, "\n")
	for _, c := range []struct {
		name string
		doc  string
		o    Options
	}{
		{"single events", lines(events...), Options{}},
		{"single events, a tiny read buffer", lines(events...), Options{ReadBuffer: 16}},
		{"a batch", `{"appID":"a","sdk":{"name":"logrocket-mcp-replay-go"},"events":[` + strings.Join(events, ",") + "]}\n", Options{}},
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

// A single event past MaxEnvelope, in one member or in all of them
// together, is read as far as the limit allows, as an event of a batch is
// (spec §2.1, fail closed): its members before the limit, and the one it
// cuts closed where it was cut (a value cut in half left out), its last
// frame marked past the limit, so that an isError flag or an error code
// before the cut is judged. Skipped, it failed the gate without them;
// read without what the limit left out, before that, its isError answer
// became an empty result that passed. When its first bytes hold no
// RequestEvent, it is damage on its own line. The next event is read.
func TestLogRocketSingleEventPastTheSizeLimit(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("a", 8192)
	const problem = " | past the size limit: the event is larger than the 4096 bytes mcpcheck reads: what follows its first 4096 bytes was left out, the rest was judged | truncated"
	const skipped = "an event of more than 4096 bytes was skipped: its first 4096 bytes hold no RequestEvent"
	initialize := lrEv(1, "initialize", `"params":{"protocolVersion":"2025-06-18","capabilities":{}},"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{}}},`)
	after := lrEv(3, "ping", `"result":{"value":{}},`)
	for _, c := range []struct {
		name, event string
		want        []string // the cut event's frames
		damage      string
	}{
		{"isError before the cut", lrEv(2, "tools/call", `"params":{"name":"dump"},"result":{"isError":true,"value":{"content":[{"type":"text","text":"`+pad+`"}],"isError":true}},`),
			[]string{`events.logrocket.jsonl c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump"}}`,
				`events.logrocket.jsonl s2c 0 {"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text"}]}}` + problem}, ""},
		{"isError in the value before the cut", lrEv(2, "tools/call", `"params":{"name":"dump"},"result":{"value":{"isError":true,"content":[{"type":"text","text":"`+pad+`"}]}},`),
			[]string{`events.logrocket.jsonl c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump"}}`,
				`events.logrocket.jsonl s2c 0 {"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text"}]}}` + problem}, ""},
		{"the limit reached by all the members together", lrEv(2, "tools/call", `"params":{"name":"dump","arguments":{"q":"`+pad[:2500]+`"}},"result":{"isError":true,"value":{"content":[{"type":"text","text":"`+pad[:2500]+`"}]}},`),
			[]string{`events.logrocket.jsonl c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump","arguments":{"q":"` + pad[:2500] + `"}}}`,
				`events.logrocket.jsonl s2c 0 {"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text"}]}}` + problem}, ""},
		{"an error before the cut", lrEv(2, "tools/call", `"params":{"name":"dump"},"errorMessage":"boom","errorCode":-32603,"pad":"`+pad+`",`),
			[]string{`events.logrocket.jsonl c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump"}}`,
				`events.logrocket.jsonl s2c 0 {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}` + problem}, ""},
		{"the answer past the cut", lrEv(2, "tools/call", `"params":{"name":"upload","arguments":{"blob":"`+pad+`"}},"result":{"isError":true,"value":{}},`),
			[]string{`events.logrocket.jsonl c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upload","arguments":{}}}` + problem},
			"the answer lies past the first 4096 bytes of this event, the most mcpcheck reads"},
		{"no RequestEvent before the cut", `{"type":"mcp_request","pad":"` + pad + `","startTime":1788858000200,"durationMs":4,"method":"tools/call","instanceID":"inst-1","seq":2}`,
			nil, skipped + tooLargeLost("an event", 4096)},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, o := range []Options{{MaxEnvelope: 4096}, {MaxEnvelope: 4096, ReadBuffer: 16}} {
				rec := &recorder{}
				if err := Read("events.logrocket.jsonl", strings.NewReader(lines(initialize, c.event, after)), rec, o); err != nil {
					t.Fatal(err)
				}
				want := append(append([]string{
					`inst-1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
					`inst-1 s2c 0 {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
				}, c.want...),
					`inst-1 c2s 0 {"jsonrpc":"2.0","id":2,"method":"ping"}`,
					`inst-1 s2c 0 {"jsonrpc":"2.0","id":2,"result":{}}`)
				var lineOf []int
				for _, f := range rec.frames {
					lineOf = append(lineOf, f.Line)
				}
				if got := overLimitFrames(rec); got != strings.Join(want, "\n") {
					t.Errorf("read buffer %d: frames:\n%s\nwant:\n%s", o.ReadBuffer, got, strings.Join(want, "\n"))
				}
				if wantLines := fmt.Sprint(append(append([]int{1, 1}, repeatInt(2, len(c.want))...), 3, 3)); fmt.Sprint(lineOf) != wantLines {
					t.Errorf("read buffer %d: frames on lines %v, want %s", o.ReadBuffer, lineOf, wantLines)
				}
				var damage []string
				for _, d := range rec.damage {
					if !d.ByDesign {
						damage = append(damage, fmt.Sprintf("%d: %s%s", d.Line, d.Reason, d.Lost))
					}
				}
				wantDamage := ""
				if c.damage != "" {
					wantDamage = "2: " + c.damage
				}
				if got := strings.Join(damage, "\n"); got != wantDamage {
					t.Errorf("read buffer %d: damage %q, want %q", o.ReadBuffer, got, wantDamage)
				}
			}
		})
	}
}

// repeatInt is n copies of v.
func repeatInt(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}
