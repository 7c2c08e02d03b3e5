package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spill"
	"github.com/mcpcheck/mcpcheck/result"
)

// A run of many sessions cannot hold every result in memory (spec §2.4): a
// file of 200,000 one-request sessions has as many results. Results are
// kept in memory while they fit Limits.ResultBytes; later ones go, in
// order, to a temporary file that reporters read back one session at a
// time (result.Result.Spilled).

// collector adds each session's result to the run's result as it ends.
type collector struct {
	res      *result.Result
	budget   int
	memBytes int          // estimated size of res.Sessions
	failing  int          // sessions added that failed the gate
	spill    *resultSpill // the sessions past the budget; nil when none
}

func newCollector(res *result.Result, budget int) *collector {
	return &collector{res: res, budget: budget}
}

// add appends a session result in report order: in memory while the
// results fit the budget, else to the spill file. Counts must be final
// (Recount). It returns the session's position in the spill, -1 in memory.
func (c *collector) add(s *result.SessionResult) int {
	if !s.Passed() {
		c.failing++
	}
	if c.spill == nil {
		size := sessionSize(s)
		if c.memBytes+size <= c.budget {
			c.memBytes += size
			c.res.Sessions = append(c.res.Sessions, s)
			return -1
		}
		c.spill = &resultSpill{}
		c.spill.file.Pattern = "mcpcheck-results-*"
		c.res.Spilled = c.spill
	}
	return c.spill.add(s)
}

// all yields every session with its position (-1: in memory).
func (c *collector) all() iter.Seq2[int, *result.SessionResult] {
	return func(yield func(int, *result.SessionResult) bool) {
		for _, s := range c.res.Sessions {
			if !yield(-1, s) {
				return
			}
		}
		if c.spill != nil {
			for i, s := range c.spill.each() {
				if !yield(i, s) {
					return
				}
			}
		}
	}
}

// addFinding adds a finding to a session after it was stored (the
// suppressions' own findings); s may be a copy read back from the spill,
// at position pos.
func (c *collector) addFinding(pos int, s *result.SessionResult, fd *result.Finding) {
	passed := s.Passed()
	s.Findings = append(s.Findings, fd)
	s.Recount()
	if passed && !s.Passed() {
		c.failing++
	}
	if pos >= 0 && c.spill != nil {
		if c.spill.extra == nil {
			c.spill.extra = map[int][]*result.Finding{}
		}
		c.spill.extra[pos] = append(c.spill.extra[pos], fd)
	}
}

// sessionSize estimates the memory a session result holds.
func sessionSize(s *result.SessionResult) int {
	n := 320 + len(s.ID) + len(s.Label) + len(s.File) + 8*len(s.Unjudged)
	for _, f := range s.Findings {
		n += 360 + len(f.Message) + len(f.Subject) + 2*len(f.File) + 64*len(f.Related)
		for _, l := range f.Related {
			n += len(l.Message)
		}
	}
	for _, a := range s.Assertions {
		n += 80 + len(a.Message)
	}
	if s.Drift != nil {
		n += 4096 // tool changes: rare, and each session has one report
	}
	if c := s.Calls; c != nil {
		n += 160 + 120*len(c.Tools) + len(c.Tools)*24
		for i := range c.Drawn {
			n += 240 + len(c.Drawn[i].Request) + len(c.Drawn[i].Answer) + len(c.Drawn[i].Name)
		}
	}
	return n
}

// resultSpill is the temporary file of the sessions past the budget: one
// record a session, each its length and its encoding (codec.go).
type resultSpill struct {
	file  spill.File
	w     *bufio.Writer
	enc   []byte                    // reused to encode a session
	n     int                       // sessions in the file
	extra map[int][]*result.Finding // findings added after a session was spilled, by its position in the file
	err   error
}

