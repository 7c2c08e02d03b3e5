package session

import "errors"

var errDamagedSpill = errors.New("sessions: a damaged record in the temporary file")

// deferFrame keeps f in the spill when every live place is taken: its
// session is waiting, or new past Limits.MaxLiveSessions (the live ones
// only end with the file, so no session that waits can become live). The
// index tells them apart when the file has been read (waiting.go); false
// means f's session can be live.
func (c *Correlator) deferFrame(f *Frame) bool {
	if len(c.sessions) < c.limits.MaxLiveSessions {
		return false
	}
	// what named it before it appeared, while sessions could still be
	// live, goes ahead of its first frame
	if _, ok := c.early[f.SessionID]; ok {
		id := f.SessionID
		if err := c.takeEarly(id, func(pd damage) { c.keepDamage(id, pd, true) }); err != nil && c.spill.err == nil {
			c.spill.err = err
		}
	}
	c.last, c.lastLater, c.laterWaits = nil, f.SessionID, true
	c.wait(f.SessionID, spillFrame, encodeFrame(c.spill.scratch(), f))
	return true
}

// deferDamage keeps damage of a waiting session in the spill: damage that
// names a session not live when every live place is taken, or that names
// none and follows a frame of a waiting session. Damage naming a session
// it already waits for before that session appeared (early.go) joins
// that damage instead.
func (c *Correlator) deferDamage(pd damage) bool {
	if len(c.sessions) < c.limits.MaxLiveSessions {
		return false
	}
	switch {
	case pd.sessionID != "":
		if _, ok := c.early[pd.sessionID]; ok {
			return false
		}
		c.keepDamage(pd.sessionID, pd, true)
	case c.laterWaits:
		c.keepDamage(c.lastLater, pd, false)
	default:
		return false
	}
	return true
}

// keepDamage keeps pd for the waiting session id; named says pd names id,
// so what survived of it is accounted there.
func (c *Correlator) keepDamage(id string, pd damage, named bool) {
	r := damageRecord{D: pd.Damage, Dir: DirUnknown}
	if named {
		r.Named, r.Dir, r.Seqs, r.Session = true, pd.dir, pd.seqs, id
	}
	c.wait(id, spillDamage, encodeDamage(c.spill.scratch(), &r))
}

// wait adds a record of the waiting session id to the spill and the index.
func (c *Correlator) wait(id string, kind byte, payload []byte) {
	off := c.spill.add(-1, kind, payload)
	c.spill.enc = payload[:0] // reused for the next record
	if c.spill.err == nil {
		c.waiting.add(id, kind, off)
	}
}

// turnReader gives back the index's records one at a time, with one held
// back to look at before it is taken.
type turnReader struct {
	m          *sortMerge
	group, off uint64
	held       bool
}

func (t *turnReader) peek() bool {
	if !t.held && t.m != nil {
		rec, ok := t.m.next()
		if !ok {
			return false
		}
		t.group, t.off = splitTurn(rec)
		t.held = true
	}
	return t.held
}

// sortWaiting sorts the index of waiting sessions, once the file is read.
func (c *Correlator) sortWaiting() error {
	if c.waiting.empty() {
		return nil
	}
	c.spill.flush()
	if c.spill.err != nil {
		return c.spill.err
	}
	m, err := c.waiting.turns()
	if err != nil {
		return err
	}
	c.turns = &turnReader{m: m}
	return nil
}

// unclaimedWaiting delivers to the first session, in file order, the
// damage that named a session that never sent a frame once every live
// place was taken (as unclaimedEarly does for the earlier).
func (c *Correlator) unclaimedWaiting(first *Session) error {
	t := c.turns
	for t != nil && t.peek() && t.group&groupClaimed == 0 {
		t.held = false
		r, err := c.damageAt(int64(t.off))
		if err != nil {
			return err
		}
		c.deliver(first, damage{Damage: r.D, sessionID: r.Session, dir: r.Dir, seqs: r.Seqs})
	}
	return c.turnErr()
}

func (c *Correlator) turnErr() error {
	if c.turns != nil && c.turns.m.err != nil {
		return c.turns.m.err
	}
	return nil
}

// damageAt reads the damage record at off.
func (c *Correlator) damageAt(off int64) (*damageRecord, error) {
	kind, payload, _, err := c.spill.record(off)
	if err != nil {
		return nil, err
	}
	r, err := decodeDamage(payload)
	if err != nil || kind != spillDamage {
		return nil, errors.Join(err, errDamagedSpill)
	}
	return r, nil
}

// finishLater correlates each waiting session on its own, in first-seen
// order, from its records.
func (c *Correlator) finishLater() error {
	defer c.spill.close()
	defer c.waiting.close()
	c.lastLater, c.laterWaits = "", false
	t := c.turns
	if t == nil {
		return c.spill.err
	}
	for t.peek() {
		s, err := c.startWaiting(int64(t.group &^ groupClaimed))
		if err != nil {
			return err
		}
		for group := t.group; t.peek() && t.group == group; {
			t.held = false
			if err := c.replay(s, int64(t.off)); err != nil {
				return err
			}
		}
		s.finish()
		c.h.End(s)
	}
	if err := c.turnErr(); err != nil {
		return err
	}
	c.turns = nil
	return c.spill.err
}

// startWaiting makes the session whose first frame is at off.
func (c *Correlator) startWaiting(off int64) (*Session, error) {
	kind, payload, _, err := c.spill.record(off)
	if err != nil {
		return nil, err
	}
	id, line, err := frameSession(payload)
	if err != nil || kind != spillFrame {
		return nil, errors.Join(err, errDamagedSpill)
	}
	s := newSession(c.file, id, line, c.shared, nil)
	s.emit = func(f *Frame) { c.h.Frame(s, f) }
	return s, nil
}

// replay correlates the record at off in s, the waiting session it belongs to.
func (c *Correlator) replay(s *Session, off int64) error {
	kind, payload, _, err := c.spill.record(off)
	if err != nil {
		return err
	}
	switch kind {
	case spillFrame:
		f, err := decodeFrame(payload)
		if err != nil {
			return errors.Join(err, errDamagedSpill)
		}
		c.correlate(s, f)
	case spillDamage:
		r, err := decodeDamage(payload)
		if err != nil {
			return errors.Join(err, errDamagedSpill)
		}
		pd := damage{Damage: r.D, dir: r.Dir, seqs: r.Seqs}
		if r.Named {
			pd.sessionID = s.ID
		}
		c.deliver(s, pd)
	default:
		return errDamagedSpill
	}
	return nil
}
