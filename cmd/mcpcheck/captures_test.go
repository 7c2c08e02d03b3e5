package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/session"

	"github.com/mcpcheck/mcpcheck/internal/sharedtest"
)

// sharedCapture is a real capture recorded from a published MCP server; it
// lives beside the repository (../shared/captures) and is absent on a
// user's fresh clone, where the test skips: the patterns it proves are also
// covered by the project's own testdata/.
func sharedCapture(t *testing.T, name string) string {
	t.Helper()
	return sharedtest.Path(t, "captures/"+name)
}

// TestRealCaptures: each capture exits as its traffic warrants under the
// default gate, with exactly these findings and no false alarms.
func TestRealCaptures(t *testing.T) {
	cases := []struct {
		file string
		code int
		want map[string]int
	}{
		{"02-filesystem-stdio-clean.jsonl", 0, map[string]int{}},
		{"03-filesystem-stdio-iserror.jsonl", 1, map[string]int{"tool-error": 9}},
		// a deliberate call of "no-such-tool" is also unknown-tool; the
		// client's deliberate mistakes are protocol findings too: tools/call
		// without a name (request-params), the log level "loudest"
		// (log-level), an invented cursor (cursor); logging/setLevel is
		// deprecated-feature
		{"05-everything-protocol-errors.jsonl", 1, map[string]int{"jsonrpc-error": 8, "tool-error": 4, "unknown-tool": 1,
			"request-params": 1, "log-level": 1, "cursor": 1, "deprecated-feature": 1}},
		{"07-schema-notion-toolslist.jsonl", 0, map[string]int{}},
		// the id-2 answer recorded before its request pairs silently
		{"09-drift-filesystem-old-2025.1.14.jsonl", 0, map[string]int{}},
		{"10-drift-filesystem-new-2026.8.31.jsonl", 0, map[string]int{}},
		// two calls cancelled and never answered: neither pending nor late
		{"14-cancel-abortsignal.jsonl", 0, map[string]int{}},
		{"16-invalid-frames-bad-transport-arg.jsonl", 1, map[string]int{"invalid-frame": 4, "pending-request": 1}},
		// answers and a cancellation on other connections pair; Logging
		// (logging/setLevel, notifications/message ×4), Sampling and Roots
		// (roots/list ×2) are deprecated-feature, each kind once
		{"18-http-everything-streamable-tsclient.jsonl", 1, map[string]int{"jsonrpc-error": 1, "deprecated-feature": 4}},
		// id-less HTTP 400 errors pair with the request of the same exchange
		// (and its deliberate call of "no-such-tool" is unknown-tool); the
		// client sent logging/setLevel and ping without the required _meta
		// under 2026-07-28 (its MCP-Protocol-Version header says so): both
		// lack the fields and both were removed in 2026-07-28;
		// logging/setLevel is also deprecated-feature
		{"20-http-2026-mcp-proxy-goclient.jsonl", 1, map[string]int{"jsonrpc-error": 2, "tool-error": 1, "unknown-tool": 1, "meta-required": 2, "modern-removed": 2, "deprecated-feature": 1}},
		// the rejected server/discover probe is negotiation; only isError fails
		{"24-sequential-thinking-goclient.jsonl", 1, map[string]int{"tool-error": 1}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := sharedCapture(t, c.file)
			code, out, errs := invoke(t, "", path)
			if code != c.code || errs != "" {
				t.Errorf("exit %d (want %d), stderr %q\n%s", code, c.code, errs, out)
			}
			assertCounts(t, ruleCounts(t, path), c.want)
		})
	}
}

func TestRealCaptureGates(t *testing.T) {
	path := sharedCapture(t, "16-invalid-frames-bad-transport-arg.jsonl")
	code, out, _ := invoke(t, "", "--fail-on", "pending", path)
	if code != 1 || !strings.Contains(out, "check failed: pending") || strings.Count(out, "(pending-request)") != 1 {
		t.Errorf("--fail-on pending: exit %d\n%s", code, out)
	}
	path = sharedCapture(t, "24-sequential-thinking-goclient.jsonl")
	_, out, _ = invoke(t, "", path)
	if strings.Contains(out, "server/discover") || strings.Count(out, "[error]") != 1 {
		t.Errorf("the version probe failed the gate:\n%s", out)
	}
}

