package facts

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/racedetect"
	"github.com/mcpcheck/mcpcheck/session/sessiontest"
)

// A complete tool listing is kept in about its size: one copy of its
// tools array and a few bytes a tool, counted on the heap after a
// collection while the session's catalogue still holds it (issue 21: a
// listing of 200k tools held five times its 43 MB). The 200k listing
// itself is measured by cmd/mcpcheck's hostile table.
func TestAToolListingIsKeptInItsSize(t *testing.T) {
	racedetect.SkipUnderRace(t) // the detector's shadow memory is on the heap's account
	const tools = 20_000
	raw, err := io.ReadAll(sessiontest.ManyTools(tools))
	if err != nil {
		t.Fatal(err)
	}
	listing := envelopeOf(t, raw, []byte(`"tools":[`))
	capture := string(raw)
	raw = nil

	before := heapAfterGC()
	set := feed(t, capture, Catalogue.Key())
	cat := set.Get(Catalogue.Key()).(*CatalogueTracker)
	if !cat.Tools.Complete || cat.Tools.Current.Len() != tools {
		t.Fatalf("the catalogue holds %d tools, complete %v; want %d", cat.Tools.Current.Len(), cat.Tools.Complete, tools)
	}
	kept := heapAfterGC() - before
	if _, ok := cat.Tools.Current.Lookup("tool_19999"); !ok {
		t.Fatal("the last tool is not found")
	}
	indexed := heapAfterGC() - before
	runtime.KeepAlive(set)
	runtime.KeepAlive(capture)

	perTool := func(n int64) float64 { return float64(n-int64(listing)) / tools }
	t.Logf("a listing of %d bytes: %d bytes kept (%.1f a tool over its bytes), %d once indexed (%.1f)", listing, kept, perTool(kept), indexed, perTool(indexed))
	// the copy of the tools array, 20 bytes a tool grown by appending, and
	// the name index of at most 16 bytes a tool: 64 a tool with room
	// (measured 37; it was 497 with Tool values and member copies)
	if limit := int64(listing) + 64*tools; indexed > limit {
		t.Errorf("%d bytes kept for a listing of %d bytes, more than %d", indexed, listing, limit)
	}
}

// envelopeOf is the length of the first line of capture holding marker.
func envelopeOf(t *testing.T, capture, marker []byte) int {
	t.Helper()
	for line := range bytes.Lines(capture) {
		if bytes.Contains(line, marker) {
			return len(line)
		}
	}
	t.Fatalf("no line holds %s", marker)
	return 0
}

func heapAfterGC() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
