package session

import (
	"hash/maphash"
	"unsafe"
)

// finishedCalls remembers the most recently finished calls of all the
// sessions of one capture file, to recognise duplicate answers. One ring per
// file keeps memory bounded however many sessions a file interleaves.
//
// Every call finished is added and few are looked for, so adding is what
// must be cheap: a call takes the ring's next slot and becomes the head of
// its hash bucket's chain, which links to the bucket's older calls. Nothing
// is ever unlinked: a call is the n-th added, and it is in the ring while
// fewer than len(ring) calls came after it, so a chain is read newest first
// until it reaches a call the ring has let go.
type finishedCalls struct {
	ring  []finishedCall
	added uint64   // calls added so far; the n-th is in ring[(n-1)%len(ring)]
	heads []uint64 // by hash bucket, the number of its newest call (0: none)
	seed  maphash.Seed
}

type finishedCall struct {
	s    *Session
	c    *Call
	prev uint64 // the number of the bucket's call before this one (0: none)
	hash uint64
}

func newFinishedCalls() *finishedCalls {
	return &finishedCalls{
		ring:  make([]finishedCall, recentCalls),
		heads: make([]uint64, 2*recentCalls),
		seed:  maphash.MakeSeed(),
	}
}

func (r *finishedCalls) key(s *Session, dir Direction, id string) uint64 {
	h := maphash.String(r.seed, id)
	return h ^ (uint64(uintptr(unsafe.Pointer(s)))*0x9e3779b97f4a7c15 + uint64(dir))
}

func (r *finishedCalls) add(s *Session, c *Call) {
	h := r.key(s, c.Dir, c.ID.tok)
	bucket := &r.heads[h%uint64(len(r.heads))]
	r.added++
	r.ring[(r.added-1)%uint64(len(r.ring))] = finishedCall{s: s, c: c, prev: *bucket, hash: h}
	*bucket = r.added
}

// held reports whether the n-th call added is still in the ring.
func (r *finishedCalls) held(n uint64) bool {
	return n != 0 && n+uint64(len(r.ring)) > r.added
}

// find returns the newest finished call of s sent in dir with id: on conn,
// else the only one on any connection.
func (r *finishedCalls) find(s *Session, dir Direction, id ID, conn string) *Call {
	h := r.key(s, dir, id.tok)
	var only *Call
	found := 0
	for n := r.heads[h%uint64(len(r.heads))]; r.held(n); {
		e := &r.ring[(n-1)%uint64(len(r.ring))]
		if e.hash == h && e.s == s && e.c.Dir == dir && e.c.ID.tok == id.tok {
			if e.c.Conn == conn {
				return e.c
			}
			only = e.c
			found++
		}
		n = e.prev
	}
	if found == 1 {
		return only
	}
	return nil
}
