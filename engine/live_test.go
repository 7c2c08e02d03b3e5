package engine

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/internal/racedetect"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
)

// openCapture describes a capture of sessions that all stay open until its
// end (mcpsnoop sessions have no end marker), interleaved a call at a time.
type openCapture struct {
	sessions, calls int
	failing         bool // every call is answered with a tool error
	// caused: every call lacks the argument read_file's schema (a listing
	// the test gives) requires and is answered with -32602: a jsonrpc-error
	// that names its cause, the input-schema finding.
	caused bool
	tokens bool // every call carries a progress token
	// listing, when set, is the tools/list result session s records
	// before its calls.
	listing func(s int) string
}

// bytes writes the capture. Failing and tokens change nothing else, not
// even its length.
func (c openCapture) bytes() []byte {
	var b bytes.Buffer
	seq := make([]int, c.sessions)
	line := func(s int, dir, raw string) {
		seq[s]++
		fmt.Fprintf(&b, `{"session_id":"run-%d","server_label":"srv","seq":%d,"ts":"2026-09-01T10:00:00.%06dZ","direction":"%s","transport":"stdio","raw":%s}`+"\n",
			s, seq[s], seq[s], dir, raw)
	}
	for s := 0; s < c.sessions; s++ {
		line(s, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`)
		line(s, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"srv","version":"1"}}}`)
		line(s, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if c.listing != nil {
			line(s, "c2s", `{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
			line(s, "s2c", `{"jsonrpc":"2.0","id":"list","result":`+c.listing(s)+`}`)
		}
	}
	isError := "false"
	if c.failing {
		isError = "true "
	}
	arg := "path"
	if c.caused {
		arg = "file"
	}
	for i := 1; i <= c.calls; i++ {
		meta := fmt.Sprintf(`"_nota":{"progressToken":"p-%06d"}`, i)
		if c.tokens {
			meta = fmt.Sprintf(`"_meta":{"progressToken":"p-%06d"}`, i)
		}
		for s := 0; s < c.sessions; s++ {
			line(s, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"%s":"/srv/work/module-%d/file.go"},%s}}`, i, arg, i, meta))
			if c.caused {
				line(s, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"Invalid params: path is required"}}`, i))
				continue
			}
			line(s, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ENOENT: no such file or directory, open '/srv/work/module-%d/file.go'"}],"isError":%s}}`, i, i, isError))
		}
	}
	return b.Bytes()
}

// atEOF calls at when the capture has been read to its end, before any of
// its sessions ends.
type atEOF struct {
	r  io.Reader
	at func()
}

func (e *atEOF) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF && e.at != nil {
		e.at()
		e.at = nil
	}
	return n, err
}

