package checks

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

	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
)

// openCapture describes a capture of sessions that all stay open until its
// end (mcpsnoop sessions have no end marker), interleaved a call at a time.
type openCapture struct {
	sessions, calls int
	failing         bool // every call is answered with a tool error
	tokens          bool // every call carries a progress token
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
	for i := 1; i <= c.calls; i++ {
		meta := fmt.Sprintf(`"_nota":{"progressToken":"p-%06d"}`, i)
		if c.tokens {
			meta = fmt.Sprintf(`"_meta":{"progressToken":"p-%06d"}`, i)
		}
		for s := 0; s < c.sessions; s++ {
			line(s, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"/srv/work/module-%d/file.go"},%s}}`, i, i, meta))
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
	res, err := Run([]readers.Source{src}, Config{Rules: All(), Found: &n, Reading: readers.Options{Limits: session.Limits{Pipeline: session.PipelineNever}}})
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

// fillLogged sets the fields of a finding the log encodes, every exported
// one but those only the end of a session sets and a tool change, which
// keep a finding whole.
func fillLogged(t *testing.T, fd *Finding) {
	n := 0
	fill(t, reflect.ValueOf(fd).Elem(), &n)
	fd.Label, fd.Fingerprint, fd.Gated, fd.Suppressed, fd.Drift = "", "", false, nil, nil
}

// A finding read back from a session's log is the one reported: every
// exported field the log encodes, whatever is added later, in memory and
// from the temporary file, in report order with the findings kept whole.
func TestLoggedFindingsReadBackWhole(t *testing.T) {
	for _, budget := range []int{1 << 20, 0} {
		t.Run(fmt.Sprintf("budget %d", budget), func(t *testing.T) {
			defer SetResultBudgetForTesting(budget)()
			s := &session.Session{ID: "s1", File: "a.jsonl"}
			sr := &sessionRun{s: s}
			var sp liveSpill
			defer sp.close()

			var want []*Finding
			full := &Finding{}
			fillLogged(t, full)
			full.call = &session.Call{Method: "tools/call"}
			plain := &Finding{Rule: "tool-error", Message: "m", File: s.File, Session: s.ID, Line: 7}
			pinned := &Finding{Rule: "capability", Message: "held by repeats"}
			pinned.pin()
			drift := &Finding{Rule: "tool-drift", Drift: nil}
			fill(t, reflect.ValueOf(drift).Elem(), new(int))
			withZeroTimes := &Finding{Rule: "late-result", Exchange: &Exchange{Method: "ping", Sent: time.Time{}}}
			// Times in another zone keep their offset.
			zoned := &Finding{Rule: "r", Exchange: &Exchange{Sent: time.Date(2026, 9, 1, 10, 0, 0, 5, time.FixedZone("", 5*3600+45*60))}}
			for round := 0; round < 3; round++ {
				for _, fd := range []*Finding{full, plain, pinned, drift, withZeroTimes, zoned} {
					cp := *fd
					if fd.Exchange != nil {
						ex := *fd.Exchange
						cp.Exchange = &ex
					}
					sr.findings = append(sr.findings, &cp)
					want = append(want, &cp)
				}
				sr.seal(&sp)
			}
			last := &Finding{Rule: "unsealed", Message: "reported in the session's last step"}
			sr.findings = append(sr.findings, last)
			want = append(want, last)
			if budget == 0 && sp.size == 0 {
				t.Fatal("nothing went to the temporary file with no budget")
			}
			if budget > 0 && sp.f != nil {
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
				if want[i].keepsWhole() && got[i] != want[i] {
					t.Errorf("finding %d was kept whole, yet read back as a copy", i)
				}
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("finding %d read back as\n%+v\nwant\n%+v", i, got[i], want[i])
				}
			}
			if sp.mem != 0 {
				t.Errorf("the ended session still counts %d bytes against the budget", sp.mem)
			}
		})
	}
}

// A token reused by request after request that never settles (a task
// running, an answer still to come) is looked at once per registration, not
// once per request that ever carried it: what waits to settle stays bounded
// by the tokens remembered.
func TestTokenTableForgetsReplacedRequests(t *testing.T) {
	var r progressRule
	keys := []tokenKey{{session.ClientToServer, "a"}, {session.ClientToServer, "b"}}
	for i := 0; i < 10000; i++ {
		r.register(keys[i%2], &session.Call{State: session.Pending})
	}
	if n := len(r.tokens.unsettled); n > len(keys)+2 {
		t.Errorf("%d requests wait to settle for %d tokens", n, len(keys))
	}
	answered := &session.Call{State: session.Completed, Answers: 1, Line: 9, EndLine: 12}
	r.register(keys[0], answered)
	r.register(keys[1], &session.Call{State: session.Pending})
	r.register(keys[1], &session.Call{State: session.Pending})
	if u := r.tokens.uses[keys[0]]; u.call != nil || u.done.endLine != 12 {
		t.Errorf("an answered request is kept as %+v; want let go, with its lines", u)
	}
}

// A finding reported at a request learns what became of the call when its
// session ends; a call that settled before then is let go, and the finding
// learns the same from what the log kept of it.
func TestLoggedFindingsLetSettledCallsGo(t *testing.T) {
	s := &session.Session{ID: "s1", File: "a.jsonl"}
	sr := &sessionRun{s: s}
	var sp liveSpill
	defer sp.close()
	answered := &session.Call{Method: "tools/call", Name: "build", State: session.Pending}
	pending := &session.Call{Method: "tools/call", Name: "lint", State: session.Pending}
	for _, c := range []*session.Call{answered, pending} {
		sr.findings = append(sr.findings, &Finding{Rule: "input-schema", Exchange: newExchange(c), call: c})
	}
	sr.seal(&sp)
	end := time.Date(2026, 9, 1, 10, 0, 1, 0, time.UTC)
	answered.State, answered.Answers, answered.End = session.Completed, 1, end
	sr.findings = append(sr.findings, &Finding{Rule: "tool-error"})
	sr.seal(&sp) // looks at the calls that may still change
	if sr.log.calls[0].c != nil || sr.log.calls[1].c != pending {
		t.Fatalf("kept calls %p and %p; want the answered one let go, the pending one kept", sr.log.calls[0].c, sr.log.calls[1].c)
	}
	got := sr.loggedFindings(&sp)
	for _, fd := range got {
		fd.finish()
	}
	if ex := got[0].Exchange; ex.Answer != "result" || !ex.Answered.Equal(end) {
		t.Errorf("the answered call's finding learnt %+v", ex)
	}
	if ex := got[1].Exchange; ex.Answer != "" || ex.Note != "never answered" {
		t.Errorf("the pending call's finding learnt %+v", ex)
	}
}
