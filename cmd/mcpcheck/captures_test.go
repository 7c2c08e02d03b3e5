package main

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/internal/sharedtest"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
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
	t.Parallel()
	cli := ownHome(t)
	cases := []struct {
		file string
		code int
		want map[string]int
	}{
		// schema-construct (not gated): 14 tools declare draft-07 where
		// 2025-11-25 defaults to 2020-12; read_media_file's outputSchema
		// uses anyOf. No output-schema: every result conforms.
		{"02-filesystem-stdio-clean.jsonl", 0, map[string]int{"schema-construct": 15}},
		// the isError results carry no structuredContent: exempt from
		// output-schema; schema-construct as in 02
		{"03-filesystem-stdio-iserror.jsonl", 1, map[string]int{"tool-error": 9, "schema-construct": 15}},
		// a deliberate call of "no-such-tool" is also unknown-tool; the
		// client's deliberate mistakes are protocol findings too: tools/call
		// without a name (request-params), the log level "loudest"
		// (log-level), an invented cursor (cursor); logging/setLevel is
		// deprecated-feature; the wrong-type, missing and enum-violating
		// calls are input-schema (the valid ones are not); schema-construct:
		// 13 tools declare draft-07
		{"05-everything-protocol-errors.jsonl", 1, map[string]int{"jsonrpc-error": 8, "tool-error": 4, "unknown-tool": 1,
			"request-params": 1, "log-level": 1, "cursor": 1, "deprecated-feature": 1, "input-schema": 3, "schema-construct": 13}},
		// oneOf, anyOf and $ref in each of the 24 Notion tools; every schema compiles
		{"07-schema-notion-toolslist.jsonl", 0, map[string]int{"schema-construct": 19}},
		// the id-2 answer recorded before its request pairs silently; the 10
		// tools whose inputSchema has no root type are tool-schema-root (a
		// real bug: clients reject the listing), which fails the gate
		{"09-drift-filesystem-old-2025.1.14.jsonl", 1, map[string]int{"tool-schema-root": 10}},
		// schema-construct as in 02
		{"10-drift-filesystem-new-2026.8.31.jsonl", 0, map[string]int{"schema-construct": 15}},
		// two calls cancelled and never answered: neither pending nor late;
		// schema-construct: 13 tools declare draft-07
		{"14-cancel-abortsignal.jsonl", 0, map[string]int{"schema-construct": 13}},
		{"16-invalid-frames-bad-transport-arg.jsonl", 1, map[string]int{"invalid-frame": 4, "pending-request": 1}},
		// answers and a cancellation on other connections pair; Logging
		// (logging/setLevel, notifications/message ×4), Sampling and Roots
		// (roots/list ×2) are deprecated-feature, each kind once;
		// schema-construct: 16 tools declare draft-07
		{"18-http-everything-streamable-tsclient.jsonl", 1, map[string]int{"jsonrpc-error": 1, "deprecated-feature": 4, "schema-construct": 16}},
		// id-less HTTP 400 errors pair with the request of the same exchange
		// (and its deliberate call of "no-such-tool" is unknown-tool); the
		// client sent logging/setLevel and ping without the required _meta
		// under 2026-07-28 (its MCP-Protocol-Version header says so): both
		// lack the fields and both were removed in 2026-07-28;
		// logging/setLevel is also deprecated-feature; schema-construct: 13
		// tools declare draft-07
		{"20-http-2026-mcp-proxy-goclient.jsonl", 1, map[string]int{"jsonrpc-error": 2, "tool-error": 1, "unknown-tool": 1, "meta-required": 2, "modern-removed": 2, "schema-construct": 13}},
		// the rejected server/discover probe is negotiation; only isError
		// fails. The call that failed misses three required arguments
		// (input-schema); schema-construct: draft-07 and one local $ref
		{"24-sequential-thinking-goclient.jsonl", 1, map[string]int{"tool-error": 1, "input-schema": 1, "schema-construct": 2}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := sharedCapture(t, c.file)
			code, out, errs := cli.invoke(t, "", path)
			if code != c.code || errs != "" {
				t.Errorf("exit %d (want %d), stderr %q\n%s", code, c.code, errs, out)
			}
			assertCounts(t, ruleCounts(t, path), c.want)
		})
	}
}

