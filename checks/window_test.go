package checks

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// judged records what a window judged, and at which frame.
type judged struct {
	log []int
	at  []int64
}

func (j *judged) judge(p *Pass, v int) {
	j.log = append(j.log, v)
	j.at = append(j.at, p.Session.Frames)
}

func framePass() *Pass { return &Pass{Session: &session.Session{}} }

// A value waits exactly session.ReorderWindow frames after the one that
// held it: still held on the last frame of its window, judged on the next.
func TestWindowEdge(t *testing.T) {
	t.Parallel()
	p, j := framePass(), &judged{}
	w := newWindow[int](8)
	p.Session.Frames = 10
	w.hold(p, 1, j.judge)
	p.Session.Frames = 11
	w.hold(p, 2, j.judge)
	for p.Session.Frames = 11; p.Session.Frames <= 10+session.ReorderWindow; p.Session.Frames++ {
		w.expire(p, j.judge)
	}
	if len(j.log) != 0 || w.len() != 2 {
		t.Fatalf("judged %v within the window, %d held; want nothing judged, 2 held", j.log, w.len())
	}
	w.expire(p, j.judge) // frame 10+ReorderWindow+1: the first value's window is over
	if !slices.Equal(j.log, []int{1}) || w.len() != 1 {
		t.Fatalf("judged %v, %d held; want [1] judged, 1 held", j.log, w.len())
	}
	p.Session.Frames++
	w.expire(p, j.judge)
	if !slices.Equal(j.log, []int{1, 2}) || !slices.Equal(j.at, []int64{11 + session.ReorderWindow, 12 + session.ReorderWindow}) {
		t.Fatalf("judged %v at frames %v", j.log, j.at)
	}
}

// Values expire oldest first, and expire stops at the first value whose
// window is still open.
func TestWindowJudgesOldestFirst(t *testing.T) {
	t.Parallel()
	p, j := framePass(), &judged{}
	w := newWindow[int](8)
	for v := range 5 {
		p.Session.Frames = int64(v) * 2
		w.hold(p, v, j.judge)
	}
	p.Session.Frames = 5 + session.ReorderWindow // past the windows of the values held at frames 0, 2 and 4
	w.expire(p, j.judge)
	if !slices.Equal(j.log, []int{0, 1, 2}) || w.len() != 2 {
		t.Fatalf("judged %v, %d held; want [0 1 2], 2 held", j.log, w.len())
	}
}

// A full window judges its oldest value early, on the frame that holds one
// more; the others keep waiting.
func TestWindowFullJudgesOldestEarly(t *testing.T) {
	t.Parallel()
	p, j := framePass(), &judged{}
	w := newWindow[int](3)
	for v := range 3 {
		w.hold(p, v, j.judge)
	}
	if len(j.log) != 0 {
		t.Fatalf("judged %v before the window was full", j.log)
	}
	w.hold(p, 3, j.judge)
	w.hold(p, 4, j.judge)
	if !slices.Equal(j.log, []int{0, 1}) || w.len() != 3 {
		t.Fatalf("judged %v, %d held; want [0 1] judged early, 3 held", j.log, w.len())
	}
	w.flush(p, j.judge)
	if !slices.Equal(j.log, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("judged %v; want every value once, in order", j.log)
	}
}

// At the session's end every value still waiting is judged, oldest first,
// however recent its window; then the window is empty.
func TestWindowFlushAtSessionEnd(t *testing.T) {
	t.Parallel()
	p, j := framePass(), &judged{}
	w := newWindow[int](8)
	for v := range 4 {
		p.Session.Frames = int64(v)
		w.hold(p, v, j.judge)
	}
	w.flush(p, j.judge)
	if !slices.Equal(j.log, []int{0, 1, 2, 3}) || !slices.Equal(j.at, []int64{3, 3, 3, 3}) || w.len() != 0 {
		t.Fatalf("judged %v at %v, %d held; want all four at frame 3", j.log, j.at, w.len())
	}
	w.flush(p, j.judge)
	if len(j.log) != 4 {
		t.Fatalf("a second flush judged again: %v", j.log)
	}
}

// A value a later frame explains is dropped unjudged; the others keep their
// order and their windows.
func TestWindowDrop(t *testing.T) {
	t.Parallel()
	p, j := framePass(), &judged{}
	w := newWindow[int](8)
	for v := range 6 {
		p.Session.Frames = int64(v)
		w.hold(p, v, j.judge)
	}
	w.drop(func(v int) bool { return v%2 == 1 })
	p.Session.Frames = 2 + session.ReorderWindow + 1 // past the windows of 0, 1 and 2
	w.expire(p, j.judge)
	if !slices.Equal(j.log, []int{0, 2}) || w.len() != 1 {
		t.Fatalf("judged %v, %d held; want [0 2], 1 held", j.log, w.len())
	}
	w.dropAll()
	w.flush(p, j.judge)
	if !slices.Equal(j.log, []int{0, 2}) {
		t.Fatalf("judged %v after dropping everything", j.log)
	}
	for i, e := range w.ring {
		if e != (windowed[int]{}) {
			t.Fatalf("slot %d still holds %+v after the window emptied", i, e)
		}
	}
}

// The window judges exactly what the slice queues it replaced judged, in
// the same order and on the same frames, whatever the mix of holds, drops,
// expiries and the bound.
func TestWindowMatchesSliceQueue(t *testing.T) {
	t.Parallel()
	type entry struct {
		v       int
		expires int64
	}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 19))
		bound := 1 + rng.IntN(9)
		p := framePass()
		got, want := &judged{}, &judged{}
		w := newWindow[int](bound)
		var queue []entry // the hand-rolled form: append, judge the front when full, filter, cut the front
		judgeWant := func(e entry) {
			want.log = append(want.log, e.v)
			want.at = append(want.at, p.Session.Frames)
		}
		for v := range 300 {
			p.Session.Frames += int64(rng.IntN(3) * rng.IntN(40)) // runs of quiet frames
			n := 0
			for n < len(queue) && p.Session.Frames > queue[n].expires {
				judgeWant(queue[n])
				n++
			}
			queue = queue[n:]
			w.expire(p, got.judge)
			switch rng.IntN(4) {
			case 0:
				mod := 2 + rng.IntN(5)
				kept := queue[:0]
				for _, e := range queue {
					if e.v%mod != 0 {
						kept = append(kept, e)
					}
				}
				queue = kept
				w.drop(func(v int) bool { return v%mod == 0 })
			default:
				if len(queue) == bound {
					judgeWant(queue[0])
					queue = queue[1:]
				}
				queue = append(queue, entry{v, p.Session.Frames + session.ReorderWindow})
				w.hold(p, v, got.judge)
			}
			if w.len() != len(queue) {
				t.Fatalf("seed %d: %d held, want %d", seed, w.len(), len(queue))
			}
		}
		for _, e := range queue {
			judgeWant(e)
		}
		w.flush(p, got.judge)
		if !slices.Equal(got.log, want.log) || !slices.Equal(got.at, want.at) {
			t.Fatalf("seed %d (bound %d): judged\n%v at %v\nwant\n%v at %v", seed, bound, got.log, got.at, want.log, want.at)
		}
	}
}

func TestWindowWithoutBoundPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("a window without a bound held a value")
		}
	}()
	var w window[int]
	w.hold(framePass(), 1, (&judged{}).judge)
}