func (sp *resultSpill) add(s *result.SessionResult) int {
	pos := sp.n
	sp.n++
	if sp.err != nil {
		return pos
	}
	if sp.w == nil {
		sp.w = bufio.NewWriterSize(&sp.file, 64<<10)
	}
	sp.enc = encodeSession(sp.enc[:0], s)
	var head [10]byte
	e := spill.NewEncoder(head[:0])
	e.Uvarint(uint64(len(sp.enc)))
	sp.w.Write(e.Bytes())
	if _, err := sp.w.Write(sp.enc); err != nil {
		sp.err = fmt.Errorf("results of many sessions: %w", err)
	}
	if cap(sp.enc) > 1<<20 {
		sp.enc = nil // one huge session does not keep its buffer
	}
	return pos
}

// Len is the number of sessions in the file (result.Spilled).
func (sp *resultSpill) Len() int { return sp.n }

// All reads the spilled sessions back in order (result.Spilled).
func (sp *resultSpill) All() iter.Seq[*result.SessionResult] {
	return func(yield func(*result.SessionResult) bool) {
		for _, s := range sp.each() {
			if !yield(s) {
				return
			}
		}
	}
}

// each reads the spilled sessions back in order, with their positions.
func (sp *resultSpill) each() iter.Seq2[int, *result.SessionResult] {
	return func(yield func(int, *result.SessionResult) bool) {
		if sp.err != nil || sp.n == 0 {
			return
		}
		if err := sp.w.Flush(); err != nil {
			sp.err = fmt.Errorf("results of many sessions: %w", err)
			return
		}
		r := bufio.NewReaderSize(sp.file.Section(0, sp.file.Size()), 64<<10)
		for i := 0; i < sp.n; i++ {
			s, err := readSession(r)
			if err != nil {
				sp.err = fmt.Errorf("results of many sessions: reading back: %w", err)
				return
			}
			s.Findings = append(s.Findings, sp.extra[i]...)
			s.Recount()
			if !yield(i, s) {
				return
			}
		}
	}
}

// readSession reads one record: its strings share one string.
func readSession(r *bufio.Reader) (*result.SessionResult, error) {
	var n uint64
	var sh uint
	for {
		c, err := r.ReadByte()
		if err != nil {
			return nil, err
		}
		n |= uint64(c&0x7f) << sh
		if c < 0x80 {
			break
		}
		if sh += 7; sh > 63 {
			return nil, spill.ErrDamaged
		}
	}
	if n > 1<<40 {
		return nil, spill.ErrDamaged
	}
	var b strings.Builder
	b.Grow(int(n))
	for left := int(n); left > 0; {
		chunk, err := r.Peek(min(left, r.Size()))
		if len(chunk) == 0 {
			return nil, errors.Join(err, io.ErrUnexpectedEOF)
		}
		b.Write(chunk)
		r.Discard(len(chunk))
		left -= len(chunk)
	}
	return decodeSession(b.String())
}

// Err reports a failure to keep or read back a session (result.Spilled).
func (sp *resultSpill) Err() error { return sp.err }

// Close removes the file (result.Spilled).
func (sp *resultSpill) Close() error {
	if !sp.file.Open() {
		return nil
	}
	err := sp.file.Close()
	if sp.err == nil {
		sp.err = errors.New("results of many sessions: the result was closed")
	}
	return err
}

// SpillSessions keeps sessions in a temporary file, in order, as a run past
// its memory budget does, for a result assembled by hand (a front end of
// its own, a test of the reporters): reports read them back through
// result.Result.AllSessions. Close it, or the result it is set on.
func SpillSessions(sessions []*result.SessionResult) (result.Spilled, error) {
	sp := &resultSpill{}
	sp.file.Pattern = "mcpcheck-results-*"
	for _, s := range sessions {
		sp.add(s)
	}
	if sp.err == nil && sp.w != nil {
		if err := sp.w.Flush(); err != nil {
			sp.err = fmt.Errorf("results of many sessions: %w", err)
		}
	}
	if sp.err != nil {
		sp.Close()
		return nil, sp.err
	}
	return sp, nil
}
