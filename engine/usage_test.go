package engine

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
)

// smallCapture is one run of a client against the db server: a listing of
// two tools and one call of run_query with arguments of its own, which
// fails in every seventh capture.
func smallCapture(i int) string {
	var b strings.Builder
	env := func(seq int, dir, raw string) {
		fmt.Fprintf(&b, `{"session_id":"run-%d","server_label":"db","seq":%d,"ts":"2026-09-01T10:00:0%d.000Z","direction":%q,"transport":"stdio","raw":%s}`+"\n", i, seq, seq, dir, raw)
	}
	env(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`)
	env(2, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"db","version":"1"}}}`)
	env(3, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	env(4, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	env(5, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"run_query","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}},{"name":"explain","inputSchema":{"type":"object"}}]}}`)
	env(6, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"select %d"}}}`, i))
	isError := i%7 == 0
	env(7, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}],"isError":%t}}`, isError))
	return b.String()
}

// A run over 10,000 captures keeps per-label counters and a capped set of
// argument records: what it holds afterwards is counted in bytes, and the
// cap is said.
func TestUsageOverTenThousandCaptures(t *testing.T) {
	const n, cap = 10_000, 1_000
	sources := make([]readers.Source, n)
	for i := range sources {
		text := smallCapture(i)
		sources[i] = readers.Source{Name: fmt.Sprintf("run-%05d.jsonl", i), Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(text)), nil }}
	}
	gate, _ := result.ParseGate("none", checks.All())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Run(sources, Config{Gate: gate, MaxArgumentHashes: cap})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	runtime.GC()
	runtime.ReadMemStats(&after)
	u := res.Usage
	if u.Captures != n || !u.CapReached || u.ArgumentHashes != cap || len(u.Servers) != 1 {
		t.Fatalf("usage %d captures, cap reached %v, %d hashes, %d servers", u.Captures, u.CapReached, u.ArgumentHashes, len(u.Servers))
	}
	sv := u.Servers[0]
	if sv.Sessions != n || sv.Tools.Advertised != 2 || sv.Tools.Succeeded != 1 || sv.Tools.NeverCalled[0] != "explain" {
		t.Errorf("server %+v", sv.Tools)
	}
	q := sv.ToolStats[1]
	wantErr := int64((n + 6) / 7)
	if q.Name != "run_query" || q.Calls != n || q.Errors["tool-error"] != wantErr || q.Captures != n || q.Latency.Count != n {
		t.Errorf("run_query %+v", q)
	}
	if len(sv.Flaky) != 0 {
		t.Errorf("distinct arguments cannot be flaky: %d", len(sv.Flaky))
	}
	// Session results past the result budget are on disk; what is left is
	// the usage (a few hundred bytes a tool, 50 an argument record).
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 4<<20 {
		t.Errorf("a run over %d captures holds %d bytes afterwards", n, grew)
	}
}

// Flaky calls are found and placed alike whether the failing sessions'
// results are in memory or read back from the spill file.
func TestFlakyCallsOfSpilledSessions(t *testing.T) {
	t.Parallel()
	const n = 60
	sources := make([]readers.Source, n)
	for i := range sources {
		// two captures a pair share their arguments; every seventh fails
		text := strings.Replace(smallCapture(i), fmt.Sprintf("select %d", i), fmt.Sprintf("select %d", i/2), 1)
		sources[i] = readers.Source{Name: fmt.Sprintf("run-%02d.jsonl", i), Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(text)), nil }}
	}
	gate, _ := result.ParseGate("none", checks.All())
	flaky := func(limits Limits) []string {
		res, err := Run(sources, Config{Rules: checks.All(), Gate: gate, Limits: limits})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		var out []string
		for s := range res.AllSessions() {
			for _, f := range s.Findings {
				if f.Rule == "flaky-call" {
					out = append(out, fmt.Sprintf("%s %s:%d %s %s gated=%v", s.ID, f.File, f.Line, f.Subject, f.Fingerprint, f.Gated))
				}
			}
		}
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	inMemory, spilled := flaky(Limits{}), flaky(SpillEverything())
	if want := 9; len(inMemory) != want { // the multiples of 7 below 60, each with a sibling that succeeded
		t.Errorf("%d flaky-call findings, want %d:\n%s", len(inMemory), want, strings.Join(inMemory, "\n"))
	}
	if strings.Join(inMemory, "\n") != strings.Join(spilled, "\n") {
		t.Errorf("in memory:\n%s\nspilled:\n%s", strings.Join(inMemory, "\n"), strings.Join(spilled, "\n"))
	}
}
