package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// recordedTraffic is what each scenario recorded under
// testdata/recorders (record.mjs) holds, rule → findings: the same on every
// writer's HAR and on the envelope recording of the same traffic.
var recordedTraffic = map[string]map[string]int{
	// the SDK server's tools declare draft-07 schemas (a note per tool)
	"clean":    {"schema-construct": 4},
	"progress": {"schema-construct": 4},
	// fail (isError), an unknown tool (isError plus unknown-tool), a
	// string argument given a number (isError plus input-schema)
	"tool-errors": {"schema-construct": 4, "tool-error": 3, "unknown-tool": 1, "input-schema": 1},
	// the same from a server answering application/json; profile=jsonrpc
	// in one JSON body: playwright writes the answers in base64, its
	// "encoding" after their "text"
	"typed-json": {"schema-construct": 4, "tool-error": 3, "unknown-tool": 1, "input-schema": 1},
	// sampling and elicitation answered by the page with new POSTs: no
	// pending or unmatched frame, only sampling's deprecation note
	"server-requests": {"deprecated-feature": 1},
	// the 2025 server's 400 to the server/discover probe is the fallback
	// working, not a finding
	"version-probe": {"schema-construct": 4},
	// a ping sent without _meta, rejected (-32602, HTTP 400); one isError
	"routing-2026": {"jsonrpc-error": 1, "meta-required": 1, "modern-removed": 1, "tool-error": 1},
}

// The HARs real writers made of real traffic (Debian's chromium through
// chrome-har and through playwright's recordHar, mitmdump's har_dump) find
// what the envelope recording of the same exchanges finds.
func TestRecordedHARsFindWhatTheirEnvelopesFind(t *testing.T) {
	t.Parallel()
	hars, err := filepath.Glob(testdata("recorders/har/*.har"))
	if err != nil || len(hars) < 17 {
		t.Fatalf("recorded HARs: %v %v, want every scenario of every writer", hars, err)
	}
	writers := map[string]int{}
	for _, har := range hars {
		base := strings.TrimSuffix(filepath.Base(har), ".har")
		scenario, writer, _ := strings.Cut(base, ".")
		writers[writer]++
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			want, ok := recordedTraffic[scenario]
			if !ok {
				t.Fatalf("no expectation for scenario %q", scenario)
			}
			got := sameFindings(t, defaultCommand(), har, strings.TrimSuffix(har, ".har")+".jsonl", "har")
			rules := map[string]int{}
			for k, n := range got.counts {
				if rule := strings.Fields(k)[0]; rule != "baseline" {
					rules[rule] += n
				}
			}
			assertCounts(t, rules, want)
		})
	}
	for _, w := range []string{"chrome-har", "playwright", "mitmproxy"} {
		if writers[w] == 0 {
			t.Errorf("no HAR written by %s", w)
		}
	}
}

// mcpsnoop's call-level HAR records no notifications by design: their
// absence is nothing unreadable (no truncated-capture), and the handshake
// rule does not judge what the format cannot hold (no lifecycle).
func TestCallLevelHARIsNotDamaged(t *testing.T) {
	t.Parallel()
	got := checkFindings(t, defaultCommand(), formatFixture("har/mcpsnoop-export.har"))
	for k := range got.counts {
		if rule := strings.Fields(k)[0]; rule == "truncated-capture" || rule == "lifecycle" || rule == "unread-capture" {
			t.Errorf("the call-level export gives %s: %s", rule, got)
		}
	}
	if got.counts["tool-error tools/call read_text_file"] != 1 {
		t.Errorf("the export's traffic is still judged: %s", got)
	}
}

// mcpsnoop itself (built here from its repository) in front of the
// TypeScript SDK's stdio server, driven by the SDK's client: its session
// log, with the "meta" record it writes first, and its own call-level HAR
// export of that log (mcpsnoop export -T har) find the same, and the export,
// which keeps no notifications and no ids, is read as nothing damaged.
func TestMcpsnoopRecordingAndItsExport(t *testing.T) {
	t.Parallel()
	dir := testdata("recorders/mcpsnoop")
	got := sameFindings(t, defaultCommand(), filepath.Join(dir, "session.har"), filepath.Join(dir, "session.jsonl"), "har")
	rules := map[string]int{}
	for k, n := range got.counts {
		rules[strings.Fields(k)[0]] += n
	}
	// draft-07 schemas of the SDK's three tools, read_note's isError
	assertCounts(t, rules, map[string]int{"schema-construct": 3, "tool-error": 1})
	if got.counts["tool-error tools/call read_note"] != 1 {
		t.Errorf("the isError call is not read_note's: %s", got)
	}
}

