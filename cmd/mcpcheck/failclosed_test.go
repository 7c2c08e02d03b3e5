package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Fail closed (spec §2.1): damage never lets a failing run pass. Each case
// is a hostile input run as TestHostileInputs runs its cases, in a child
// process under a memory bound, with the findings it must give pinned in
// the JSON report: rule, message, subject, severity and whether they gate.

// pinned is one finding a fail-closed case must report.
type pinned struct {
	rule, message, subject, severity string
	line                             int // 0: not pinned (a gzip stream's break moves with the compressor)
	gated                            bool
}

// wantFindings checks that the JSON report in dir holds every finding of
// want (message exact), and that no finding of a rule in absent is there.
func wantFindings(want []pinned, absent ...string) func(t *testing.T, dir, stdout string) {
	return func(t *testing.T, dir, _ string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, "out.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Sessions []struct {
				Findings []struct {
					Rule, Message, Subject, Severity string
					Line                             int
					Gated                            bool
				}
			}
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, s := range doc.Sessions {
			for _, f := range s.Findings {
				all = append(all, fmt.Sprintf("%d %s [%s, %s, gated %v] %s", f.Line, f.Rule, f.Subject, f.Severity, f.Gated, f.Message))
				for _, a := range absent {
					if f.Rule == a {
						t.Errorf("unexpected %s finding at line %d: %s", a, f.Line, f.Message)
					}
				}
			}
		}
	next:
		for _, w := range want {
			for _, s := range doc.Sessions {
				for _, f := range s.Findings {
					if f.Rule == w.rule && f.Message == w.message && f.Subject == w.subject && f.Severity == w.severity &&
						f.Gated == w.gated && (w.line == 0 || f.Line == w.line) {
						continue next
					}
				}
			}
			t.Errorf("no finding %+v among:\n%s", w, strings.Join(all, "\n"))
		}
	}
}

