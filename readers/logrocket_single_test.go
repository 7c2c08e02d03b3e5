package readers

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
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
// together, is skipped as an event of a batch is, and fails the gate
// (spec §2.1): read without what the limit left out, its isError answer
// became an empty result that passed. The next event is read.
func TestLogRocketLargeSingleEventIsDamageOnItsLine(t *testing.T) {
	t.Parallel()
	answer := func(n int) string {
		return `"result":{"value":{"content":[{"type":"text","text":"` + strings.Repeat("a", n) + `"}],"isError":true},"isError":true},`
	}
	for _, c := range []struct{ name, rest string }{
		{"one member", `"params":{"name":"dump"},` + answer(8192)},
		{"all of them", `"params":{"name":"dump","arguments":{"q":"` + strings.Repeat("q", 2500) + `"}},` + answer(2500)},
	} {
		doc := lines(
			lrEv(1, "initialize", `"params":{"protocolVersion":"2025-06-18","capabilities":{}},"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{}}},`),
			lrEv(2, "tools/call", c.rest),
			lrEv(3, "tools/list", `"result":{"value":{"tools":[]}},`))
		rec := &recorder{}
		if err := Read("events.logrocket.jsonl", strings.NewReader(doc), rec, Options{MaxEnvelope: 4096}); err != nil {
			t.Fatal(err)
		}
		var lines []int
		for _, f := range rec.frames {
			lines = append(lines, f.Line)
		}
		if fmt.Sprint(lines) != "[1 1 3 3]" {
			t.Errorf("%s: frames on lines %v, want the events of lines 1 and 3", c.name, lines)
		}
		var skipped []session.Damage
		for _, d := range rec.damage {
			if !d.ByDesign {
				skipped = append(skipped, d)
			}
		}
		if len(skipped) != 1 || skipped[0].Line != 2 || skipped[0].Reason != "an event of more than 4096 bytes was skipped" || skipped[0].Lost != tooLargeLost("an event", 4096) {
			t.Errorf("%s: damage %+v, want one on line 2 that fails the gate", c.name, skipped)
		}
	}
}