func TestRealCaptureGates(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	path := sharedCapture(t, "16-invalid-frames-bad-transport-arg.jsonl")
	code, out, _ := cli.invoke(t, "", "--fail-on", "pending", path)
	if code != 1 || !strings.Contains(out, "check failed: pending") || strings.Count(out, "(pending-request)") != 1 {
		t.Errorf("--fail-on pending: exit %d\n%s", code, out)
	}
	path = sharedCapture(t, "24-sequential-thinking-goclient.jsonl")
	_, out, _ = cli.invoke(t, "", path)
	if strings.Contains(out, "server/discover") || strings.Count(out, ": ✗ ") != 1 {
		t.Errorf("the version probe failed the gate:\n%s", out)
	}
}

// TestRealCapture2026 pins where the 2026-07-28 findings of the Go client's
// capture sit: on the two requests sent without _meta (logging/setLevel and
// ping), whose -32602 answers stay JSON-RPC errors; no routing header
// disagrees and nothing is left pending.
func TestRealCapture2026(t *testing.T) {
	t.Parallel()
	path := sharedCapture(t, "20-http-2026-mcp-proxy-goclient.jsonl")
	srcs, err := readers.Resolve([]string{path}, nil, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	gate, _ := result.ParseGate(checks.DefaultGate, checks.All())
	res, err := engine.Run(srcs, engine.Config{Rules: checks.All(), Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string][]int{}
	for s := range res.AllSessions() {
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
	t.Parallel()
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
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	path := sharedCapture(t, "18-http-everything-streamable-tsclient.jsonl")
	for _, c := range []struct {
		failOn string
		gated  bool
	}{{checks.DefaultGate, false}, {"deprecated", true}, {"error,deprecated", true}, {"all", true}} {
		_, out, _ := cli.invoke(t, "", "--verbose", "--fail-on", c.failOn, path)
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
			if gated := strings.Contains(l, ": ✗ "); gated != c.gated {
				t.Errorf("--fail-on %s: gated %v, want %v: %s", c.failOn, gated, c.gated, l)
			}
		}
		if failed := strings.Contains(out, "check failed: ") && strings.Contains(out[strings.Index(out, "check failed: "):], "deprecated"); failed != c.gated {
			t.Errorf("--fail-on %s: the verdict names deprecated: %v, want %v\n%s", c.failOn, failed, c.gated, out)
		}
	}
	for _, name := range []string{"logging/setLevel", "notifications/message", "sampling/createMessage", "roots/list"} {
		_, out, _ := cli.invoke(t, "", "--verbose", "--fail-on", "none", path)
		if !strings.Contains(out, "sent "+name+": ") {
			t.Errorf("capture 18: no deprecated-feature finding for %s", name)
		}
	}
	// 20: a 2026-07-28 logging/setLevel is removed, not also deprecated
	// by the same revision on the same frame (one finding per fact).
	_, out, _ := cli.invoke(t, "", "--verbose", "--fail-on", "none", sharedCapture(t, "20-http-2026-mcp-proxy-goclient.jsonl"))
	if strings.Contains(out, "(deprecated-feature)") || !strings.Contains(out, "logging/setLevel was removed in 2026-07-28") {
		t.Errorf("capture 20: want modern-removed and no deprecated-feature for logging/setLevel:\n%s", out)
	}
}

// ruleFindings runs the whole catalogue on a real capture and returns the
// findings of rule.
func ruleFindings(t *testing.T, name, rule string) []*result.Finding {
	t.Helper()
	srcs, err := readers.Resolve([]string{sharedCapture(t, name)}, nil, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(srcs, engine.Config{Rules: checks.All()})
	if err != nil {
		t.Fatal(err)
	}
	var out []*result.Finding
	for s := range res.AllSessions() {
		for _, f := range s.Findings {
			if f.Rule == rule {
				out = append(out, f)
			}
		}
	}
	return out
}

// TestRealCaptureSchemas: what the tool-schema rules say about the real
// captures, finding by finding.
func TestRealCaptureSchemas(t *testing.T) {
	t.Parallel()
	// 07: every Notion tool carries the same shared $defs block (with oneOf,
	// anyOf and $ref in it); only what a tool's own schema reaches counts:
	// 11 of the 24 tools, 19 notes (53 fewer than a walk of every $defs).
	want07 := map[string]string{
		"API-create-a-comment": "anyOf", "API-create-a-data-source": "$ref anyOf", "API-move-page": "$ref anyOf oneOf",
		"API-patch-block-children": "$ref anyOf", "API-patch-page": "anyOf", "API-post-page": "$ref anyOf oneOf",
		"API-post-search": "anyOf", "API-query-data-source": "$ref anyOf", "API-update-a-block": "anyOf",
		"API-update-a-data-source": "$ref anyOf", "API-update-page-markdown": "anyOf",
	}
	kinds := map[string]map[string]bool{}
	for _, f := range ruleFindings(t, "07-schema-notion-toolslist.jsonl", "schema-construct") {
		tool, kind, _ := strings.Cut(strings.TrimPrefix(f.Subject, "tool "), " ")
		if kinds[tool] == nil {
			kinds[tool] = map[string]bool{}
		}
		kinds[tool][kind] = true
	}
	if len(kinds) != len(want07) {
		t.Errorf("07: schema-construct for %d tools, want %d", len(kinds), len(want07))
	}
	for tool, k := range kinds {
		if got := strings.Join(slices.Sorted(maps.Keys(k)), " "); got != want07[tool] {
			t.Errorf("07: tool %s: kinds %q, want %q", tool, got, want07[tool])
		}
	}
	// 09: exactly the ten tools without a root type; list_allowed_directories has one.
	var roots []string
	for _, f := range ruleFindings(t, "09-drift-filesystem-old-2025.1.14.jsonl", "tool-schema-root") {
		if !strings.Contains(f.Message, `has no root "type"`) {
			t.Errorf("09: %s", f.Message)
		}
		roots = append(roots, strings.TrimPrefix(f.Subject, "tool "))
	}
	slices.Sort(roots)
	want := []string{"create_directory", "directory_tree", "edit_file", "get_file_info", "list_directory",
		"move_file", "read_file", "read_multiple_files", "search_files", "write_file"}
	if !slices.Equal(roots, want) {
		t.Errorf("09: tool-schema-root for %v, want %v", roots, want)
	}
	// 05: the wrong-type, missing and enum-violating calls, each with its path and keyword.
	var got []string
	for _, f := range ruleFindings(t, "05-everything-protocol-errors.jsonl", "input-schema") {
		got = append(got, fmt.Sprintf("%d %s", f.Line, f.Message))
	}
	want = []string{
		`15 the arguments of tool "get-sum" do not match its inputSchema: at $.a: type (got string, want number)`,
		`17 the arguments of tool "echo" do not match its inputSchema: at $: required (missing property 'message')`,
		`19 the arguments of tool "get-structured-content" do not match its inputSchema: at $.location: enum (value must be one of 'New York', 'Chicago', 'Los Angeles')`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("05: input-schema\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	// 24: one call misses three required numbers; the message names all three.
	fs := ruleFindings(t, "24-sequential-thinking-goclient.jsonl", "input-schema")
	if len(fs) != 1 || fs[0].Line != 50 {
		t.Fatalf("24: %d input-schema findings", len(fs))
	}
	for _, name := range []string{"nextThoughtNeeded", "thoughtNumber", "totalThoughts"} {
		if !strings.Contains(fs[0].Message, "'"+name+"'") {
			t.Errorf("24: %q does not name %s", fs[0].Message, name)
		}
	}
}
