package session

import "errors"

var errDamagedSpill = errors.New("sessions: a damaged record in the temporary file")

// deferredSession is a session past Limits.MaxLiveSessions: its records in the
// spill file, first to last. The first names it (its id is the map key
// until then: this index is all a waiting session costs).
type deferredSession struct {
	head, tail int64 // offsets of its first and last record
}

// deferFrame keeps f in the spill when its session is deferred, or is a
// new session past Limits.MaxLiveSessions; false means f's session is live.
func (c *Correlator) deferFrame(f *Frame) bool {
	i, ok := c.deferred[f.SessionID]
	if !ok {
		if len(c.sessions) < c.limits.MaxLiveSessions {
			return false
		}
		if c.deferred == nil {
			c.deferred = map[string]int32{}
		}
		i = int32(len(c.later))
		c.deferred[f.SessionID] = i
		c.later = append(c.later, deferredSession{head: -1, tail: -1})
		c.keep(i, spillSession, encodeSessionRecord(c.spill.scratch(), f.SessionID, f.Line))
		// what named it before it appeared follows its head record
		if err := c.takeEarly(f.SessionID, func(pd damage) { c.keepDamage(i, pd, true) }); err != nil && c.spill.err == nil {
			c.spill.err = err
		}
	}
	c.last, c.lastLater = nil, i
	c.keep(i, spillFrame, encodeFrame(c.spill.scratch(), f))
	return true
}

// deferDamage keeps damage of a deferred session in the spill: damage that
// names one, or that names none and follows a frame of one.
func (c *Correlator) deferDamage(pd damage) bool {
	i, ok := c.deferred[pd.sessionID]
	switch {
	case ok:
	case pd.sessionID == "" && c.lastLater >= 0:
		i = c.lastLater
	default:
		return false
	}
	c.keepDamage(i, pd, pd.sessionID != "")
	return true
}

// keepDamage keeps pd in deferred session i; named says pd names i, so
// what survived of it is accounted there.
func (c *Correlator) keepDamage(i int32, pd damage, named bool) {
	r := damageRecord{D: pd.Damage, Dir: DirUnknown}
	if named {
		r.Named, r.Dir, r.Seqs = true, pd.dir, pd.seqs
	}
	c.keep(i, spillDamage, encodeDamage(c.spill.scratch(), &r))
}

func (c *Correlator) keep(i int32, kind byte, payload []byte) {
	d := &c.later[i]
	off := c.spill.add(d.tail, kind, payload)
	c.spill.enc = payload[:0] // reused for the next record
	if d.head < 0 {
		d.head = off
	}
	d.tail = off
}

// finishLater correlates each deferred session on its own, in first-seen
// order, from its records.
func (c *Correlator) finishLater() error {
	defer c.spill.close()
	c.deferred, c.lastLater = nil, -1
	for i := range c.later {
		d := &c.later[i]
		var s *Session
		for off := d.head; ; {
			kind, payload, next, err := c.spill.record(off)
			if err != nil {
				return err
			}
			switch kind {
			case spillSession:
				id, line, err := decodeSessionRecord(payload)
				if err != nil {
					return err
				}
				s = newSession(c.file, id, line, c.shared, nil)
				s.emit = func(f *Frame) { c.h.Frame(s, f) }
			case spillFrame:
				f, err := decodeFrame(payload)
				if err != nil || s == nil {
					return errors.Join(err, errDamagedSpill)
				}
				c.correlate(s, f)
			case spillDamage:
				r, err := decodeDamage(payload)
				if err != nil || s == nil {
					return errors.Join(err, errDamagedSpill)
				}
				pd := damage{Damage: r.D, dir: r.Dir, seqs: r.Seqs}
				if r.Named {
					pd.sessionID = s.ID
				}
				c.deliver(s, pd)
			}
			if next == 0 {
				break
			}
			off = next
		}
		if s == nil {
			return errDamagedSpill
		}
		s.finish()
		c.h.End(s)
		*d = deferredSession{}
	}
	c.later = nil
	return c.spill.err
}
