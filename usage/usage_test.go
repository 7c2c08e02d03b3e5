package usage

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/session"
)

func TestArgumentHashIsCanonical(t *testing.T) { // not parallel: it counts allocations
	same := [][2]string{
		{`{"a":1,"b":"x"}`, `{ "b" : "x", "a" : 1 }`},
		{`{"o":{"p":[1,2],"q":null}}`, "{\n\"o\": {\"q\": null, \"p\": [1, 2]}}"},
		{``, `{}`},
		{`null`, `{}`},
	}
	for _, c := range same {
		if hashArgs([]byte(c[0])) != hashArgs([]byte(c[1])) {
			t.Errorf("%s and %s hash differently", c[0], c[1])
		}
	}
	differ := [][2]string{
		{`{"a":1}`, `{"a":2}`},
		{`{"a":1}`, `{"b":1}`},
		{`{"a":[1,2]}`, `{"a":[2,1]}`}, // element order matters
		{`{"a":"1"}`, `{"a":1}`},
		{`{"a":{"b":1},"c":2}`, `{"a":{"c":2},"b":1}`}, // members do not move between objects
		{`{"a":1,"b":1}`, `{"a":1}`},
		{`{}`, `[]`},
	}
	for _, c := range differ {
		if hashArgs([]byte(c[0])) == hashArgs([]byte(c[1])) {
			t.Errorf("%s and %s hash the same", c[0], c[1])
		}
	}
	args := []byte(`{"sql":"select 1","opts":{"limit":[1,2,3]}}`)
	if n := testing.AllocsPerRun(100, func() { hashArgs(args) }); n != 0 {
		t.Errorf("hashing allocates %.0f times", n)
	}
}

func TestLatencyPercentiles(t *testing.T) {
	t.Parallel()
	var l Latencies
	for i := 100; i >= 1; i-- {
		l.Add(time.Duration(i) * time.Millisecond)
	}
	s := l.Summary()
	if s.Count != 100 || s.P50 != 50*time.Millisecond || s.P95 != 95*time.Millisecond || s.P99 != 99*time.Millisecond || s.Max != 100*time.Millisecond || s.Approximate {
		t.Errorf("exact: %+v", s)
	}
	// Past maxExact the durations go to buckets: bounded, within 2%.
	var b Latencies
	for i := 1; i <= 200_000; i++ {
		b.Add(time.Duration(i) * time.Microsecond)
	}
	s = b.Summary()
	if !s.Approximate || len(b.buckets) > 1000 || b.exact != nil {
		t.Errorf("%d buckets, approximate %v", len(b.buckets), s.Approximate)
	}
	for _, c := range []struct {
		got, want time.Duration
	}{{s.P50, 100 * time.Millisecond}, {s.P95, 190 * time.Millisecond}, {s.P99, 198 * time.Millisecond}} {
		if d := float64(c.got-c.want) / float64(c.want); d < -0.021 || d > 0.021 {
			t.Errorf("percentile %v, want %v within 2%%", c.got, c.want)
		}
	}
	if s.Max != 200*time.Millisecond {
		t.Errorf("max %v", s.Max)
	}
}

