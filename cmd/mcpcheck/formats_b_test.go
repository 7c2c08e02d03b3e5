package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/racedetect"
	"github.com/mcpcheck/mcpcheck/internal/sharedtest"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/report"
)

// The HAR, mcp-rewind and LogRocket fixtures of testdata/formats each have
// a twin: the mcpsnoop envelope capture of the same traffic, as far as the
// recorder kept it. Where a recorder keeps no notifications (mcpsnoop's
// call-level export, mcp-rewind, LogRocket), the twin's
// notifications/initialized envelope is damaged: that is all either
// capture can say about it.
var formatTwins = []struct {
	capture, twin string
	rules         []string // rules the pair must show, so that agreeing on nothing proves nothing
}{
	{"har/streamable-http.har", "mcpsnoop/har-streamable-http.jsonl", []string{"unknown-tool", "tool-error", "jsonrpc-error", "truncated-capture", "deprecated-feature"}},
	{"har/routing-2026.har", "mcpsnoop/har-routing-2026.jsonl", []string{"routing-header"}},
	{"har/mcpsnoop-export.har", "mcpsnoop/har-mcpsnoop-export.jsonl", []string{"pending-request", "input-schema", "capability", "jsonrpc-error", "tool-error"}},
	{"mcp-rewind/rewind-cache", "mcpsnoop/mcp-rewind-cache.jsonl", []string{"jsonrpc-error", "tool-error", "truncated-capture"}},
	{"logrocket/billing.logrocket.json", "mcpsnoop/logrocket-billing.jsonl", []string{"jsonrpc-error", "tool-error", "deprecated-feature", "truncated-capture"}},
}

// checkJSON runs a check of path with the baseline directory baselines,
// emptied first (the same path for runs whose messages are compared), and
// returns the JSON report.
func checkJSON(t *testing.T, cli *command, baselines, path string, extra ...string) (int, report.JSONReport) {
	t.Helper()
	if err := os.RemoveAll(baselines); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"check", "--fail-on", "none", "--format", "json", "--baseline", baselines}, extra...)
	code, stdout, stderr := cli.invoke(t, "", append(args, path)...)
	var rep report.JSONReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%s: exit %d, %v\n%s", path, code, err, stderr)
	}
	return code, rep
}

// findingCounts counts the findings by rule and subject (lines, messages
// and request ids may differ between formats; these may not).
func findingCounts(rep report.JSONReport) map[string]int {
	out := map[string]int{}
	for _, s := range rep.Sessions {
		for _, f := range s.Findings {
			out[f.Rule+" · "+f.Subject] += 1 + f.Also
		}
	}
	return out
}

func countsText(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %d × %s\n", m[k], k)
	}
	return b.String()
}

func TestFormatsMatchTheirEnvelopeTwins(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	for _, p := range formatTwins {
		t.Run(p.capture, func(t *testing.T) {
			baselines := filepath.Join(t.TempDir(), "baselines")
			_, got := checkJSON(t, cli, baselines, formatFixture(p.capture))
			_, want := checkJSON(t, cli, baselines, formatFixture(p.twin))
			gc, wc := findingCounts(got), findingCounts(want)
			if countsText(gc) != countsText(wc) {
				t.Errorf("%s finds\n%s%s finds\n%s", p.capture, countsText(gc), p.twin, countsText(wc))
			}
			for _, rule := range p.rules {
				found := false
				for k := range gc {
					found = found || strings.HasPrefix(k, rule+" · ")
				}
				if !found {
					t.Errorf("%s: no %s finding", p.capture, rule)
				}
			}
			if len(got.Sessions) != len(want.Sessions) || got.Sessions[0].Revision != want.Sessions[0].Revision || got.Sessions[0].Label != want.Sessions[0].Label {
				t.Errorf("sessions differ: %+v\n%+v", got.Sessions, want.Sessions)
			}

			// A reader that kept a frame's bytes past the frame gives other
			// findings when the buffers are tiny and reused.
			tiny := *cli
			tiny.reading = readers.Options{ReadBuffer: 64}
			_, small := checkJSON(t, &tiny, baselines, formatFixture(p.capture))
			if a, b := findingLines(got), findingLines(small); a != b {
				t.Errorf("with a 64-byte read buffer:\n%s\nwith the default:\n%s", b, a)
			}
		})
	}
}

// findingLines renders every finding in full but its fingerprint.
func findingLines(rep report.JSONReport) string {
	var b strings.Builder
	for _, s := range rep.Sessions {
		for _, f := range s.Findings {
			fmt.Fprintf(&b, "%s:%d %s %s: %s\n", f.File, f.Line, f.Rule, f.Subject, f.Message)
		}
	}
	return b.String()
}

