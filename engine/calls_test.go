package engine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/internal/racedetect"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
)

// runCalls checks sources with calls recorded and returns the sessions.
func runCalls(t *testing.T, sources ...readers.Source) []*result.SessionResult {
	t.Helper()
	res, err := Run(sources, Config{Rules: checks.All(), RecordCalls: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Close() })
	var out []*result.SessionResult
	for s := range res.AllSessions() {
		out = append(out, s)
	}
	return out
}

func fileSource(path string) readers.Source {
	return readers.Source{Name: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// What a session's calls did, from recorded captures: a cancelled call
// with its progress, one cancelled and never answered, an answered one;
// a failed call and one never answered; durations from the timestamps,
// and excerpts of the messages.
func TestCallsOfRecordedSessions(t *testing.T) {
	t.Parallel()
	byID := map[string]*result.SessionResult{}
	for _, s := range runCalls(t, fileSource(filepath.Join("..", "testdata", "recorder-artifacts.jsonl")), fileSource(filepath.Join("..", "testdata", "demo-session.jsonl"))) {
		byID[s.ID] = s
	}
	art := byID["notes-artifacts-3"]
	if art == nil || art.Calls == nil {
		t.Fatalf("no calls for notes-artifacts-3: %v", byID)
	}
	c := art.Calls
	if c.Cancelled != 2 || c.Progress != 2 {
		t.Errorf("cancelled %d, progress %d; want 2 cancelled and both progress notifications of call 2 (one after its cancellation)", c.Cancelled, c.Progress)
	}
	call := func(c *result.Calls, id string) *result.Call {
		for i := range c.Drawn {
			if c.Drawn[i].ID == id {
				return &c.Drawn[i]
			}
		}
		t.Fatalf("call id %s not drawn: %+v", id, c.Drawn)
		return nil
	}
	if x := call(c, "2"); !x.Cancelled || x.Progress != 2 || x.Name != "search_notes" || x.Line != 6 || !strings.Contains(x.Request, `"progressToken":2`) {
		t.Errorf("call 2 = %+v; want cancelled, its progress counted, its request excerpted", x)
	}
	if x := call(c, "3"); !x.Cancelled || x.Answered || x.Outcome != "cancelled before an answer" || x.Duration != -1 {
		t.Errorf("call 3 = %+v; want cancelled before an answer, no duration", x)
	}

	demo := byID["notes-7f3a"].Calls
	if demo == nil || demo.Total != 7 || demo.Failed != 1 || demo.Unanswered != 1 {
		t.Fatalf("demo calls = %+v; want 7 calls, 1 failed, 1 never answered", demo)
	}
	if x := call(demo, "4"); !x.Failed || x.Outcome != "isError result" || x.Duration != 7*time.Millisecond || !strings.Contains(x.Answer, "Access denied") || x.AnswerLine != 13 {
		t.Errorf("call 4 = %+v; want the failed read_note, 7ms, its answer excerpted", x)
	}
	if x := call(demo, "6"); x.Answered || x.Outcome != "never answered" || x.Method != "ping" {
		t.Errorf("call 6 = %+v; want the ping never answered", x)
	}
	if demo.First.IsZero() || !demo.Last.After(demo.First) {
		t.Errorf("time axis %v to %v", demo.First, demo.Last)
	}
	var read *result.ToolStats
	for i := range demo.Tools {
		if demo.Tools[i].Name == "tools/call read_note" {
			read = &demo.Tools[i]
		}
	}
	if read == nil || read.Calls != 2 || read.Errors != 1 || read.Timed != 2 || read.P50 <= 0 || read.P95 < read.P50 || read.Max < read.P95 {
		t.Errorf("read_note row = %+v; want 2 calls, 1 error, ordered percentiles", read)
	}
}

// A run that draws no calls records none: the text, JSON and SARIF paths
// pay nothing for the HTML report.
func TestCallsNotRecordedUnlessAsked(t *testing.T) {
	t.Parallel()
	res, err := Run([]readers.Source{fileSource(filepath.Join("..", "testdata", "demo-session.jsonl"))}, Config{Rules: checks.All()})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if res.Sessions[0].Calls != nil {
		t.Errorf("calls recorded without RecordCalls: %+v", res.Sessions[0].Calls)
	}
}

// Excerpts mask secrets and are cut at MaxExcerpt bytes on a character
// boundary; a secret across the cut is masked whole, not shown in part.
func TestExcerpt(t *testing.T) {
	t.Parallel()
	token := "ghp_" + strings.Repeat("aB3dE6gH9k", 3) + "123456"
	raw := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"auth":"` + token + `","text":"` + strings.Repeat("é", 400) + `"}}}`
	got, clipped := excerpt([]byte(raw))
	if strings.Contains(got, token[:12]) || !clipped || len(got) > result.MaxExcerpt || !strings.HasPrefix(got, `{"jsonrpc":"2.0"`) {
		t.Errorf("excerpt = %q (clipped %v); want the token masked, cut to %d bytes", got, clipped, result.MaxExcerpt)
	}
	if !strings.HasSuffix(got, "é") && !strings.HasSuffix(got, `"`) {
		t.Errorf("excerpt cut inside a character: %q", got[len(got)-4:])
	}
	short, clipped := excerpt([]byte(`{"id":1}`))
	if short != `{"id":1}` || clipped {
		t.Errorf("a short message: %q, %v", short, clipped)
	}
}

