package session_test

import (
	"runtime"
	"testing"

	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
	"github.com/mcpcheck/mcpcheck/session/sessiontest"
)

// heapAtEnds measures the heap when the first session ends (every frame
// has been read, the live sessions hold their state and the later ones
// wait in the spill) and when the last one does (every waiting session
// has been read back and correlated).
type heapAtEnds struct {
	sessions, ended int
	first, last     heapCount
}

type heapCount struct{ bytes, objects uint64 }

func countHeap() heapCount {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return heapCount{ms.HeapAlloc, ms.HeapObjects}
}

func (h *heapAtEnds) Frame(*session.Session, *session.Frame)  {}
func (h *heapAtEnds) Damage(*session.Session, session.Damage) {}
func (h *heapAtEnds) ReleasesFrames()                         {}
func (h *heapAtEnds) End(*session.Session) {
	h.ended++
	switch h.ended {
	case 1:
		h.first = countHeap()
	case h.sessions:
		h.last = countHeap()
	}
}

func heapOfSessions(t *testing.T, sessions int) *heapAtEnds {
	h := &heapAtEnds{sessions: sessions}
	if err := readers.Read("pending.jsonl", sessiontest.PendingSessions(sessions), h, readers.Options{}); err != nil {
		t.Fatal(err)
	}
	return h
}

// What a session past the live-session window costs while it waits, and
// once it was read back, counted on the heap after a collection (not
// resident memory, which a loaded machine inflates): nothing. Its records
// and their index are in the temporary file; what stays in memory are
// buffers of a fixed size, at their largest in both runs (each past the
// first megabyte of records).
func TestWaitingSessionsCostNoHeap(t *testing.T) {
	// not parallel: the heap is the process's
	small, large := heapOfSessions(t, 20_000), heapOfSessions(t, 80_000)
	for _, at := range []struct {
		when         string
		small, large heapCount
	}{{"waiting", small.first, large.first}, {"read back", small.last, large.last}} {
		per := float64(int64(at.large.bytes)-int64(at.small.bytes)) / 60_000
		objs := float64(int64(at.large.objects)-int64(at.small.objects)) / 60_000
		t.Logf("%s, a session costs %.2f bytes, %.4f objects", at.when, per, objs)
		if per > 4 || objs > 0.01 {
			t.Errorf("%s, a session past the live window costs %.2f bytes and %.4f objects on the heap, want at most 4 and 0.01 (waiting, it was 89 bytes and 1 object with the index in memory)", at.when, per, objs)
		}
	}
}
