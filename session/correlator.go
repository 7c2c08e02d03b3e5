package session

import (
	"errors"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// ErrNoSession is what Finish returns when no frame was added.
var ErrNoSession = errors.New("no frame belongs to a session")

// Correlator turns the frames and damage of one capture file, in file
// order, into correlated sessions for a Handler. Every format (package
// readers) feeds one, so correlation does not depend on how a capture was
// recorded: it adds frames (Add), reports damage (Damage), may stage an
// envelope's bytes to decode its message in place (Stage, sink.go), and
// finishes (Finish). A format reads nothing else of correlation but what
// sink.go exports.
type Correlator struct {
	file       string
	h          Handler
	limits     Limits
	sessions   map[string]*Session
	order      []*Session
	last       *Session // the session of the previous frame, home for damage
	damage     []damage // damage seen before the session it belongs to
	moreDamage int      // beyond maxEarlyDamage
	moreLine   int      // the last of those
	shared     *fileState
	finished   bool
	finishErr  error

	// damage naming sessions not seen yet (early.go)
	early       map[string]int32
	earlyChains []earlyChain

	// sessions past Limits.MaxLiveSessions, correlated after the file
	// (defer.go, waiting.go)
	waiting    waitingIndex
	turns      *turnReader // the index sorted, once the file is read
	lastLater  string      // the previous frame's session, when laterWaits
	laterWaits bool        // the previous frame's session is waiting
	spill      sessionSpill

	// overlap lets Add and Damage hand their input to a second goroutine
	// (pipeline.go), started on the first of them; a format whose reader
	// reads correlation's state turns it off (Sequential) before adding
	// anything.
	overlap bool
	pipe    *pipeline
}

// NewCorrelator returns a correlator for the capture file named file that
// reports to h, within limits l (a zero field is its default). It runs a
// pipeline when l.Pipeline and h allow; a format whose reader reads
// correlation's state calls Sequential before adding anything.
func NewCorrelator(file string, h Handler, l Limits) *Correlator {
	l = l.orDefaults()
	c := &Correlator{file: file, h: h, limits: l, sessions: map[string]*Session{}, shared: newFileState(l.MaxHeldBytes)}
	c.overlap = overlaps(h, l.Pipeline)
	c.spill.maxLive = l.MaxLiveSessions
	return c
}

// Add correlates f as the next frame of the session f.SessionID, which is
// created when first seen (sessions keep that order). f.Raw is decoded here
// into f.Msg, unless the format did so already (decodeMessage of f.Raw, to
// read it), and a JSON array on the protocol channel is split into its
// messages. A frame with Raw but no known
// Direction gets the one its message shows, when that is unambiguous.
func (c *Correlator) Add(f *Frame) {
	if c.overlap {
		c.pipeline().add(f)
		return
	}
	c.addFrame(f)
}

// pipeline is the correlator's pipeline, started when first needed.
func (c *Correlator) pipeline() *pipeline {
	if c.pipe == nil {
		c.pipe = newPipeline(c)
	}
	return c.pipe
}

// stopPipeline waits until everything added has been correlated; from then
// on the correlator works on the caller's goroutine.
func (c *Correlator) stopPipeline() {
	if c.pipe != nil {
		c.pipe.stop()
	}
	c.pipe, c.overlap = nil, false
}

// stage returns a copy of data in the pipeline's batch, with the store
// the message of the frame to be added next is to be decoded into, when the
// correlator runs a pipeline and data is not too large to copy; else nil
// and nil. A format that decodes a frame from the staged copy hands it over
// without a further copy (pipeline.stage).
func (c *Correlator) stage(data []byte) ([]byte, *msgStore) {
	if !c.overlap {
		return nil, nil
	}
	return c.pipeline().stage(data)
}

func (c *Correlator) addFrame(f *Frame) {
	s := c.sessions[f.SessionID]
	if s == nil {
		if c.deferFrame(f) {
			return
		}
		s = newSession(c.file, f.SessionID, f.Line, c.shared, nil)
		s.emit = func(f *Frame) { c.h.Frame(s, f) }
		c.sessions[f.SessionID] = s
		c.order = append(c.order, s)
		c.release(s)
	}
	c.last, c.laterWaits = s, false
	c.correlate(s, f)
}

// correlate adds f to s.
func (c *Correlator) correlate(s *Session, f *Frame) {
	if f.Direction == DirUnknown && f.Raw != nil {
		s.inferDirection(f)
	}
	if !f.IsProtocol() || f.Raw == nil {
		s.add(f)
		return
	}
	if jsonscan.FirstByte(f.Raw) == '[' {
		if elems := jsonscan.Elements(f.Raw); len(elems) > 0 {
			for i, el := range elems {
				g := *f
				g.Raw, g.Msg = el, decodeMessage(el)
				g.marks, g.marked = 0, false // the array's, not the element's
				g.Batch, g.Element, g.Elements = true, i+1, len(elems)
				s.add(&g)
			}
			return
		}
		// an empty or broken array: invalid as a whole
	}
	if f.Msg.Kind == NoMessage { // a format may have decoded it already
		f.Msg = decodeMessageIn(f.Raw, f.store)
		f.marks, f.marked = 0, false // prescanned without its message
	}
	s.add(f)
}

// Survived is what could still be read of a damaged piece.
type Survived struct {
	SessionID string    // the session it names; "" when that was lost
	Direction Direction // DirUnknown when lost
	Seqs      []int64   // the seqs in it, in order (several when envelopes were glued)
}

// Damage reports a piece of the capture that could not be read. It goes to
// the session the piece names, else to the previous frame's session, else
// to the next session to appear. What survived of a piece naming its
// session is accounted there: its seqs are not dropped frames, and it may
// explain an unmatched answer or a pending request.
func (c *Correlator) Damage(d Damage, sv Survived) {
	if c.overlap {
		c.pipeline().damage(d, sv)
		return
	}
	c.addDamage(d, sv)
}

func (c *Correlator) addDamage(d Damage, sv Survived) {
	pd := damage{Damage: d, sessionID: sv.SessionID, dir: DirUnknown}
	if sv.SessionID != "" {
		pd.dir, pd.seqs = sv.Direction, sv.Seqs
	}
	if s := c.sessions[sv.SessionID]; s != nil {
		c.deliver(s, pd)
		return
	}
	if c.deferDamage(pd) {
		return
	}
	if pd.sessionID != "" {
		if c.keepEarly(pd) {
			return // until its session appears
		}
		// too many sessions are waited for: as if it named none
		pd.sessionID, pd.dir, pd.seqs = "", DirUnknown, nil
		if c.deferDamage(pd) {
			return
		}
	}
	switch {
	case c.last != nil:
		c.deliver(c.last, pd) // the session of the frame before it
	case len(c.damage) < maxEarlyDamage:
		c.damage = append(c.damage, pd) // until the first session appears
	default:
		c.moreDamage, c.moreLine = c.moreDamage+1, pd.Line
	}
}

// Finish ends every session, in first-seen order, after delivering the
// damage still waiting for a session that never appeared. It returns
// ErrNoSession when no frame was added; a second call does nothing more.
// What kept the sessions past Limits.MaxLiveSessions from being read back is Err.
func (c *Correlator) Finish() error {
	c.stopPipeline()
	if c.finished {
		return nil
	}
	if len(c.order) == 0 {
		return ErrNoSession
	}
	c.finished = true
	if err := c.unclaimed(c.order[0]); err != nil {
		c.waiting.close()
		c.spill.close()
		c.finishErr = err
		return nil
	}
	for _, s := range c.order {
		s.finish()
		c.h.End(s)
	}
	c.order, c.last, c.sessions = nil, nil, nil // their state can go
	c.finishErr = c.finishLater()
	return nil
}

// unclaimed delivers to first the damage that named sessions that never
// appeared, once the index of waiting sessions is sorted.
func (c *Correlator) unclaimed(first *Session) error {
	if err := c.unclaimedEarly(first); err != nil {
		return err
	}
	if err := c.sortWaiting(); err != nil {
		return err
	}
	return c.unclaimedWaiting(first)
}

// Err is what kept the temporary file of deferred sessions and early damage
// from being written or read back: the sessions of the capture were not all
// checked. Read returns it.
func (c *Correlator) Err() error {
	if c.finishErr != nil {
		return c.finishErr
	}
	return c.spill.err
}

// damage is a damaged piece with what survived of its envelope.
type damage struct {
	Damage
	sessionID string
	dir       Direction
	seqs      []int64
}

// release delivers the damage held for s, a new live session: what named
// it before it appeared, and, when s is the first session, what came
// before any session.
func (c *Correlator) release(s *Session) {
	if err := c.takeEarly(s.ID, func(pd damage) { c.deliver(s, pd) }); err != nil && c.spill.err == nil {
		c.spill.err = err
	}
	if len(c.order) != 1 {
		return
	}
	for _, pd := range c.damage {
		c.deliver(s, pd)
	}
	c.damage = nil
	if c.moreDamage > 0 {
		c.h.Damage(s, c.earlySummary())
		c.moreDamage = 0
	}
}

func (c *Correlator) deliver(s *Session, pd damage) {
	if pd.sessionID != "" && s.ID == pd.sessionID {
		pd.Seq, pd.GapBefore = s.noteDamage(pd.dir, pd.seqs)
	}
	c.h.Damage(s, pd.Damage)
}

// noteDamage accounts for a damaged envelope of this session. A protocol
// frame, or one whose direction was lost, may have been the request of an
// unmatched answer or the answer of a pending request; the seqs that
// survived in it (several when envelopes were glued together) are not
// dropped frames. When its seq shows that frames were dropped just before
// it, within the reorder window, those are counted here (gap, before seq):
// a frame after it would otherwise count the damaged one as dropped too.
func (s *Session) noteDamage(dir Direction, seqs []int64) (seq, gap int64) {
	switch dir {
	case ClientToServer, ServerToClient:
		s.credits[dir].add(2*s.Frames+1, 1)
	case DirUnknown:
		s.credits[ClientToServer].add(2*s.Frames+1, 1)
		s.credits[ServerToClient].add(2*s.Frames+1, 1)
	}
	for i, n := range seqs {
		switch {
		case n == s.highestSeq+1:
			s.highestSeq = n
		case i == 0 && n > s.highestSeq+1 && n-s.highestSeq-1 <= ReorderWindow:
			seq, gap = n, n-s.highestSeq-1
			s.MissingFrames += gap
			s.credits[ClientToServer].add(2*s.Frames+1, int(gap))
			s.credits[ServerToClient].add(2*s.Frames+1, int(gap))
			s.highestSeq = n
		}
	}
	return seq, gap
}
