package session_test

import (
	"runtime"
	"testing"

	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
	"github.com/mcpcheck/mcpcheck/session/sessiontest"
)

// firstEnd measures the heap when the first session ends: every frame has
// been read, the live sessions hold their state and the later ones wait
// in the spill, each with its index entry.
type firstEnd struct {
	done           bool
	bytes, objects uint64
	live           int
}

func (h *firstEnd) Frame(*session.Session, *session.Frame)  {}
func (h *firstEnd) Damage(*session.Session, session.Damage) {}
func (h *firstEnd) ReleasesFrames()                         {}
func (h *firstEnd) End(*session.Session) {
	if h.done {
		return
	}
	h.done = true
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.bytes, h.objects = ms.HeapAlloc, ms.HeapObjects
}

func heapAtFirstEnd(t *testing.T, sessions int) *firstEnd {
	h := &firstEnd{}
	if err := readers.Read("pending.jsonl", sessiontest.PendingSessions(sessions), h, readers.Options{}); err != nil {
		t.Fatal(err)
	}
	return h
}

// What a session past the live-session window costs while it waits,
// counted on the heap after a collection (not resident memory, which a
// loaded machine inflates): its index entry only.
func TestWaitingSessionsCostOnlyTheirIndexEntry(t *testing.T) {
	// not parallel: the heap is the process's
	small, large := heapAtFirstEnd(t, 4_000), heapAtFirstEnd(t, 24_000)
	per := float64(int64(large.bytes)-int64(small.bytes)) / 20_000
	objs := float64(int64(large.objects)-int64(small.objects)) / 20_000
	t.Logf("a waiting session costs %.1f bytes, %.2f objects", per, objs)
	if per > 128 || objs > 2 {
		t.Errorf("a waiting session costs %.1f bytes and %.2f objects on the heap, want at most 128 and 2", per, objs)
	}
}