// The same server and client recorded by two tees into one file, as a
// user records a stdio server without a proxy: plain JSON-RPC whose
// directions are all inferred (no invalid-envelope), finding what
// mcpsnoop's log of the same scenario finds.
func TestTeeRecordingFindsWhatMcpsnoopFinds(t *testing.T) {
	t.Parallel()
	dir := testdata("recorders/mcpsnoop")
	got := sameFindings(t, defaultCommand(), filepath.Join(dir, "tee.ndjson"), filepath.Join(dir, "session.jsonl"), "jsonrpc")
	if got.counts["tool-error tools/call read_note"] != 1 {
		t.Errorf("the tee's isError call: %s", got)
	}
}

// The caches mcp-rewind wrote in front of real servers (record-rewind.mjs)
// find what the envelope recording of the same exchanges finds, but for
// what mcp-rewind does not keep, spelled out per cache: the body and status
// of an answer that was not 2xx (an empty answer file, no head file), and
// the exchanges a second run skips as already cached.
func TestRecordedRewindCachesFindWhatTheirEnvelopesFind(t *testing.T) {
	t.Parallel()
	notKept := "truncated-capture damaged envelope"
	cases := []struct {
		cache string
		// what the cache finds that the envelopes do not (> 0), and the
		// reverse (< 0)
		differ map[string]int
		want   map[string]int // rule → findings on the cache, pinned
	}{
		{"clean", nil, map[string]int{"schema-construct": 4}},
		// three JSON-RPC errors, all in unnamed files but resources/list's
		{"rpc-errors", nil, map[string]int{"schema-construct": 4, "jsonrpc-error": 3, "capability": 1, "log-level": 1, "deprecated-feature": 1}},
		// the page's answers to sampling and elicitation are unnamed POSTs
		{"server-requests", nil, map[string]int{"deprecated-feature": 1}},
		// the refused ping (HTTP 400) left an empty answer file
		{"routing-2026", map[string]int{notKept: 1, "jsonrpc-error ping": -1},
			map[string]int{"meta-required": 1, "modern-removed": 1, "tool-error": 1, "truncated-capture": 1}},
		// the second run's initialize and tools/list were already cached,
		// so they were forwarded but not written: the calls of its session
		// cannot be judged against its catalogue
		{"second-run", map[string]int{"input-schema tools/call echo": -1, "unknown-tool tools/call nope": -1,
			"schema-construct tool ask nonDefaultDialect": -1, "schema-construct tool countdown nonDefaultDialect": -1,
			"schema-construct tool echo nonDefaultDialect": -1, "schema-construct tool fail nonDefaultDialect": -1},
			map[string]int{"schema-construct": 4, "tool-error": 3}},
		// replayed with record fallback: initialize came from the cache
		// under a session id the server never gave, so the server refused
		// the next call (HTTP 400) and mcp-rewind kept nothing of it
		{"hybrid", map[string]int{notKept: 1, "jsonrpc-error tools/call fail": -1},
			map[string]int{"schema-construct": 4, "truncated-capture": 1}},
	}
	for _, c := range cases {
		t.Run(c.cache, func(t *testing.T) {
			t.Parallel()
			dir := testdata("recorders/rewind/" + c.cache)
			got := checkFindings(t, defaultCommand(), dir, "--input-format", "mcp-rewind")
			want := checkFindings(t, defaultCommand(), dir+".jsonl")
			for _, set := range []findingSet{got, want} {
				for k := range set.counts {
					if strings.HasPrefix(k, "baseline ") {
						delete(set.counts, k) // the drift baseline each session records
					}
				}
			}
			for k, n := range c.differ {
				want.counts[k] += n
				if want.counts[k] == 0 {
					delete(want.counts, k)
				}
			}
			if got.String() != want.String() {
				t.Errorf("the cache finds\n  %s\nthe envelopes, with what mcp-rewind does not keep, find\n  %s", got, want)
			}
			rules := map[string]int{}
			for k, n := range got.counts {
				rules[strings.Fields(k)[0]] += n
			}
			assertCounts(t, rules, c.want)
		})
	}
}