// A 2026-07-28 exchange captured as a HAR, whose Mcp-Name disagrees with
// the body, fails a gate on routing-header.
func TestHARRoutingHeaderMismatch(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	path := formatFixture("har/routing-2026.har")
	code, rep := checkJSON(t, cli, t.TempDir(), path)
	var msgs []string
	for _, f := range rep.Sessions[0].Findings {
		if f.Rule == "routing-header" {
			msgs = append(msgs, f.Subject+": "+f.Message)
		}
	}
	want := `tools/call get_weather: the HTTP routing headers of tools/call "get_weather" do not match it: Mcp-Name is "get_forecast", the body's name "get_weather"`
	if code != exitPassed || len(msgs) != 1 || msgs[0] != want {
		t.Errorf("exit %d, routing-header findings %q", code, msgs)
	}
	code, _, stderr := cli.invoke(t, "", "check", "--fail-on", "routing-header", "--baseline", t.TempDir(), path)
	if code != exitFailed {
		t.Errorf("--fail-on routing-header: exit %d %s", code, stderr)
	}
}

// Every capture is recognised by exactly one registered format: the
// fixtures of every format, the project's mcpsnoop captures and the real
// ones (../shared, through sharedtest: a subtest that skips, or fails
// under MCPCHECK_REQUIRE_SHARED=1, when they are absent).
func TestFormatDetectionIsUnambiguous(t *testing.T) {
	t.Parallel()
	var paths []string
	for _, pattern := range []string{testdata("formats/*/*"), testdata("*.jsonl")} {
		m, _ := filepath.Glob(pattern)
		paths = append(paths, m...)
	}
	var names []string
	for _, f := range readers.All() {
		names = append(names, f.Name())
	}
	for _, name := range []string{"har", "mcp-rewind", "logrocket"} {
		if !slices.Contains(names, name) {
			t.Errorf("format %s is not registered (%v)", name, names)
		}
	}
	seen := map[string]bool{}
	detectEach(t, paths, seen)
	for _, name := range []string{"mcpsnoop", "har", "mcp-rewind", "logrocket"} {
		if !seen[name] {
			t.Errorf("no fixture was detected as %s", name)
		}
	}
	t.Run("shared captures", func(t *testing.T) {
		shared, _ := filepath.Glob(filepath.Join(sharedtest.Path(t, "captures"), "*.jsonl"))
		if len(shared) == 0 {
			t.Fatal("../shared/captures holds no .jsonl capture")
		}
		detectEach(t, shared, map[string]bool{})
	})
}

// detectEach holds each capture at paths to one detected format, the one
// its place or name says, and marks the formats seen.
func detectEach(t *testing.T, paths []string, seen map[string]bool) {
	t.Helper()
	for _, path := range paths {
		srcs, err := readers.Resolve([]string{path}, nil, os.Getenv)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		for _, src := range srcs {
			rc, err := src.Open()
			if err != nil {
				t.Fatal(err)
			}
			head, _ := io.ReadAll(io.LimitReader(rc, 64<<10))
			rc.Close()
			var by []string
			for _, f := range readers.All() {
				if f.Detect(head) {
					by = append(by, f.Name())
				}
			}
			if len(by) != 1 {
				t.Errorf("%s is detected by %v", src.Name, by)
				continue
			}
			seen[by[0]] = true
			want := "mcpsnoop"
			if dir := filepath.Base(filepath.Dir(src.Name)); dir != "formats" && filepath.Base(filepath.Dir(filepath.Dir(src.Name))) == "formats" {
				want = dir // testdata/formats/NAME holds that format's fixtures
			}
			switch base := filepath.Base(src.Name); {
			case strings.HasSuffix(base, ".har"):
				want = "har"
			case strings.HasSuffix(base, ".logrocket.json"):
				want = "logrocket"
			case base == "rewind-cache":
				want = "mcp-rewind"
			case want != "mcpsnoop":
			case !strings.HasSuffix(base, ".jsonl"):
				continue // another format's fixture: its own tests say which
			}
			if by[0] != want {
				t.Errorf("%s is detected as %s, want %s", src.Name, by[0], want)
			}
		}
	}
}