// deepError is a tools/call answered with a JSON-RPC error whose data is
// nested depth deep, then a request that is answered.
func deepError(depth int) func() io.Reader {
	return func() io.Reader {
		return strings.NewReader(`{"session_id":"s","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}}` + "\n" +
			`{"session_id":"s","seq":2,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom","data":` +
			strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}}` + "\n")
	}
}

// tornGzip is the first n bytes of the gzipped demo session.
func tornGzip(n int) func() io.Reader {
	return func() io.Reader {
		data, _ := os.ReadFile(testdata("demo-session.jsonl"))
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		return bytes.NewReader(b.Bytes()[:n])
	}
}

// bracketed is a shipped fixture with n opening brackets inserted as a
// member of the record that opens on line (after its '{').
func bracketed(t *testing.T, dir, fixture string, line, n int) string {
	data, err := os.ReadFile(testdata(fixture))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	rec := lines[line-1]
	j := bytes.IndexByte(rec, '{')
	if j < 0 {
		t.Fatalf("%s:%d opens no record", fixture, line)
	}
	lines[line-1] = slices.Concat(rec[:j+1], []byte(`"x":`+strings.Repeat("[", n)+`,`), rec[j+1:])
	path := filepath.Join(dir, fmt.Sprintf("%d-%s", line, filepath.Base(fixture)))
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	tooDeepMessage = "the frame nests deeper than the 10000 levels mcpcheck reads: what lies deeper was left out, the rest was judged"
	gzipLost       = "the capture could not be read to its end: the compressed stream breaks off (unexpected EOF); what followed is unknown"
)

func TestFailClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the hostile-input processes")
	}
	dir := t.TempDir()
	jsonOut := []string{"--output", "json=OUT/out.json"}
	deepErr := pinned{"jsonrpc-error", `tools/call "search" (id 1) failed with JSON-RPC error -32000 "boom"`, "tools/call search", "error", 2, true}
	cases := []hostileCase{
		{
			name: "a JSON-RPC error whose data nests 10 deep", input: deepError(10), args: jsonOut, exit: 1, rss: 64 * mib,
			check: wantFindings([]pinned{deepErr}, "unread-capture", "truncated-capture", "pending-request"),
		},
		{
			name: "a JSON-RPC error whose data nests 10,001 deep (20 KB)", input: deepError(10_001), args: jsonOut, exit: 1, rss: 64 * mib,
			check: wantFindings([]pinned{deepErr, {"unread-capture", tooDeepMessage, "frame past the depth limit", "error", 2, true}},
				"truncated-capture", "pending-request"),
		},
		{
			name: "a JSON-RPC error whose data nests 100,000 deep, not gated", input: deepError(100_000), args: append([]string{"--fail-on", "none"}, jsonOut...), exit: 0, rss: 64 * mib,
			check: wantFindings([]pinned{{deepErr.rule, deepErr.message, deepErr.subject, deepErr.severity, 2, false},
				{"unread-capture", tooDeepMessage, "frame past the depth limit", "error", 2, false}}, "pending-request"),
		},
		{
			name: "the first 700 bytes of the gzipped demo session", input: tornGzip(700), args: jsonOut, exit: 1, rss: 64 * mib,
			stdout: []string{"(truncated-capture)", "(unread-capture)", "check failed: invalid"},
			check:  wantFindings([]pinned{{"unread-capture", gzipLost, "capture not read to its end", "error", 0, true}}),
		},
		{
			name: "the torn .gz with unread-capture left out of the gate", input: tornGzip(700),
			args: append([]string{"--fail-on", "error,warn,invalid-frame,invalid-envelope"}, jsonOut...), exit: 0, rss: 64 * mib,
			check: wantFindings([]pinned{{"unread-capture", gzipLost, "capture not read to its end", "error", 0, false}}),
		},
		{
			name: "the torn .gz with unread-capture disabled", input: tornGzip(700),
			args: append([]string{"--disable", "unread-capture"}, jsonOut...), exit: 0, rss: 64 * mib,
			stdout: []string{"(truncated-capture)", "check passed"},
		},
	}
	// A record of a document nested past the limit, here by 100k opening
	// brackets that never close, used to end the document: every later
	// record was lost, and with them the failures the fixture has.
	for _, d := range []struct {
		fixture       string
		line, resumed int    // where the broken record starts; where reading resumes
		what          string // the record's name
		later         pinned // a failure of a later record
	}{
		{"formats/har/streamable-http.har", 20, 88, "HAR entry", pinned{"jsonrpc-error", `tools/call "read_note" (id 4) failed with JSON-RPC error -32602 "Invalid params: path escapes the notes directory"`, "tools/call read_note", "error", 1070, true}},
		{"formats/har/streamable-http.har", 581, 715, "HAR entry", pinned{"tool-error", `tool "archive_note" (id 3) reported an error: "Unknown tool: archive_note"`, "tools/call archive_note", "error", 950, true}},
		{"formats/har/mcpsnoop-export.har", 119, 158, "HAR entry", pinned{"jsonrpc-error", `resources/list (id 6) failed with JSON-RPC error -32601 "Method not found"`, "resources/list", "error", 236, true}},
		{"formats/logrocket/billing.logrocket.json", 9, 65, "event", pinned{"jsonrpc-error", `prompts/get "dunning_letter" (id 6) failed with JSON-RPC error 0 "template store unavailable"`, "prompts/get dunning_letter", "error", 301, true}},
		{"formats/logrocket/billing.logrocket.json", 189, 225, "event", pinned{"tool-error", `tool "get_invoice" (id 4) reported an error: "invoice INV-1999 not found"`, "tools/call get_invoice", "error", 225, true}},
	} {
		path := bracketed(t, dir, d.fixture, d.line, 100_000)
		cases = append(cases, hostileCase{
			name: fmt.Sprintf("%s with 100k brackets in the record of line %d", filepath.Base(d.fixture), d.line), args: append([]string{path}, jsonOut...), exit: 1, rss: 64 * mib,
			check: wantFindings([]pinned{
				{"unread-capture", fmt.Sprintf("1 %s could not be read: it nests deeper than the 10000 levels mcpcheck reads; reading resumed at the next one, line %d", d.what, d.resumed),
					"capture not read to its end", "error", d.line, true},
				d.later,
			}),
		})
	}
	// Plain JSON-RPC (no envelope): the same deep error answer.
	rpc := filepath.Join(dir, "deep.jsonl")
	if err := os.WriteFile(rpc, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom","data":`+strings.Repeat("[", 10_001)+strings.Repeat("]", 10_001)+`}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, hostileCase{
		name: "plain JSON-RPC: an error whose data nests 10,001 deep", args: append([]string{rpc}, jsonOut...), exit: 1, rss: 64 * mib,
		check: wantFindings([]pinned{{deepErr.rule, deepErr.message, deepErr.subject, deepErr.severity, 5, true},
			{"unread-capture", tooDeepMessage, "frame past the depth limit", "error", 5, true}}, "pending-request", "invalid-envelope"),
	})

	// The real size limit: an isError answer in an envelope of 257 MiB.
	cases = append(cases, hostileCase{
		name: "an isError answer in an envelope of 257 MiB", size: largeOnly, within: 120 * time.Second,
		input: func() io.Reader { return bigAnswer(257<<20, true) }, args: jsonOut, exit: 1, rss: 1024 * mib,
		check: wantFindings([]pinned{
			{"unread-capture", "the envelope is larger than the 256 MiB mcpcheck reads: what follows its first 256 MiB was left out, the rest was judged", "frame past the size limit", "error", 2, true},
			{"tool-error", `tool "export" (id 1) reported an error: (no text content)`, "tools/call export", "error", 2, true},
		}, "pending-request", "truncated-capture"),
	})
	large := os.Getenv(largeEnv) == "1"
	for _, c := range cases {
		if c.size == largeOnly && !large {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			if c.within == 0 {
				c.within = 10 * time.Second
			}
			runHostile(t, c)
		})
	}
}

// bigAnswer is a tools/call answered with isError and a text of size
// bytes: before the text (isErrorFirst) or after it, where a limit below
// size cuts it off.
func bigAnswer(size int, isErrorFirst bool) io.Reader {
	head := `{"session_id":"s","seq":2,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{`
	if isErrorFirst {
		head += `"isError":true,`
	}
	tail := `"}]`
	if !isErrorFirst {
		tail += `,"isError":true`
	}
	return io.MultiReader(
		strings.NewReader(`{"session_id":"s","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"export"}}}`+"\n"+
			head+`"content":[{"type":"text","text":"`),
		repeatString("x", size),
		strings.NewReader(tail+"}}}\n"+
			`{"session_id":"s","seq":3,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":2,"method":"ping"}}`+"\n"+
			`{"session_id":"s","seq":4,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":2,"result":{}}}`+"\n"))
}

// An envelope over the size limit (here a limit of 4 KiB, through
// readers.Options.MaxEnvelope) is read as far as the limit: an isError
// before it still fails the call (the text cut in half is left out), the answer still answers its request,
// and the cut is a gated finding either way.
func TestEnvelopePastTheSizeLimit(t *testing.T) {
	cli := defaultCommand()
	cli.reading.MaxEnvelope = 4096
	tooLarge := pinned{"unread-capture", "the envelope is larger than the 4096 bytes mcpcheck reads: what follows its first 4096 bytes was left out, the rest was judged",
		"frame past the size limit", "error", 2, true}
	for _, c := range []struct {
		name         string
		isErrorFirst bool
		want         []pinned
		absent       []string
	}{
		{"isError before the limit", true, []pinned{tooLarge, {"tool-error", `tool "export" (id 1) reported an error: (no text content)`, "tools/call export", "error", 2, true}}, []string{"pending-request", "truncated-capture"}},
		{"isError past the limit", false, []pinned{tooLarge}, []string{"pending-request", "truncated-capture", "tool-result-content"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			code := cli.run([]string{"check", "--output", "json=" + filepath.Join(dir, "out.json"), "-"}, bigAnswer(10_000, c.isErrorFirst), &stdout, &stderr)
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %q\n%s", code, stderr.String(), stdout.String())
			}
			wantFindings(c.want, c.absent...)(t, dir, stdout.String())
		})
	}
}