// callCapture is a generated mcpsnoop capture of one session with n tool
// calls over tools distinct tools, every failEvery-th answered with a
// tool error; written as it is read, so that no test holds it.
type callCapture struct {
	n, tools, failEvery int
	i                   int
	buf                 []byte
	seq                 int
}

func (c *callCapture) line(dir, raw string) {
	c.seq++
	ts := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(c.seq) * time.Millisecond).Format(time.RFC3339Nano)
	c.buf = fmt.Appendf(c.buf, `{"session_id":"big","server_label":"srv","seq":%d,"ts":"%s","direction":"%s","transport":"stdio","raw":%s}`+"\n", c.seq, ts, dir, raw)
}

func (c *callCapture) Read(p []byte) (int, error) {
	for len(c.buf) < len(p) && c.i <= c.n {
		if c.i == 0 {
			c.line("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`)
			c.line("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"srv","version":"1"}}}`)
			c.line("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		} else {
			isError := c.i%c.failEvery == 0
			c.line("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"tool-%d","arguments":{}}}`, c.i, c.i%c.tools))
			c.line("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ok"}],"isError":%v}}`, c.i, isError))
		}
		c.i++
	}
	if len(c.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.buf)
	c.buf = c.buf[:copy(c.buf, c.buf[n:])]
	return n, nil
}

// heapAtEOFOfCalls runs a callCapture of n calls with calls recorded and
// returns the live heap when the reader meets the end of the capture
// (before the session ends), and the session's calls.
func heapAtEOFOfCalls(t *testing.T, n int) (uint64, *result.Calls) {
	var heap uint64
	src := readers.Source{Name: "big.jsonl", Open: func() (io.ReadCloser, error) {
		return io.NopCloser(&atEOF{r: &callCapture{n: n, tools: 300, failEvery: 1000}, at: func() {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap = ms.HeapAlloc
		}}), nil
	}}
	// The rules that keep per-call state of their own are not what this
	// measures: only what recording calls adds.
	res, err := Run([]readers.Source{src}, Config{Rules: []*checks.Rule{checks.Lookup(checks.All(), "tool-error")}, RecordCalls: true})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var calls *result.Calls
	for s := range res.AllSessions() {
		calls = s.Calls
	}
	return heap, calls
}

// Done when: a capture of a million calls gives bounded calls and bounded
// memory: every call counted, at most the notable and the slowest drawn,
// at most MaxToolRows rows and one for the rest, and the heap at the end
// of the capture within a fixed margin of that of a capture a hundred
// times smaller. (Counted in bytes and calls, never timed.)
func TestCallsOfAMillionCallsAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a million calls take seconds to read")
	}
	racedetect.SkipUnderRace(t)
	const big, small = 1_000_000, 10_000
	smallHeap, _ := heapAtEOFOfCalls(t, small)
	bigHeap, c := heapAtEOFOfCalls(t, big)
	t.Logf("heap at the end of the capture: %d KiB for %d calls, %d KiB for %d", smallHeap>>10, small, bigHeap>>10, big)
	if c == nil {
		t.Fatal("no calls recorded")
	}
	if c.Total != big+1 || c.Failed != big/1000 { // initialize is a call too
		t.Fatalf("%d calls, %d failed; want %d calls, %d failed", c.Total, c.Failed, big+1, big/1000)
	}
	if len(c.Drawn) > result.MaxNotableCalls+result.MaxSlowCalls || c.NotDrawn != int64(big+1-len(c.Drawn)) {
		t.Errorf("%d drawn, %d not drawn; want at most %d drawn and the rest counted", len(c.Drawn), c.NotDrawn, result.MaxNotableCalls+result.MaxSlowCalls)
	}
	failed := 0
	for _, x := range c.Drawn {
		if x.Failed {
			failed++
		}
	}
	if failed != result.MaxNotableCalls {
		t.Errorf("%d failed calls drawn; want the first %d", failed, result.MaxNotableCalls)
	}
	if len(c.Tools) != result.MaxToolRows+1 || c.Tools[len(c.Tools)-1].Name != result.OtherTools {
		t.Errorf("%d tool rows, the last %q; want %d and one for the rest", len(c.Tools), c.Tools[len(c.Tools)-1].Name, result.MaxToolRows+1)
	}
	var sum int64
	for _, row := range c.Tools {
		sum += row.Calls
	}
	if sum != big+1 {
		t.Errorf("the tool rows count %d calls, want %d", sum, big+1)
	}
	if grew := int64(bigHeap) - int64(smallHeap); grew > 4<<20 {
		t.Errorf("the heap grew by %d KiB from %d to %d calls; want it bounded (under 4 MiB)", grew>>10, small, big)
	}
}
