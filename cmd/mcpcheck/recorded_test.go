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