// A directory of captures that holds an mcp-rewind cache beside its
// mcpsnoop captures checks both; the cache is one capture.
func TestRewindCacheInADirectoryOfCaptures(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	dir := t.TempDir()
	copyTree(t, formatFixture("mcp-rewind/rewind-cache"), filepath.Join(dir, "rewind-cache"))
	copyTree(t, testdata("clean-stdio.jsonl"), filepath.Join(dir, "clean-stdio.jsonl"))
	_, rep := checkJSON(t, cli, t.TempDir(), dir)
	want := []string{filepath.Join(dir, "clean-stdio.jsonl"), filepath.Join(dir, "rewind-cache")}
	if !slices.Equal(rep.Files, want) {
		t.Errorf("files %v, want %v", rep.Files, want)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// streamSize is how much a streaming-memory test generates: 48 MiB by
// default, 200 MiB with MCPCHECK_LARGE_CAPTURE=1.
func streamSize(t *testing.T) int64 {
	if testing.Short() {
		t.Skip("-short: skipping the streaming-memory test")
	}
	if os.Getenv("MCPCHECK_LARGE_CAPTURE") == "1" {
		return 200 << 20
	}
	return 48 << 20
}

// checkStream checks what in gives through a mcpcheck process, which must
// pass a gate that damage fails, and fails the test when the process's
// peak resident memory passes 64 MiB.
func checkStream(t *testing.T, in io.Reader, what string) {
	t.Helper()
	const limit = 64 << 20
	peakFile := filepath.Join(t.TempDir(), "status")
	cmd := exec.Command(os.Args[0], "check", "--fail-on", "error,invalid,warn,incomplete", "--baseline", t.TempDir(), "-")
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "NO_COLOR=1", peakFileEnv+"="+peakFile)
	cmd.Stdin = bufio.NewReaderSize(in, 1<<20)
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = io.Discard
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcpcheck on %s: %v", what, err)
	}
	if !strings.Contains(out.String(), "check passed") {
		t.Fatalf("unexpected report:\n%.2000s", out.String())
	}
	// What was read is checked under the race detector too; the budget is not.
	racedetect.SkipUnderRace(t)
	status, err := os.ReadFile(peakFile)
	if err != nil {
		t.Skip("no /proc/self/status on this platform: peak RSS cannot be measured")
	}
	peak, ok := peakRSS(status)
	if !ok {
		t.Fatalf("no VmHWM in /proc/self/status:\n%s", status)
	}
	t.Logf("checked %s with peak RSS %.1f MiB", what, float64(peak)/(1<<20))
	if peak > limit {
		t.Errorf("peak RSS %d MiB exceeds %d MiB", peak>>20, limit>>20)
	}
}

// TestHARStreamsInBoundedMemory checks a generated HAR and bounds the
// process's memory: a HAR is walked entry by entry, never decoded whole.
func TestHARStreamsInBoundedMemory(t *testing.T) {
	gen := &harGenerator{limit: streamSize(t)}
	checkStream(t, gen, "a generated HAR")
	if gen.calls < 1000 {
		t.Errorf("only %d calls generated", gen.calls)
	}
	t.Logf("%d MiB, %d calls", gen.written>>20, gen.calls)
}

