// Package facts holds what several rules need to know about a session and
// no single frame says: the negotiated revision, both sides' capabilities,
// the tool catalogue, multi round-trip operations, tasks. Each fact is a
// tracker computed once per session from its frames, before any rule sees
// the frame, and only when a running rule declares that it reads it.
//
// A tracker may keep what it learns past the frame, so it keeps its own
// copies: the reader reuses the bytes of a frame for the next one.
package facts

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/session"
)

// Tracker follows one session's correlated frames.
type Tracker interface {
	Frame(f *session.Frame)
}

// Key identifies a fact: its name, what it needs, how to make its tracker.
type Key struct {
	Name     string
	Requires []*Key // facts its tracker reads; they see each frame first
	index    int
	new      func(s *session.Session, deps Source) Tracker
}

// Fact is what a rule declares it reads: a typed fact definition.
type Fact interface{ Key() *Key }

// Def is a fact whose tracker has type T.
type Def[T Tracker] struct{ key *Key }

// Key returns the fact's identity.
func (d *Def[T]) Key() *Key { return d.key }

// Of returns the session's tracker of this fact from src, the Pass of a
// rule that declared it (or the Source a dependent tracker was given).
func (d *Def[T]) Of(src Source) T { return src.Fact(d.key).(T) }

// Source hands out a session's trackers to those that declared them.
type Source interface {
	Fact(k *Key) Tracker
}

var registry []*Key

// define registers a fact. Definition order is evaluation order, so a
// fact can only require facts defined before it.
func define[T Tracker](name string, requires []Fact, new func(s *session.Session, deps Source) T) *Def[T] {
	k := &Key{Name: name, index: len(registry)}
	for _, r := range requires {
		k.Requires = append(k.Requires, r.Key())
	}
	k.new = func(s *session.Session, deps Source) Tracker { return new(s, deps) }
	registry = append(registry, k)
	return &Def[T]{key: k}
}

// Closure returns the keys of facts and of everything they require, in
// evaluation order, without duplicates.
func Closure(declared []*Key) []*Key {
	need := make([]bool, len(registry))
	var mark func(k *Key)
	mark = func(k *Key) {
		if need[k.index] {
			return
		}
		need[k.index] = true
		for _, r := range k.Requires {
			mark(r)
		}
	}
	for _, k := range declared {
		mark(k)
	}
	var out []*Key
	for i, n := range need {
		if n {
			out = append(out, registry[i])
		}
	}
	return out
}

// Set is one session's trackers: those of the keys it was made for.
type Set struct {
	byIndex []Tracker
	order   []Tracker
}

// NewSet makes the trackers of keys (a Closure) for session s.
func NewSet(s *session.Session, keys []*Key) *Set {
	set := &Set{}
	if len(keys) == 0 {
		return set
	}
	set.byIndex = make([]Tracker, len(registry))
	for _, k := range keys {
		t := k.new(s, depSource{set, k})
		set.byIndex[k.index] = t
		set.order = append(set.order, t)
	}
	return set
}

// Frame lets every tracker see f, dependencies first. A tracker that
// panics is dropped from the set and its key and the panic value returned:
// the rules that read it cannot judge this session any more.
func (set *Set) Frame(f *session.Frame) (failed *Key, panicked any) {
	from := 0
	for from < len(set.order) {
		i, v, ok := set.observe(f, from)
		if ok {
			break
		}
		failed, panicked = set.drop(i), v
		from = i // the trackers after it still see the frame
	}
	return failed, panicked
}

// observe runs the trackers from index from on, under one recover: on a
// panic it says which tracker it was.
func (set *Set) observe(f *session.Frame, from int) (at int, v any, ok bool) {
	at = from
	defer func() {
		if !ok {
			v = recover()
		}
	}()
	for ; at < len(set.order); at++ {
		set.order[at].Frame(f)
	}
	return at, nil, true
}

// drop removes the i-th tracker, and returns its key.
func (set *Set) drop(i int) *Key {
	t := set.order[i]
	set.order = append(set.order[:i], set.order[i+1:]...)
	for j, u := range set.byIndex {
		if u == t {
			set.byIndex[j] = nil
			return registry[j]
		}
	}
	return nil
}

// Get returns the tracker of k, or nil when the set was not made for it.
func (set *Set) Get(k *Key) Tracker {
	if k.index < len(set.byIndex) {
		return set.byIndex[k.index]
	}
	return nil
}

// depSource gives a tracker the facts it requires, and only those.
type depSource struct {
	set *Set
	k   *Key
}

func (d depSource) Fact(k *Key) Tracker {
	for _, r := range d.k.Requires {
		if r == k {
			return d.set.Get(k)
		}
	}
	panic(fmt.Sprintf("fact %s reads fact %s without requiring it", d.k.Name, k.Name))
}
