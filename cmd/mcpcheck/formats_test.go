package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/report"
)

// formatFixture is a capture of another format in testdata/formats.
func formatFixture(name string) string { return testdata(filepath.Join("formats", name)) }

// findingSet is what a check found: "rule subject" with how many findings
// each stands for (a folded finding counts all it stands for), and the
// label of each session.
type findingSet struct {
	counts map[string]int
	labels []string
}

func (s findingSet) String() string {
	keys := make([]string, 0, len(s.counts))
	for k, n := range s.counts {
		keys = append(keys, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(keys)
	return fmt.Sprintf("sessions %v; %s", s.labels, strings.Join(keys, "; "))
}

// checkFindings runs check --format json on path with extra flags, the
// gate off and a baseline directory of its own, and collects its findings.
func checkFindings(t *testing.T, cli *command, path string, extra ...string) findingSet {
	t.Helper()
	args := append([]string{"--format", "json", "--fail-on", "none"}, extra...)
	code, out, errs := cli.invoke(t, "", append(args, path)...)
	if code != 0 || errs != "" {
		t.Fatalf("%s: exit %d, stderr %q", path, code, errs)
	}
	var rep report.JSONReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	set := findingSet{counts: map[string]int{}}
	for _, s := range rep.Sessions {
		set.labels = append(set.labels, s.Label)
		for _, f := range s.Findings {
			set.counts[f.Rule+" "+f.Subject] += 1 + f.Also
		}
	}
	sort.Strings(set.labels)
	return set
}

// sameFindings checks that capture, a capture of another format (forced
// with --input-format when format is not ""), gives the findings the
// mcpsnoop envelope capture of the same traffic gives: the same rule ids,
// subjects and counts, and sessions of the same labels (lines, files and
// session ids differ). It returns them, so that the caller can pin what
// the traffic holds: two captures that both find nothing prove little.
func sameFindings(t *testing.T, cli *command, capture, envelopes, format string) findingSet {
	t.Helper()
	var extra []string
	if format != "" {
		extra = []string{"--input-format", format}
	}
	got, want := checkFindings(t, cli, capture, extra...), checkFindings(t, cli, envelopes)
	if got.String() != want.String() {
		t.Errorf("%s finds\n  %s\nbut the envelope capture %s finds\n  %s", capture, got, envelopes, want)
	}
	return got
}

// Each reader's fixture gives what the mcpsnoop capture of the same
// traffic gives, detected or forced.
func TestFormatsFindWhatEnvelopesFind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		capture, envelopes, format string
		want                       map[string]int // rule -> findings, pinned
	}{
		// two servers in mcp.log: -32601 for the resources and prompts the
		// filesystem server never advertised (capability), isError results,
		// a forecast never answered
		{"claude-desktop/mcp.log", "mcpsnoop/claude-desktop-mcp.jsonl", "claude-desktop",
			map[string]int{"capability": 2, "jsonrpc-error": 2, "tool-error": 2, "pending-request": 1}},
		// a crash leaves append_note unanswered; the restart is a session of
		// its own, so its initialize is not a second one
		{"claude-desktop/mcp-server-notes.log", "mcpsnoop/claude-desktop-notes.jsonl", "",
			map[string]int{"tool-error": 1, "pending-request": 1}},
		// directions inferred throughout: no invalid-envelope
		{"jsonrpc/tee-notes.jsonl", "mcpsnoop/jsonrpc-tee-notes.jsonl", "jsonrpc",
			map[string]int{"deprecated-feature": 4, "unknown-tool": 1, "jsonrpc-error": 1, "pending-request": 1}},
		{"jsonrpc/tee-2026.jsonl", "mcpsnoop/jsonrpc-tee-2026.jsonl", "",
			map[string]int{"tool-error": 1}},
	}
	for _, c := range cases {
		t.Run(c.capture, func(t *testing.T) {
			got := sameFindings(t, defaultCommand(), formatFixture(c.capture), formatFixture(c.envelopes), c.format)
			rules := map[string]int{}
			for k, n := range got.counts {
				rules[strings.Fields(k)[0]] += n
			}
			assertCounts(t, rules, c.want)
		})
	}
}