// TestLogRocketBatchStreamsInBoundedMemory does the same for one EventBatch
// whose events array is the whole file.
func TestLogRocketBatchStreamsInBoundedMemory(t *testing.T) {
	limit := streamSize(t)
	var written int64
	n, events := 0, 0
	var buf []byte
	in := readerFunc(func(p []byte) (int, error) {
		for len(buf) == 0 {
			switch {
			case n < 0:
				return 0, io.EOF
			case n == 0:
				buf = append(buf, `{"appID":"acme/notes","sdk":{"name":"logrocket-mcp-replay-go","version":"0.1.0"},"events":[`...)
				buf = append(buf, `{"type":"mcp_request","startTime":1788858000000,"durationMs":3,"method":"tools/list","params":{},"result":{"value":{"tools":[{"name":"read_note","inputSchema":{"type":"object"}}]}},"instanceID":"i1","seq":1}`...)
				n = 1
			case written >= limit:
				buf, n = append(buf, "]}\n"...), -1
			default:
				n++
				events = n
				text := strings.Repeat("A line of the note, long enough to look like real text. ", 1+n%40)
				buf = fmt.Appendf(buf, `,{"type":"mcp_request","startTime":%d,"durationMs":2,"method":"tools/call","target":"read_note","params":{"name":"read_note","arguments":{"path":"notes/%d.md"}},"result":{"value":{"content":[{"type":"text","text":%q}]}},"instanceID":"i1","seq":%d}`,
					1788858000000+int64(n)*10, n, text, n)
			}
			written += int64(len(buf))
		}
		k := copy(p, buf)
		buf = buf[k:]
		return k, nil
	})
	checkStream(t, in, "a generated LogRocket batch")
	if events < 1000 {
		t.Errorf("only %d events generated", events)
	}
	t.Logf("%d MiB, %d events", written>>20, events)
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// harGenerator writes a devtools-style HAR of one Streamable HTTP session:
// initialize, tools/list, then tool calls answered as JSON or on event
// streams, with the page's own requests in between, until limit bytes.
type harGenerator struct {
	limit, written int64
	buf            []byte
	step, calls    int
	done           bool
}

func (g *harGenerator) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.done {
			return 0, io.EOF
		}
		g.next()
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

func (g *harGenerator) emit(s string) {
	g.buf = append(g.buf, s...)
	g.written += int64(len(s))
}

func (g *harGenerator) entry(method, url string, reqHeaders [][2]string, post string, status int, resHeaders [][2]string, mime, text string) {
	hs := func(list [][2]string) string {
		var parts []string
		for _, h := range list {
			parts = append(parts, fmt.Sprintf(`{"name": %q, "value": %q}`, h[0], h[1]))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	postData := ""
	if post != "" {
		postData = fmt.Sprintf(",\n          \"postData\": {\"mimeType\": \"application/json\", \"text\": %s}", q(post))
	}
	sep := ",\n"
	if g.step == 1 {
		sep = ""
	}
	g.emit(fmt.Sprintf(`%s      {
        "startedDateTime": "2026-09-01T10:%02d:%02d.%03dZ",
        "time": 3.5,
        "request": {
          "method": %q,
          "url": %q,
          "httpVersion": "HTTP/1.1",
          "headers": %s,
          "queryString": [],
          "cookies": [],
          "headersSize": -1,
          "bodySize": %d%s
        },
        "response": {
          "status": %d,
          "statusText": "",
          "httpVersion": "HTTP/1.1",
          "headers": %s,
          "cookies": [],
          "content": {"size": %d, "mimeType": %q, "text": %s},
          "redirectURL": "",
          "headersSize": -1,
          "bodySize": -1
        },
        "cache": {},
        "timings": {"send": 0.1, "wait": 3, "receive": 0.4}
      }`, sep, (g.step/60000)%60, (g.step/1000)%60, g.step%1000, method, url, hs(reqHeaders), len(post), postData, status, hs(resHeaders), len(text), mime, q(text)))
}

func (g *harGenerator) next() {
	const url = "http://localhost:3001/mcp"
	session := [2]string{"Mcp-Session-Id", "gen-1"}
	post := [][2]string{{"Accept", "application/json, text/event-stream"}, {"Content-Type", "application/json"}, session, {"MCP-Protocol-Version", "2025-11-25"}}
	g.step++
	switch {
	case g.step == 1:
		g.emit("{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"creator\": {\"name\": \"WebInspector\", \"version\": \"537.36\"},\n    \"entries\": [\n")
		g.entry("POST", url, post[:2], `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"gen","version":"1"}}}`,
			200, [][2]string{{"Content-Type", "application/json"}, session}, "application/json",
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"notes","version":"1"}}}`)
	case g.step == 2:
		g.entry("POST", url, post, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, nil, "x-unknown", "")
	case g.step == 3:
		g.entry("POST", url, post, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200, [][2]string{{"Content-Type", "application/json"}}, "application/json",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read_note","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}}`)
	case g.written >= g.limit:
		g.emit("\n    ]\n  }\n}\n")
		g.done = true
	case g.step%10 == 0:
		g.entry("GET", fmt.Sprintf("http://localhost:5173/assets/chunk-%d.js", g.step), nil, "", 200, [][2]string{{"Content-Type", "text/javascript"}}, "text/javascript",
			strings.Repeat("export const x=1;", 40))
	default:
		g.calls++
		id := g.calls + 1
		text := strings.Repeat("A line of the note, long enough to look like real text. ", 1+id%40)
		result := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, id, text)
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_note","arguments":{"path":"notes/%d.md"}}}`, id, id)
		if id%2 == 0 {
			g.entry("POST", url, post, req, 200, [][2]string{{"Content-Type", "text/event-stream"}}, "text/event-stream", "id: 0\ndata:\n\nevent: message\nid: 1\ndata: "+result+"\n\n")
		} else {
			g.entry("POST", url, post, req, 200, [][2]string{{"Content-Type", "application/json"}}, "application/json", result)
		}
	}
}
