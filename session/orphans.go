package session

// Answers recorded before their requests: held for the reorder window,
// within the file's byte budget, then paired or decided.

import "slices"

// hold keeps an answer for the reorder window, within the file's byte
// budget.
func (s *Session) hold(f *Frame) {
	f = f.detach()
	s.shared.heldBytes += len(f.Raw)
	s.orphans = append(s.orphans, orphan{f: f, expires: s.Frames + ReorderWindow})
	s.shed()
}

// shed keeps the file's byte budget: past it this session's oldest held
// frames are decided early.
func (s *Session) shed() {
	for s.shared.heldBytes > s.shared.maxHeld {
		switch {
		case len(s.orphans) > 0 && (len(s.retries) == 0 || s.orphans[0].expires <= s.retries[0].expires):
			f := s.orphans[0].f
			s.orphans = s.orphans[1:]
			s.decideOrphan(f)
		case len(s.retries) > 0:
			s.releaseRetry(s.retries[0].f.Call)
		default:
			return
		}
	}
}

// adoptOrphans pairs answers recorded before c with c.
func (s *Session) adoptOrphans(c *Call) {
	for i := 0; i < len(s.orphans); i++ {
		o := s.orphans[i].f
		if o.Direction != c.Dir.Opposite() || o.Msg.ID != c.ID {
			continue
		}
		if o.ConnID != c.Conn && len(s.openByID[idKey{c.Dir, c.ID.tok}]) != 1 {
			continue
		}
		s.orphans = slices.Delete(s.orphans, i, i+1)
		s.shared.heldBytes -= len(o.Raw)
		o.Call = c
		if s.answered(o) {
			s.out(o)
		}
		return
	}
}

// expireOrphans gives up on answers whose window has passed (all of them at
// the end of the session).
func (s *Session) expireOrphans(all bool) {
	n := 0
	for n < len(s.orphans) && (all || s.orphans[n].expires < s.Frames) {
		s.decideOrphan(s.orphans[n].f)
		n++
	}
	if n > 0 {
		s.orphans = slices.Delete(s.orphans, 0, n)
	}
}

// decideOrphan emits an answer whose request never came: a second answer
// to a finished call, one a truncated or dropped request explains, or
// unmatched.
func (s *Session) decideOrphan(o *Frame) {
	s.shared.heldBytes -= len(o.Raw)
	reqDir := o.Direction.Opposite()
	switch c := s.findRecent(reqDir, o.Msg.ID, o.ConnID); {
	case c != nil:
		o.Call, o.Pairing = c, Duplicate
		c.Answers++
	case s.credits[reqDir].take():
		o.Pairing = Absorbed
	case s.unpaired[reqDir] > 0:
		s.unpaired[reqDir]-- // the answer of a call dropped past MaxOpenCalls
		o.Pairing = Absorbed
	default:
		o.Pairing = Unmatched
	}
	s.emit(o)
}