// A server that prints a banner to stdout: the client's parse errors in
// its Claude Desktop log are invalid-frame findings, which fail the gate.
func TestClaudeDesktopBannerIsInvalidFrame(t *testing.T) {
	t.Parallel()
	got := checkFindings(t, defaultCommand(), formatFixture("claude-desktop/mcp-server-weather.log"))
	want := map[string]int{
		`invalid-frame s2c text "Weather MC…"`: 1,
		`invalid-frame s2c text "Using the …"`: 1,
		`invalid-frame s2c text "fetching h…"`: 1,
	}
	if fmt.Sprint(got.counts) != fmt.Sprint(want) {
		t.Errorf("findings %v, want %v", got.counts, want)
	}
	cli := withEnv(map[string]string{"MCPCHECK_HOME": t.TempDir()})
	if code, out, _ := cli.invoke(t, "", formatFixture("claude-desktop/mcp-server-weather.log")); code != 1 || !strings.Contains(out, "check failed: invalid") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// --input-format forces a format: a capture of another format is exit 2
// naming it, a name not registered is a usage error listing the valid
// ones, and a directory contributes only the forced format's files.
func TestInputFormat(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"MCPCHECK_HOME": t.TempDir()})
	wrong := []struct{ format, capture string }{
		{"jsonrpc", formatFixture("claude-desktop/mcp.log")},
		{"claude-desktop", testdata("clean-stdio.jsonl")},
		{"mcpsnoop", formatFixture("jsonrpc/tee-notes.jsonl")},
		{"jsonrpc", testdata("clean-stdio.jsonl")},
	}
	for _, c := range wrong {
		code, out, errs := cli.invoke(t, "", "--input-format", c.format, c.capture)
		want := c.capture + ":1: not a capture: it does not match the forced format " + c.format + " (formats tried: " + c.format + ")"
		if code != 2 || out != "" || !strings.Contains(errs, want) {
			t.Errorf("%s as %s: exit %d, stderr %q", c.capture, c.format, code, errs)
		}
	}
	// the names of the spec: each registered one is accepted (whatever its
	// case), any other is a usage error listing the registered ones
	for _, name := range []string{"mcpsnoop", "claude-desktop", "jsonrpc", "har", "mcp-rewind", "logrocket", "pcap"} {
		code, _, errs := cli.invoke(t, "", "--input-format", strings.ToUpper(name), formatFixture("claude-desktop/mcp.log"))
		switch {
		case readers.Lookup(name) == nil:
			if code != 2 || !strings.Contains(errs, "unknown format") || !strings.Contains(errs, strings.Join(formatNames(), ", ")) {
				t.Errorf("%s (not registered): exit %d, stderr %q", name, code, errs)
			}
		case name == "claude-desktop":
			if code != 1 || errs != "" {
				t.Errorf("%s: exit %d, stderr %q", name, code, errs)
			}
		default:
			if code != 2 || !strings.Contains(errs, "does not match the forced format "+name) {
				t.Errorf("%s: exit %d, stderr %q", name, code, errs)
			}
		}
	}
	dir := t.TempDir()
	for _, name := range []string{"claude-desktop/mcp-server-notes.log", "jsonrpc/tee-2026.jsonl"} {
		data, err := os.ReadFile(formatFixture(name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, filepath.Base(name)), data, 0o644)
	}
	got := checkFindings(t, cli, dir, "--input-format", "claude-desktop")
	if !slices.Equal(got.labels, []string{"notes", "notes"}) {
		t.Errorf("forced: sessions %v", got.labels)
	}
	if got = checkFindings(t, cli, dir); !slices.Equal(got.labels, []string{"changelog-server", "notes", "notes"}) {
		t.Errorf("detected: sessions %v", got.labels)
	}
}

// envelope is what the rewriting below reads of an mcpsnoop envelope.
type envelope struct {
	SessionID   string          `json:"session_id"`
	ServerLabel string          `json:"server_label"`
	Seq         int64           `json:"seq"`
	TS          string          `json:"ts"`
	Direction   string          `json:"direction"`
	Transport   string          `json:"transport"`
	Raw         json.RawMessage `json:"raw"`
	Text        *string         `json:"text"`
	Truncated   bool            `json:"truncated"`
	Redacted    bool            `json:"redacted"`
	Status      int             `json:"status"`
	ConnID      string          `json:"conn_id"`
}

