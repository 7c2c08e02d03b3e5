package checks_test

import (
	"bytes"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/racedetect"
	"github.com/mcpcheck/mcpcheck/session/sessiontest"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
)

// Reading, correlation and every rule allocate less than once per frame in
// steady state (issue 15): frames, envelopes and views are reused, and what
// is left is mostly a call's record, one per request. Counted on a generated
// capture whose frames outnumber the per-session set-up a thousandfold; a
// count, not a timing.
func TestAtMostOneAllocationPerFrame(t *testing.T) {
	racedetect.SkipUnderRace(t)
	data, err := io.ReadAll(sessiontest.Capture(8<<20, 4<<20))
	if err != nil {
		t.Fatal(err)
	}
	frames := bytes.Count(data, []byte("\n"))
	gate, _ := result.ParseGate(DefaultGate, All())
	cfg := engine.Config{Rules: All(), Gate: gate}
	src := readers.Source{Name: "generated.jsonl", Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
	if _, err := engine.Run([]readers.Source{src}, cfg); err != nil { // warm the process-wide tables
		t.Fatal(err)
	}
	// Counted with the collector off, so that no collection inside the
	// window empties the pools the run reuses (what it allocates on an
	// 8 MiB capture is no burden to hold), and the least of three runs,
	// so that what the runtime's and the test binary's other goroutines
	// allocate meanwhile is left out. The test is not parallel.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	per := math.Inf(1)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := engine.Run([]readers.Source{src}, cfg)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		res.Close()
		per = min(per, float64(after.Mallocs-before.Mallocs)/float64(frames))
	}
	t.Logf("%d frames: %.2f allocations a frame (the least of three runs)", frames, per)
	if per > 1 {
		t.Errorf("%.2f allocations a frame; want at most 1", per)
	}
}
