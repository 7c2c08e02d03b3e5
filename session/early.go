package session

import "fmt"

// Damage that names a session not seen yet waits for it in the temporary
// file of deferred sessions (defer.go), one chain per named session, so a
// recorder that tore the first thousand envelopes of a session loses none
// of what survived of them: their seqs are not missing frames when the
// session appears. Damage that names no session and comes before any
// frame waits in memory up to maxEarlyDamage, then is only counted.

// earlyChain is the damage kept for one session not seen yet: its records
// in the spill, first to last, each linked to the next.
type earlyChain struct {
	head, tail int64 // offsets of its first and last record
}

// maxEarlyDamage bounds the damage kept in memory before the first session.
const maxEarlyDamage = 1000

// maxEarlySessions bounds the sessions not seen yet that damage waits for;
// past it, damage that names another such session counts as naming none.
const maxEarlySessions = 4096

// keepEarly keeps pd, which names a session not seen yet, until that
// session appears; false when too many sessions are waited for already.
func (c *Correlator) keepEarly(pd damage) bool {
	i, ok := c.early[pd.sessionID]
	if !ok {
		if len(c.early) >= maxEarlySessions {
			return false
		}
		if c.early == nil {
			c.early = map[string]int32{}
		}
		i = int32(len(c.earlyChains))
		c.early[pd.sessionID] = i
		c.earlyChains = append(c.earlyChains, earlyChain{head: -1, tail: -1})
	}
	ch := &c.earlyChains[i]
	r := damageRecord{D: pd.Damage, Named: true, Dir: pd.dir, Seqs: pd.seqs}
	off := c.spill.add(ch.tail, spillDamage, encodeDamage(c.spill.scratch(), &r))
	if ch.head < 0 {
		ch.head = off
	}
	ch.tail = off
	return true
}

// takeEarly calls fn for each damaged piece kept for the session id, in
// order, and forgets them.
func (c *Correlator) takeEarly(id string, fn func(pd damage)) error {
	i, ok := c.early[id]
	if !ok {
		return nil
	}
	delete(c.early, id)
	return c.eachEarly(&c.earlyChains[i], id, fn)
}

func (c *Correlator) eachEarly(ch *earlyChain, id string, fn func(pd damage)) error {
	for off := ch.head; off >= 0; {
		_, payload, next, err := c.spill.record(off)
		if err != nil {
			return err
		}
		r, err := decodeDamage(payload)
		if err != nil {
			return err
		}
		// r.Seqs aliases the read buffer: fn uses them at once
		fn(damage{Damage: r.D, sessionID: id, dir: r.Dir, seqs: r.Seqs})
		if next == 0 {
			break
		}
		off = next
	}
	*ch = earlyChain{head: -1, tail: -1}
	return nil
}

// unclaimedEarly delivers, at the end of the file, the damage kept for
// sessions that never appeared to the first session.
func (c *Correlator) unclaimedEarly(first *Session) error {
	ids := make([]string, len(c.earlyChains))
	for id, i := range c.early {
		ids[i] = id
	}
	for i, id := range ids {
		if id == "" {
			continue // claimed
		}
		if err := c.eachEarly(&c.earlyChains[i], id, func(pd damage) { c.deliver(first, pd) }); err != nil {
			return err
		}
	}
	c.early, c.earlyChains = nil, nil
	return nil
}

// earlySummary is the damage that stands for the pieces before the first
// session past maxEarlyDamage.
func (c *Correlator) earlySummary() Damage {
	return Damage{File: c.file, Line: c.moreLine, More: c.moreDamage - 1,
		Reason: fmt.Sprintf("%d more unreadable pieces before the first envelope, up to this line", c.moreDamage)}
}