// TestRealCapture2026 pins where the 2026-07-28 findings of the Go client's
// capture sit: on the two requests sent without _meta (logging/setLevel and
// ping), whose -32602 answers stay JSON-RPC errors; no routing header
// disagrees and nothing is left pending.
func TestRealCapture2026(t *testing.T) {
	path := sharedCapture(t, "20-http-2026-mcp-proxy-goclient.jsonl")
	srcs, err := session.Resolve([]string{path}, nil, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	gate, _ := checks.ParseGate(checks.DefaultGate, checks.All())
	res, err := checks.Run(srcs, checks.Config{Rules: checks.All(), Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string][]int{}
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			lines[f.Rule] = append(lines[f.Rule], f.Line)
		}
	}
	// line 25: logging/setLevel, 26: its 400 answer; 34: ping, 35: its answer
	for rule, want := range map[string][]int{
		"meta-required":   {25, 34},
		"modern-removed":  {25, 34},
		"jsonrpc-error":   {26, 35},
		"routing-header":  nil,
		"pending-request": nil,
	} {
		if !slices.Equal(lines[rule], want) {
			t.Errorf("%s on lines %v, want %v", rule, lines[rule], want)
		}
	}
}

// TestNo2026RulesOnLegacyCaptures: a 2025-11-25 (or older) capture, the
// Go client's rejected server/discover probe included, never gets a finding
// of a rule about what 2026-07-28 introduced.
func TestNo2026RulesOnLegacyCaptures(t *testing.T) {
	var modern []string
	for _, r := range checks.All() {
		if r.Revisions.Since >= "2026-07-28" {
			modern = append(modern, r.ID)
		}
	}
	if len(modern) == 0 {
		t.Fatal("no 2026-07-28 rule in the catalogue")
	}
	for _, name := range []string{
		"02-filesystem-stdio-clean.jsonl", "03-filesystem-stdio-iserror.jsonl", "05-everything-protocol-errors.jsonl",
		"07-schema-notion-toolslist.jsonl", "09-drift-filesystem-old-2025.1.14.jsonl", "10-drift-filesystem-new-2026.8.31.jsonl",
		"14-cancel-abortsignal.jsonl", "16-invalid-frames-bad-transport-arg.jsonl", "18-http-everything-streamable-tsclient.jsonl",
		"24-sequential-thinking-goclient.jsonl",
	} {
		got := ruleCounts(t, sharedCapture(t, name))
		for _, id := range modern {
			if got[id] > 0 {
				t.Errorf("%s: %d %s findings on a legacy capture", name, got[id], id)
			}
		}
	}
}

// TestRealCaptureDeprecations: the deprecated features a real 2025-11-25
// session uses are reported, each naming the revision that deprecated it
// and the session's, and fail the gate only when deprecated is selected;
// the 2026-07-28 capture's logging/setLevel names Logging.
func TestRealCaptureDeprecations(t *testing.T) {
	withEnv(t, map[string]string{"NO_COLOR": "1"})
	path := sharedCapture(t, "18-http-everything-streamable-tsclient.jsonl")
	for _, c := range []struct {
		failOn string
		gated  bool
	}{{checks.DefaultGate, false}, {"deprecated", true}, {"error,deprecated", true}, {"all", true}} {
		_, out, _ := invoke(t, "", "--fail-on", c.failOn, path)
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasSuffix(l, "(deprecated-feature)") {
				lines = append(lines, l)
			}
		}
		if len(lines) != 4 {
			t.Fatalf("--fail-on %s: %d deprecated-feature findings, want 4:\n%s", c.failOn, len(lines), out)
		}
		for _, l := range lines {
			if !strings.Contains(l, "deprecated by revision 2026-07-28") || !strings.Contains(l, "under revision 2025-11-25") {
				t.Errorf("does not name both revisions: %s", l)
			}
			if gated := strings.Contains(l, ": [error] "); gated != c.gated {
				t.Errorf("--fail-on %s: gated %v, want %v: %s", c.failOn, gated, c.gated, l)
			}
		}
		if failed := strings.Contains(out, "check failed: ") && strings.Contains(out[strings.Index(out, "check failed: "):], "deprecated"); failed != c.gated {
			t.Errorf("--fail-on %s: the verdict names deprecated: %v, want %v\n%s", c.failOn, failed, c.gated, out)
		}
	}
	for _, name := range []string{"logging/setLevel", "notifications/message", "sampling/createMessage", "roots/list"} {
		_, out, _ := invoke(t, "", "--fail-on", "none", path)
		if !strings.Contains(out, "sent "+name+": ") {
			t.Errorf("capture 18: no deprecated-feature finding for %s", name)
		}
	}
	_, out, _ := invoke(t, "", "--fail-on", "none", sharedCapture(t, "20-http-2026-mcp-proxy-goclient.jsonl"))
	if !strings.Contains(out, "client sent logging/setLevel: Logging is deprecated by revision 2026-07-28 (used here under revision 2026-07-28)") {
		t.Errorf("capture 20: no deprecated-feature finding naming logging:\n%s", out)
	}
}
