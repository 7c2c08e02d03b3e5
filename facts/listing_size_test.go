package facts

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/racedetect"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
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
	capture, listing := manyTools(t, tools)

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

// manyTools is sessiontest.ManyTools(n) as a string, and the length of
// its listing's envelope.
func manyTools(t *testing.T, n int) (capture string, listing int) {
	t.Helper()
	raw, err := io.ReadAll(sessiontest.ManyTools(n))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw), envelopeOf(t, raw, []byte(`"tools":[`))
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

// A listing read from an envelope too large for the reader's reused
// buffer is not copied: the set keeps the envelope's own buffer
// (session.Frame's Lasting), so while the listing's frame is judged its
// bytes are on the heap once (they were twice: the envelope the rules
// still read and the set's copy, 2.1× a 200k-tool listing's size then).
func TestALargeListingIsHeldOnceWhileJudged(t *testing.T) {
	racedetect.SkipUnderRace(t)
	const tools = 20_000
	capture, listing := manyTools(t, tools)

	h := &heldProbe{setHandler: setHandler{keys: Closure([]*Key{Catalogue.Key()})}, size: listing, base: heapAfterGC()}
	if err := readers.Read("test.jsonl", strings.NewReader(capture), h, readers.Options{}); err != nil {
		t.Fatal(err)
	}
	if h.held == 0 {
		t.Fatal("no frame of the listing's size")
	}
	t.Logf("a listing of %d bytes: %d bytes on the heap while its frame is judged (%.2f×)", listing, h.held, float64(h.held)/float64(listing))
	// the envelope, 20 bytes a tool grown by appending, and the name index
	// of at most 16 bytes a tool
	if limit := int64(listing)*5/4 + 64*tools; h.held > limit {
		t.Errorf("%d bytes held while a listing of %d bytes is judged, more than %d", h.held, listing, limit)
	}
	runtime.KeepAlive(capture)
}

// heldProbe is setHandler that, once the catalogue took the frame as long
// as the listing, measures the heap while the frame is still in use.
type heldProbe struct {
	setHandler
	size int
	base int64
	held int64
}

func (h *heldProbe) Frame(s *session.Session, f *session.Frame) {
	h.setHandler.Frame(s, f)
	if len(f.Raw) > h.size/2 {
		h.set.Get(Catalogue.Key()).(*CatalogueTracker).Tools.Current.Lookup("tool_1") // indexed, as a call would
		h.held = heapAfterGC() - h.base
		runtime.KeepAlive(f.Raw)
	}
}
