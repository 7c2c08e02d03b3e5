package session

// finishedCalls remembers the most recently finished calls of all the
// sessions of one capture file, to recognise duplicate answers. One ring per
// file keeps memory bounded however many sessions a file interleaves.
type finishedCalls struct {
	ring  []finishedCall
	next  int
	index map[finishedKey][]*Call // the ring's calls by session, direction and id, oldest first
	slab  []*Call                 // where a key's first call is kept: not a slice allocated per call
}

// slabSize is how many one-call lists are cut from one allocation.
const slabSize = 1024

type finishedCall struct {
	s *Session
	c *Call
}

type finishedKey struct {
	s   *Session
	dir Direction
	id  string
}

func newFinishedCalls() *finishedCalls {
	return &finishedCalls{ring: make([]finishedCall, recentCalls), index: map[finishedKey][]*Call{}}
}

func (r *finishedCalls) add(s *Session, c *Call) {
	if old := r.ring[r.next]; old.c != nil {
		k := finishedKey{old.s, old.c.Dir, old.c.ID.tok}
		cs := r.index[k]
		cs[0] = nil      // the slab must not keep the evicted call alive
		if len(cs) > 1 { // the evicted call is the oldest of its key
			r.index[k] = cs[1:]
		} else {
			delete(r.index, k)
		}
	}
	r.ring[r.next] = finishedCall{s, c}
	r.next = (r.next + 1) % len(r.ring)
	k := finishedKey{s, c.Dir, c.ID.tok}
	cs, ok := r.index[k]
	if !ok {
		if len(r.slab) == 0 {
			r.slab = make([]*Call, slabSize)
		}
		cs, r.slab = r.slab[:0:1], r.slab[1:] // a second call of the key moves the list off the slab
	}
	r.index[k] = append(cs, c)
}

// find returns the newest finished call of s sent in dir with id: on conn,
// else the only one on any connection.
func (r *finishedCalls) find(s *Session, dir Direction, id ID, conn string) *Call {
	cs := r.index[finishedKey{s, dir, id.tok}]
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Conn == conn {
			return cs[i]
		}
	}
	if len(cs) == 1 {
		return cs[0]
	}
	return nil
}
