package session

// finishedCalls remembers the most recently finished calls of all the
// sessions of one capture file, to recognise duplicate answers. One ring per
// file keeps memory bounded however many sessions a file interleaves.
type finishedCalls struct {
	ring  []finishedCall
	next  int
	index map[finishedKey][]*Call // the ring's calls by session, direction and id, oldest first
}

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
		if cs := r.index[k]; len(cs) > 1 { // the evicted call is the oldest of its key
			r.index[k] = cs[1:]
		} else {
			delete(r.index, k)
		}
	}
	r.ring[r.next] = finishedCall{s, c}
	r.next = (r.next + 1) % len(r.ring)
	k := finishedKey{s, c.Dir, c.ID.tok}
	r.index[k] = append(r.index[k], c)
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