// asOtherFormats rewrites an mcpsnoop capture of stdio sessions as the
// other formats would have recorded the same traffic: per session, a
// Claude Desktop server log (the frames as "Message from …" lines, stderr
// as is) and a tee of both directions (the frames only). ok is false for
// a capture those formats cannot hold alike: HTTP, text on the protocol
// channel (the client's log shows only its start), frames the recorder
// dropped, cut or redacted.
func asOtherFormats(t *testing.T, path, dir string) (claude, jsonrpc []string, ok bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type out struct{ claude, tee strings.Builder }
	sessions := map[string]*out{}
	var order []string
	last := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e envelope
		if json.Unmarshal([]byte(line), &e) != nil || e.SessionID == "" || e.Truncated || e.Redacted || e.Status != 0 ||
			e.ConnID != "" || (e.Transport != "stdio" && e.Transport != "") || (e.Seq != 0 && e.Seq != last[e.SessionID]+1) {
			return nil, nil, false
		}
		last[e.SessionID] = e.Seq
		o := sessions[e.SessionID]
		if o == nil {
			o = &out{}
			sessions[e.SessionID], order = o, append(order, e.SessionID)
			label := e.ServerLabel
			fmt.Fprintf(&o.claude, "%s [%s] [info] Initializing server...\n", e.TS, label)
		}
		switch e.Direction {
		case "c2s", "s2c":
			if e.Raw == nil || strings.Contains(string(e.Raw), "\n") {
				return nil, nil, false
			}
			from := map[string]string{"c2s": "client", "s2c": "server"}[e.Direction]
			fmt.Fprintf(&o.claude, "%s [%s] [info] Message from %s: %s\n", e.TS, e.ServerLabel, from, e.Raw)
			fmt.Fprintf(&o.tee, "%s\n", e.Raw)
		case "stderr":
			if e.Text != nil {
				fmt.Fprintf(&o.claude, "%s\n", *e.Text)
			}
		case "meta":
		default:
			return nil, nil, false
		}
	}
	for i, id := range order {
		c := filepath.Join(dir, fmt.Sprintf("%02d", i), "mcp-server-"+filepath.Base(id)+".log")
		j := filepath.Join(dir, fmt.Sprintf("%02d-%s.jsonl", i, filepath.Base(id)))
		os.MkdirAll(filepath.Dir(c), 0o755)
		if os.WriteFile(c, []byte(sessions[id].claude.String()), 0o644) != nil || os.WriteFile(j, []byte(sessions[id].tee.String()), 0o644) != nil {
			t.Fatal("cannot write the rewritten captures")
		}
		claude, jsonrpc = append(claude, c), append(jsonrpc, j)
	}
	return claude, jsonrpc, true
}

// Real stdio captures, and the project's, rewritten as a Claude Desktop
// log and as a tee of both directions, give the findings the envelopes
// give (the drift rules, keyed by a label plain JSON-RPC takes from the
// server, aside). The tee has no timestamps and no directions: every
// direction of these captures is inferred, races and all.
func TestCapturesRewrittenAsOtherFormats(t *testing.T) {
	t.Parallel()
	var paths []string
	for _, name := range []string{"02-filesystem-stdio-clean.jsonl", "03-filesystem-stdio-iserror.jsonl", "05-everything-protocol-errors.jsonl",
		"07-schema-notion-toolslist.jsonl", "09-drift-filesystem-old-2025.1.14.jsonl", "14-cancel-abortsignal.jsonl", "24-sequential-thinking-goclient.jsonl"} {
		paths = append(paths, sharedCapture(t, name))
	}
	own, _ := filepath.Glob(testdata("*.jsonl"))
	paths = append(paths, own...)
	noDrift := []string{"--disable", "baseline", "--disable", "tool-drift"}
	// what a tee cannot show the direction of: the everything server's
	// test client sends a notification of a method no revision defines
	undirected := map[string]string{"05-everything-protocol-errors.jsonl": "invalid-envelope direction of notifications/heldout-unknown"}
	rewritten := 0
	for _, path := range paths {
		dir := t.TempDir()
		claude, tee, ok := asOtherFormats(t, path, dir)
		if !ok {
			continue
		}
		rewritten++
		t.Run(filepath.Base(path), func(t *testing.T) {
			envelopes := checkFindings(t, defaultCommand(), path, noDrift...)
			for what, files := range map[string][]string{"claude-desktop": claude, "jsonrpc": tee} {
				args := append(slices.Clone(noDrift), files[:len(files)-1]...)
				got, want := checkFindings(t, defaultCommand(), files[len(files)-1], args...), envelopes
				if what == "jsonrpc" {
					got.labels, want.labels = nil, nil // named after the server's own name
					if extra := undirected[filepath.Base(path)]; extra != "" {
						want.counts = maps.Clone(want.counts)
						want.counts[extra]++
					}
				}
				if got.String() != want.String() {
					t.Errorf("as %s: %s\nthe envelopes: %s", what, got, want)
				}
			}
		})
	}
	if rewritten < 8 {
		t.Errorf("only %d captures could be rewritten", rewritten)
	}
}

// A tee records no direction: a server's banner on stdout is a line whose
// writer nothing shows, so it is invalid-envelope (not guessed to be the
// server's), and fails the gate.
func TestPlainJSONRPCBannerIsReported(t *testing.T) {
	t.Parallel()
	path := formatFixture("jsonrpc/tee-banner.jsonl")
	rep := jsonReport(t, defaultCommand(), 1, "--baseline", t.TempDir(), path)
	var got []string
	for _, f := range findingsOf(rep) {
		got = append(got, fmt.Sprintf("%d %s %s: %s", f.Line, f.Rule, f.Subject, f.Message))
	}
	want := []string{
		`1 invalid-envelope direction of a line of text: plain JSON-RPC records no direction, and the line is not JSON, so nothing shows who wrote it; the line "Starting weather MCP server (FastMCP 1.9.4)" was not judged`,
		`6 invalid-envelope direction of a line of text: plain JSON-RPC records no direction, and the line is not JSON, so nothing shows who wrote it; the line "fetching https://api.weather.gov/points/40.7128,-74.006" was not judged`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