// heldAtEOF runs every rule over the capture and returns the bytes of live heap
// at its end, while its sessions are open, and the findings made by then.
func heldAtEOF(t *testing.T, c openCapture) (heap uint64, found int64) {
	t.Helper()
	racedetect.SkipUnderRace(t)
	// Read from a file, so that the capture is not in the heap measured;
	// on one goroutine, so that when the reader meets the end of the file
	// every frame has been correlated (a pipeline's correlation trails it).
	path := filepath.Join(t.TempDir(), "open.jsonl")
	if err := os.WriteFile(path, c.bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	src := readers.Source{Name: "open.jsonl", Open: func() (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return struct {
			io.Reader
			io.Closer
		}{&atEOF{r: f, at: func() {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap, found = ms.HeapAlloc, n.Load()
		}}, f}, nil
	}}
	res, err := Run([]readers.Source{src}, Config{Rules: checks.All(), Found: &n, Reading: readers.Options{Limits: session.Limits{Pipeline: session.PipelineNever}}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if got := int64(res.NumFindings()); got != n.Load() {
		t.Fatalf("%d findings listed, %d made", got, n.Load())
	}
	return heap, found
}

// The findings of open sessions cost memory in proportion to their number
// only up to a budget (spec §2.4): twenty open sessions with a thousand
// tool errors each hold about the budget between them, some 13 bytes a
// finding, where a finding takes some 580 as Go objects and 200 encoded.
func TestOpenSessionsHoldFindingsCompactly(t *testing.T) {
	const sessions, calls = 20, 1000
	clean, none := heldAtEOF(t, openCapture{sessions: sessions, calls: calls})
	failing, found := heldAtEOF(t, openCapture{sessions: sessions, calls: calls, failing: true})
	if none != 0 || found != sessions*calls {
		t.Fatalf("%d findings on the clean capture, %d on the failing one; want 0 and %d", none, found, sessions*calls)
	}
	per := (int64(failing) - int64(clean)) / found
	t.Logf("%d findings in %d open sessions: %d bytes each (%d KiB in all)", found, sessions, per, (int64(failing)-int64(clean))>>10)
	if per > 32 {
		t.Errorf("open sessions hold %d bytes per finding; want at most 32", per)
	}
}

// A finding that names its cause (a -32602 answer after the input-schema
// finding on its request) is held as compactly as any other: they were
// once kept whole (445 bytes a finding here), and a server that answers
// every bad call so grew the heap with the calls (issue 26). What is left,
// about 110 bytes a finding, is mostly the cause marked on each request.
func TestOpenSessionsHoldCausedFindingsCompactly(t *testing.T) {
	const sessions, calls = 20, 1000
	listing := func(int) string {
		return `{"tools":[{"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}`
	}
	clean, none := heldAtEOF(t, openCapture{sessions: sessions, calls: calls, listing: listing})
	caused, found := heldAtEOF(t, openCapture{sessions: sessions, calls: calls, listing: listing, caused: true})
	if none != 0 || found != 2*sessions*calls {
		t.Fatalf("%d findings on the clean capture, %d on the other; want 0 and %d", none, found, 2*sessions*calls)
	}
	per := (int64(caused) - int64(clean)) / found
	t.Logf("%d findings in %d open sessions: %d bytes each (%d KiB in all)", found, sessions, per, (int64(caused)-int64(clean))>>10)
	if per > 160 {
		t.Errorf("open sessions hold %d bytes per finding; want at most 160", per)
	}
}

// A session remembers the progress tokens of its requests (up to 8,192),
// but not the requests themselves once nothing can change what became of
// them: twenty open sessions of a thousand answered calls with a token
// each hold under 400 bytes per token for the two progress rules (about
// 380: two map entries, the order of eviction, the token, and what a report
// names of the request), not the calls (256 bytes each, 500 per token in
// all when the rules kept them).
func TestOpenSessionsRememberTokensNotCalls(t *testing.T) {
	const sessions, calls = 20, 1000
	without, none := heldAtEOF(t, openCapture{sessions: sessions, calls: calls})
	with, found := heldAtEOF(t, openCapture{sessions: sessions, calls: calls, tokens: true})
	if none != 0 || found != 0 {
		t.Fatalf("%d and %d findings; want none", none, found)
	}
	per := (int64(with) - int64(without)) / (sessions * calls)
	t.Logf("%d tokens in %d open sessions: %d bytes each (%d KiB in all)", sessions*calls, sessions, per, (int64(with)-int64(without))>>10)
	if per > 400 {
		t.Errorf("open sessions hold %d bytes per progress token; want at most 400", per)
	}
}

// toolsResult is a tools/list result of twenty tools with schemas, the one
// read_file the calls name among them; a description may tell sessions
// apart.
func toolsResult(description string) string {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := 0; i < 20; i++ {
		name := fmt.Sprintf("tool_%d", i)
		if i == 0 {
			name = "read_file"
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":%q,"description":"%s %s","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"the file to work on, relative to the workspace root"},"depth":{"type":"integer","minimum":0,"maximum":16}},"required":["path"]},"annotations":{"readOnlyHint":true}}`, name, name, description)
	}
	b.WriteString(`]}`)
	return b.String()
}

// Sessions of one server list the same tools: fifty open sessions hold one
// copy of a listing between them, not one each (some 27 KiB for twenty
// tools, in the catalogue and in the form a baseline compares).
func TestOpenSessionsShareTheirTools(t *testing.T) {
	const sessions, calls = 50, 20
	// The calls need a listing that names their tool, or unknown-tool
	// holds them until one comes.
	base, _ := heldAtEOF(t, openCapture{sessions: sessions, calls: calls, listing: func(int) string {
		return `{"tools":[{"name":"read_file","inputSchema":{"type":"object"}}]}`
	}})
	perSession := func(listing func(s int) string) int64 {
		heap, found := heldAtEOF(t, openCapture{sessions: sessions, calls: calls, listing: listing})
		if found != 0 {
			t.Fatalf("%d findings; want none", found)
		}
		return (int64(heap) - int64(base)) / sessions
	}
	same := func(int) string { return toolsResult("does its work") }
	own := func(s int) string { return toolsResult(fmt.Sprint("session ", s)) }
	shared, separate := perSession(same), perSession(own)
	t.Logf("a session's listing: %d bytes when all list the same tools, %d when each lists its own", shared, separate)
	if shared > 4<<10 {
		t.Errorf("open sessions that list the same tools hold %d bytes each for them; want at most 4 KiB", shared)
	}
}

// fillLogged sets every exported field of a finding as a rule reports it
// but a tool change, which keeps a finding whole, and its exchange.
func fillLogged(t *testing.T, w *reported) {
	n := 0
	fill(t, reflect.ValueOf(&w.fd).Elem(), &n)
	w.fd.Drift = nil
	w.ex = &result.Exchange{}
	fill(t, reflect.ValueOf(w.ex).Elem(), &n)
	w.ex.Answer = "" // so that the call's outcome is learnt
	w.fd.Track(w)
}

// plainOf is the finding the engine makes of w: every field of
// checks.Finding carried by name, the exchange, and what became of the
// call (finish).
func plainOf(w *reported) *result.Finding {
	fd := &result.Finding{}
	out, in := reflect.ValueOf(fd).Elem(), reflect.ValueOf(w.fd)
	for i := 0; i < in.NumField(); i++ {
		if f := in.Type().Field(i); f.IsExported() {
			out.FieldByName(f.Name).Set(in.Field(i))
		}
	}
	if w.ex != nil {
		ex := *w.ex
		finish(&ex, w.call)
		fd.Exchange = &ex
	}
	return fd
}

// Every exported field of a finding as a rule reports it is a field of the
// plain finding, and the plain finding has only those and what the engine
// sets: a field added to either must be added to the other and to the
// codecs (live.go, codec.go), whose tests then cover it.
func TestFindingFieldsMatch(t *testing.T) {
	t.Parallel()
	engineSet := map[string]bool{"Label": true, "Fingerprint": true, "Gated": true, "Suppressed": true, "Exchange": true, "Existing": true}
	reportedBy := map[string]bool{}
	rt := reflect.TypeOf(checks.Finding{})
	for i := 0; i < rt.NumField(); i++ {
		if f := rt.Field(i); f.IsExported() {
			reportedBy[f.Name] = true
			if pf, ok := reflect.TypeOf(result.Finding{}).FieldByName(f.Name); !ok || pf.Type != f.Type {
				t.Errorf("checks.Finding.%s is not a field of result.Finding of the same type", f.Name)
			}
		}
	}
	pt := reflect.TypeOf(result.Finding{})
	for i := 0; i < pt.NumField(); i++ {
		if f := pt.Field(i); !reportedBy[f.Name] && !engineSet[f.Name] {
			t.Errorf("result.Finding.%s is neither reported by a rule nor set by the engine: add it to one, and to the codecs", f.Name)
		}
	}
}

// A finding read back from a session's log is the one reported: every
// exported field the log encodes, whatever is added later, in memory and
// from the temporary file, in report order with the findings kept whole.
func TestLoggedFindingsReadBackWhole(t *testing.T) {
	t.Parallel()
	for _, budget := range []int{1 << 20, 0} {
		t.Run(fmt.Sprintf("budget %d", budget), func(t *testing.T) {
			t.Parallel()
			s := &session.Session{ID: "s1", File: "a.jsonl"}
			sr := &sessionRun{s: s}
			sp := liveSpill{budget: budget}
			defer sp.close()

			var want []*reported
			full := &reported{}
			fillLogged(t, full)
			full.call = &session.Call{Method: "tools/call"}
			plain := &reported{fd: checks.Finding{Rule: "tool-error", Message: "m", File: s.File, Session: s.ID, Line: 7}}
			pinned := &reported{fd: checks.Finding{Rule: "capability", Message: "held by repeats"}}
			pinned.Pin()
			drift := &reported{fd: checks.Finding{Rule: "tool-drift"}}
			fill(t, reflect.ValueOf(&drift.fd).Elem(), new(int))
			withZeroTimes := &reported{fd: checks.Finding{Rule: "late-result"}, ex: &result.Exchange{Method: "ping", Sent: time.Time{}}}
			// Times in another zone keep their offset.
			zoned := &reported{fd: checks.Finding{Rule: "r"}, ex: &result.Exchange{Sent: time.Date(2026, 9, 1, 10, 0, 0, 5, time.FixedZone("", 5*3600+45*60))}}
			var held []*reported
			for round := 0; round < 3; round++ {
				for _, w := range []*reported{full, plain, pinned, drift, withZeroTimes, zoned} {
					cp := *w
					if w.ex != nil {
						ex := *w.ex
						cp.ex = &ex
					}
					cp.fd.Track(&cp)
					sr.findings = append(sr.findings, &cp)
					want = append(want, &cp)
					if cp.pinned {
						held = append(held, &cp)
					}
				}
				sr.seal(&sp)
			}
			// A rule counts on the findings it holds after they were sealed.
			for _, w := range held {
				w.fd.Also += 3
			}
			last := &reported{fd: checks.Finding{Rule: "unsealed", Message: "reported in the session's last step"}}
			sr.findings = append(sr.findings, last)
			want = append(want, last)
			if budget == 0 && sp.file.Size() == 0 {
				t.Fatal("nothing went to the temporary file with no budget")
			}
			if budget > 0 && sp.file.Open() {
				t.Fatal("a few findings went to the temporary file")
			}

			got := sr.loggedFindings(&sp)
			if sp.err != nil {
				t.Fatal(sp.err)
			}
			if len(got) != len(want) {
				t.Fatalf("read back %d findings, want %d", len(got), len(want))
			}
			for i := range want {
				if w := plainOf(want[i]); !reflect.DeepEqual(got[i], w) {
					t.Errorf("finding %d read back as\n%+v\nwant\n%+v", i, got[i], w)
				}
			}
			if sp.mem != 0 {
				t.Errorf("the ended session still counts %d bytes against the budget", sp.mem)
			}
		})
	}
}

// A finding reported at a request learns what became of the call when its
// session ends; a call that settled before then is let go, and the finding
// learns the same from what the log kept of it.
func TestLoggedFindingsLetSettledCallsGo(t *testing.T) {
	t.Parallel()
	s := &session.Session{ID: "s1", File: "a.jsonl"}
	sr := &sessionRun{s: s}
	sp := liveSpill{budget: DefaultLiveBytes}
	defer sp.close()
	answered := &session.Call{Method: "tools/call", Name: "build", State: session.Pending}
	pending := &session.Call{Method: "tools/call", Name: "lint", State: session.Pending}
	for _, c := range []*session.Call{answered, pending} {
		sr.findings = append(sr.findings, &reported{fd: checks.Finding{Rule: "input-schema"}, ex: newExchange(c), call: c})
	}
	sr.seal(&sp)
	end := time.Date(2026, 9, 1, 10, 0, 1, 0, time.UTC)
	answered.State, answered.Answers, answered.End = session.Completed, 1, end
	sr.findings = append(sr.findings, &reported{fd: checks.Finding{Rule: "tool-error"}})
	sr.seal(&sp) // looks at the calls that may still change
	if sr.log.calls[0].c != nil || sr.log.calls[1].c != pending {
		t.Fatalf("kept calls %p and %p; want the answered one let go, the pending one kept", sr.log.calls[0].c, sr.log.calls[1].c)
	}
	got := sr.loggedFindings(&sp) // each finding has learnt what became of its call
	if ex := got[0].Exchange; ex.Answer != "result" || !ex.Answered.Equal(end) {
		t.Errorf("the answered call's finding learnt %+v", ex)
	}
	if ex := got[1].Exchange; ex.Answer != "" || ex.Note != "never answered" {
		t.Errorf("the pending call's finding learnt %+v", ex)
	}
}
