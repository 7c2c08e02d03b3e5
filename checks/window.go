package checks

import "github.com/mcpcheck/mcpcheck/session"

// window holds what a rule cannot judge yet because a frame recorded a
// little later may still explain it: a recorder writes the two directions
// (and HTTP connections) independently, so a cancellation can be recorded
// before the request it cancels. A value waits session.ReorderWindow frames
// of its session; then, or at the session's end, the rule judges it. A frame
// that explains a value drops it unjudged.
//
// At most max values wait: holding one more judges the oldest early, so a
// session of unexplained frames cannot grow it. Values are judged oldest
// first, in the order they were held. A judge must not change the window it
// is called from.
type window[T any] struct {
	max int
	// ring keeps the held values, oldest at head; it grows up to max.
	ring    []windowed[T]
	head, n int
}

type windowed[T any] struct {
	v       T
	expires int64 // the session's frame count past which the window is over
}

// newWindow makes a window that holds at most max values (max > 0).
func newWindow[T any](max int) window[T] {
	if max <= 0 {
		panic("checks: a reorder window needs a bound")
	}
	return window[T]{max: max}
}

// len is the number of values waiting.
func (w *window[T]) len() int { return w.n }

// hold keeps v for the reorder window that opens at the frame p sees; when
// the window is full its oldest value is judged first, early.
func (w *window[T]) hold(p *Pass, v T, judge func(*Pass, T)) {
	if w.n >= w.max {
		if w.max <= 0 {
			panic("checks: a reorder window needs a bound (newWindow)")
		}
		judge(p, w.pop())
	}
	if w.n == len(w.ring) {
		w.grow()
	}
	*w.at(w.n) = windowed[T]{v: v, expires: p.Session.Frames + session.ReorderWindow}
	w.n++
}

// expire judges, oldest first, the values whose window is over at the
// frame p sees.
func (w *window[T]) expire(p *Pass, judge func(*Pass, T)) {
	for w.n > 0 && p.Session.Frames > w.ring[w.head].expires {
		judge(p, w.pop())
	}
}

// flush judges every value still waiting, oldest first: the session ended,
// nothing can explain them any more.
func (w *window[T]) flush(p *Pass, judge func(*Pass, T)) {
	for w.n > 0 {
		judge(p, w.pop())
	}
}

// drop lets go, unjudged, the values a later frame explained; the others
// keep their order and their windows.
func (w *window[T]) drop(explained func(T) bool) {
	kept := 0
	for i := range w.n {
		if e := *w.at(i); !explained(e.v) {
			*w.at(kept) = e
			kept++
		}
	}
	for i := kept; i < w.n; i++ {
		*w.at(i) = windowed[T]{} // let go of what the value points to
	}
	w.n = kept
}

// dropAll lets go of every value, unjudged.
func (w *window[T]) dropAll() {
	w.drop(func(T) bool { return true })
}

// pop takes the oldest value out.
func (w *window[T]) pop() T {
	e := &w.ring[w.head]
	v := e.v
	*e = windowed[T]{}
	w.head, w.n = (w.head+1)%len(w.ring), w.n-1
	return v
}

func (w *window[T]) at(i int) *windowed[T] { return &w.ring[(w.head+i)%len(w.ring)] }

// grow makes room for more values, up to max, keeping their order.
func (w *window[T]) grow() {
	ring := make([]windowed[T], min(w.max, max(4, 2*len(w.ring))))
	for i := range w.n {
		ring[i] = *w.at(i)
	}
	w.ring, w.head = ring, 0
}
