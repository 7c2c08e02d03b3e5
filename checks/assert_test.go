package checks_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
)

// assertionCapture: a task-based build (5 s to its terminal status), a
// two-hop multi round-trip deploy (10.5 s in all, 0.5 s of it in the
// server), a search answered 7 s after its cancellation, and a hung call.
func assertionCapture() string {
	var b strings.Builder
	seq := 0
	at := func(ms int, dir, raw string) {
		seq++
		ts := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond).Format(time.RFC3339Nano)
		fmt.Fprintf(&b, `{"session_id":"a1","server_label":"ops","seq":%d,"ts":%q,"direction":%q,"transport":"stdio","raw":%s}`+"\n", seq, ts, dir, raw)
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	at(0, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"build","task":{"ttl":60000}}}`)
	at(100, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"b-1","status":"working"}}}`)
	at(5000, "s2c", `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"b-1","status":"completed"}}`)
	at(6000, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy",`+meta+`}}`)
	at(6200, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"ok":{"method":"elicitation/create","params":{}}},"requestState":"st-1"}}`)
	at(16200, "c2s", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","requestState":"st-1","inputResponses":{"ok":{"action":"accept"}},`+meta+`}}`)
	at(16500, "s2c", `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}`)
	at(17000, "c2s", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search"}}`)
	at(18000, "c2s", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`)
	at(24000, "s2c", `{"jsonrpc":"2.0","id":4,"result":{"content":[]}}`)
	at(25000, "c2s", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hang"}}`)
	at(26000, "c2s", `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"wipe"}}`)
	// a task whose handle already reports it completed: measured once
	at(27000, "c2s", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"quick","task":{"ttl":1000}}}`)
	at(32000, "s2c", `{"jsonrpc":"2.0","id":6,"result":{"task":{"taskId":"q-1","status":"completed"}}}`)
	return b.String()
}

func runAssertions(t *testing.T, a engine.Assertions) map[string]result.Assertion {
	t.Helper()
	capture := assertionCapture()
	src := readers.Source{Name: "ops.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(capture)), nil }}
	gate, _ := result.ParseGate("none", All())
	res, err := engine.Run([]readers.Source{src}, engine.Config{Rules: All(), Gate: gate, Assertions: a})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]result.Assertion{}
	for _, as := range res.Sessions[0].Assertions {
		out[as.Name+" "+as.Arg] = as
	}
	if got, want := res.ExitCode == 1, func() bool {
		for _, as := range out {
			if !as.Passed {
				return true
			}
		}
		return false
	}(); got != want {
		t.Errorf("exit code %d does not follow the assertions", res.ExitCode)
	}
	return out
}

func dur(d time.Duration) *time.Duration { return &d }

func TestAssertions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		a      engine.Assertions
		key    string
		passed bool
		msg    string
	}{
		{"expect called", engine.Assertions{ExpectTools: []string{"deploy"}}, "expect-tool deploy", true, `tool "deploy" was called 2 times`},
		{"expect missing", engine.Assertions{ExpectTools: []string{"rollback"}}, "expect-tool rollback", false, `tool "rollback" was never called`},
		{"forbid called", engine.Assertions{ForbidTools: []string{"hang"}}, "forbid-tool hang", false, `forbidden tool "hang" was called 1 time, first at ops.jsonl:11`},
		{"forbid absent", engine.Assertions{ForbidTools: []string{"rm"}}, "forbid-tool rm", true, `not called`},
		{"forbid counts a null-id call", engine.Assertions{ForbidTools: []string{"wipe"}}, "forbid-tool wipe", false, `first at ops.jsonl:12`},
		// build (task) 5s, deploy (chain) 10.5s, search (late) 7s, quick (task) 5s; the hung call is skipped
		{"duration", engine.Assertions{MaxDuration: dur(4 * time.Second)}, "max-duration 4s", false,
			`4 tool calls took longer than 4s; the worst, tools/call "deploy" (id 2) at ops.jsonl:4, took 10.5s`},
		{"duration holds", engine.Assertions{MaxDuration: dur(11 * time.Second)}, "max-duration 11s", true, ""},
		{"duration is strict", engine.Assertions{MaxDuration: dur(10500 * time.Millisecond)}, "max-duration 10.5s", true, ""},
		// the deploy chain spent 0.2s + 0.3s in the server
		{"server duration", engine.Assertions{MaxServerDuration: dur(6 * time.Second)}, "max-server-duration 6s", false,
			`1 tool call spent longer in the server than 6s; the worst, tools/call "search" (id 4) at ops.jsonl:8, took 7s`},
		{"server duration of a chain", engine.Assertions{MaxServerDuration: dur(400 * time.Millisecond)}, "max-server-duration 400ms", false, `4 tool calls spent longer`},
		{"the user's time in a chain does not count", engine.Assertions{MaxServerDuration: dur(4900 * time.Millisecond)}, "max-server-duration 4.9s", false, `3 tool calls spent longer`},
		{"round trips", engine.Assertions{MaxRoundTrips: 1}, "max-round-trips 1", false,
			`1 tool call used more requests than 1; the worst, tools/call "deploy" (id 2) at ops.jsonl:4, used 2 requests`},
		{"round trips hold", engine.Assertions{MaxRoundTrips: 2}, "max-round-trips 2", true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, ok := runAssertions(t, c.a)[c.key]
			if !ok {
				t.Fatalf("no assertion %q", c.key)
			}
			if got.Passed != c.passed || !strings.Contains(got.Message, c.msg) {
				t.Errorf("passed %v %q; want %v and %q", got.Passed, got.Message, c.passed, c.msg)
			}
		})
	}
}

// A multi round-trip chain whose retries the recorder wrote before the
// input_required results that issued their state is the same operation as
// the chain in capture order: the same round trips, the same durations.
func TestRacedChainCountsAsInOrder(t *testing.T) {
	t.Parallel()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	call := func(id int, extra string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"deploy",%s%s}}`, id, extra, meta)
	}
	ask := func(id int, key, state string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"input_required","inputRequests":{%q:{"method":"elicitation/create","params":{}}},"requestState":%q}}`, id, key, state)
	}
	type row struct {
		ms       int
		dir, raw string
	}
	hops := []row{
		{0, "c2s", call(1, "")},
		{100, "s2c", ask(1, "confirm", "st-1")},
		{110, "c2s", call(2, `"requestState":"st-1","inputResponses":{"confirm":{"action":"accept"}},`)},
		{300, "s2c", ask(2, "region", "st-2")},
		{310, "c2s", call(3, `"requestState":"st-2","inputResponses":{"region":{"action":"accept","content":{"region":"eu"}}},`)},
		{600, "s2c", `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}`},
	}
	capture := func(rows []row) string {
		var b strings.Builder
		for i, r := range rows {
			ts := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(r.ms) * time.Millisecond).Format(time.RFC3339Nano)
			fmt.Fprintf(&b, `{"session_id":"c1","server_label":"ops","seq":%d,"ts":%q,"direction":%q,"transport":"stdio","raw":%s}`+"\n", i+1, ts, r.dir, r.raw)
		}
		return b.String()
	}
	// each retry written before the result it answers (timestamps unchanged)
	raced := []row{hops[0], hops[2], hops[1], hops[4], hops[3], hops[5]}
	a := engine.Assertions{MaxRoundTrips: 2, MaxDuration: dur(500 * time.Millisecond), MaxServerDuration: dur(100 * time.Millisecond)}
	results := func(c string) []result.Assertion {
		src := readers.Source{Name: "ops.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(c)), nil }}
		gate, _ := result.ParseGate("none", All())
		res, err := engine.Run([]readers.Source{src}, engine.Config{Rules: All(), Gate: gate, Assertions: a})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(res.Sessions[0].Findings); n != 0 {
			t.Errorf("%d findings, first: %s", n, res.Sessions[0].Findings[0].Message)
		}
		return res.Sessions[0].Assertions
	}
	inOrder, racedOut := results(capture(hops)), results(capture(raced))
	if len(inOrder) != 3 || len(racedOut) != 3 {
		t.Fatalf("assertions: %v / %v", inOrder, racedOut)
	}
	for i := range inOrder {
		if inOrder[i].Passed || inOrder[i] != racedOut[i] {
			t.Errorf("in order: %+v\nraced:    %+v", inOrder[i], racedOut[i])
		}
	}
	if want := `1 tool call used more requests than 2; the worst, tools/call "deploy" (id 1) at ops.jsonl:1, used 3 requests`; inOrder[2].Message != want {
		t.Errorf("round trips: %q", inOrder[2].Message)
	}
}