// A run remembers at most its cap of argument records, however many
// distinct arguments it sees, and says so: 1M distinct hashes cost the
// cap's memory, counted in bytes, not timed.
func TestArgumentRecordsAreCapped(t *testing.T) {
	const cap = 1 << 14
	c := New(cap)
	c.File("a.jsonl")
	s := &session.Session{ID: "s1", Label: "db"}
	tl := c.server("db").tool("run_query")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 1_000_000 {
		oc := openCall{s: s, kind: 't', name: "run_query", key: argKey(i) * 0x9e3779b97f4a7c15, run: int32(i & 1)}
		kind := ""
		if i%3 == 0 {
			kind = KindToolError
		}
		c.remember(tl, &oc, kind, Location{File: "a.jsonl", Line: i})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if c.hashes != cap || len(tl.args) != cap || !c.capped {
		t.Fatalf("%d records kept (map %d), capped %v; want %d", c.hashes, len(tl.args), c.capped, cap)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > cap*120 {
		t.Errorf("1M distinct arguments hold %d bytes; the cap allows about %d", grew, cap*120)
	}
	sum := c.Summary()
	if !sum.CapReached || sum.ArgumentHashes != cap || sum.MaxArgumentHashes != cap {
		t.Errorf("summary %+v", sum)
	}
	runtime.KeepAlive(c)
}

func TestCoverageCounts(t *testing.T) {
	t.Parallel()
	var cv Coverage
	cv.count("a", &item{advertised: true, calls: 2, ok: 1})
	cv.count("b", &item{advertised: true})
	cv.count("c", &item{advertised: true, calls: 1})
	cv.count("x", &item{calls: 1, ok: 1})
	cv = cv.done()
	if cv.Advertised != 3 || cv.Called != 2 || cv.Succeeded != 1 || cv.NeverCalled[0] != "b" || cv.FailedOnly[0] != "c" || cv.Unlisted[0] != "x" {
		t.Errorf("%+v", cv)
	}
	if p := cv.Percent(); p < 33.3 || p > 33.4 {
		t.Errorf("percent %v", p)
	}
	if (Coverage{}).Percent() != 100 {
		t.Error("nothing advertised is not 100%")
	}
}

// The summary is made once, from records it lets go of as it goes: a
// second call returns the same summary, and no server's records are held
// beside it (with 20k labels they were: 94.6 MiB peak, 78.8 after).
func TestSummaryLetsGoOfItsRecords(t *testing.T) {
	t.Parallel()
	c := New(0)
	c.File("a.jsonl")
	for _, label := range []string{"db", "fs"} {
		tl := c.server(label).tool("run")
		tl.calls, tl.ok = 2, 1
	}
	sum := c.Summary()
	if len(sum.Servers) != 2 || sum.Servers[0].Label != "db" || len(sum.Servers[1].ToolStats) != 1 || sum.Servers[1].ToolStats[0].Calls != 2 {
		t.Fatalf("summary %+v", sum)
	}
	if len(c.servers) != 0 || c.lastServer != nil {
		t.Errorf("%d servers' records held after the summary", len(c.servers))
	}
	if again := c.Summary(); again != sum {
		t.Error("a second call made another summary")
	}
}

// Past the label cap a session's calls are not followed and the session
// is counted instead; labels already followed go on being followed.
func TestLabelsPastTheCapAreCountedNotFollowed(t *testing.T) {
	t.Parallel()
	c := New(0)
	c.maxLabels = 2
	c.File("a.jsonl")
	for i, label := range []string{"a", "b", "c", "a", "c", "d"} {
		s := &session.Session{ID: fmt.Sprint("s", i), Label: label}
		call := &session.Call{Dir: session.ClientToServer, Method: "prompts/get", Name: "p"}
		c.Frame(s, &session.Frame{Call: call, Pairing: session.Opened})
		c.Frame(s, &session.Frame{Call: call, Pairing: session.Answered})
		c.EndSession(s, nil)
	}
	if len(c.open) != 0 {
		t.Errorf("%d calls left open", len(c.open))
	}
	sum := c.Summary()
	var got []string
	for _, sv := range sum.Servers {
		got = append(got, fmt.Sprintf("%s sessions %d prompt calls %d", sv.Label, sv.Sessions, len(sv.Prompts.Unlisted)))
	}
	if want := "a sessions 2 prompt calls 1, b sessions 1 prompt calls 1"; strings.Join(got, ", ") != want {
		t.Errorf("servers %q, want %q", strings.Join(got, ", "), want)
	}
	if sum.SessionsPastLabelCap != 3 || sum.MaxLabels != 2 {
		t.Errorf("past the cap %d of max %d, want 3 of 2", sum.SessionsPastLabelCap, sum.MaxLabels)
	}
	if want := "2 server labels followed, the most a run keeps: the usage and coverage of 3 sessions under later labels were not followed"; sum.LabelCapNote() != want {
		t.Errorf("note %q, want %q", sum.LabelCapNote(), want)
	}
	if (&Summary{MaxLabels: 2}).LabelCapNote() != "" {
		t.Error("a run within the cap has a note")
	}
}
