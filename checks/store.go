package checks

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/mcpcheck/mcpcheck/baseline"
)

// A run of many sessions cannot hold every result in memory (spec §2.4): a
// file of 200,000 one-request sessions has as many results. Results are
// kept in memory while they fit resultBudget; later ones go, in order, to a
// temporary file that reporters read back one session at a time.

// resultBudget is roughly how many bytes of session results a run holds in
// memory before it spills the rest (a variable for tests). Reading a
// result back costs microseconds a finding; holding it costs its bytes
// twice over until the reports are written (the collector's headroom), at
// the run's peak: the end of a file, where all its sessions end at once.
var resultBudget = 512 << 10

// SetResultBudgetForTesting makes runs started from now on hold about n
// bytes of session results, and as many of the findings of open sessions,
// in memory (0: spill every session and finding), until restore is called.
// Reports must read the same either way.
func SetResultBudgetForTesting(n int) (restore func()) {
	old, oldLive := resultBudget, liveBudget
	resultBudget, liveBudget = n, n
	return func() { resultBudget, liveBudget = old, oldLive }
}

// resultSpill is the temporary file of the sessions past the budget.
type resultSpill struct {
	f     *os.File
	name  string
	w     *bufio.Writer
	enc   *gob.Encoder
	n     int                // sessions in the file
	extra map[int][]*Finding // findings added after a session was spilled, by its position in the file
	err   error
}

// sessionWire is a SessionResult as the spill file holds it.
type sessionWire struct {
	ID, Label     string
	Ordinal       int
	File          string
	FirstLine     int
	Revision      string
	Transport     string
	Frames        int64
	MissingFrames int64
	Findings      []*Finding
	Assertions    []Assertion
	Drift         *baseline.Report
}

// Add appends a session result in report order: in memory while the
// results fit the budget, else to the spill file. Counts must be final
// (Recount).
func (r *Result) Add(s *SessionResult) {
	if !s.Passed() {
		r.failing++
	}
	if r.spill == nil {
		size := s.size()
		if r.memBytes+size <= resultBudget {
			r.memBytes += size
			s.pos = -1
			r.Sessions = append(r.Sessions, s)
			return
		}
		r.spill = &resultSpill{}
	}
	r.spill.add(s)
}

// size estimates the memory a session result holds.
func (s *SessionResult) size() int {
	n := 320 + len(s.ID) + len(s.Label) + len(s.File)
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
	return n
}

func (sp *resultSpill) add(s *SessionResult) {
	s.pos = sp.n
	sp.n++
	if sp.err != nil {
		return
	}
	if sp.f == nil {
		f, err := os.CreateTemp("", "mcpcheck-results-*")
		if err != nil {
			sp.err = fmt.Errorf("results of many sessions: %w", err)
			return
		}
		sp.f, sp.name = f, f.Name()
		// Where the system allows it the file goes now, so that nothing is
		// left behind however the process ends; it lives while open.
		if os.Remove(sp.name) == nil {
			sp.name = ""
		}
		sp.w = bufio.NewWriterSize(f, 64<<10)
		sp.enc = gob.NewEncoder(sp.w)
	}
	w := sessionWire{
		ID: s.ID, Label: s.Label, Ordinal: s.Ordinal, File: s.File, FirstLine: s.FirstLine,
		Revision: s.Revision, Transport: s.Transport, Frames: s.Frames, MissingFrames: s.MissingFrames,
		Findings: s.Findings, Assertions: s.Assertions, Drift: s.Drift,
	}
	if err := sp.enc.Encode(&w); err != nil {
		sp.err = fmt.Errorf("results of many sessions: %w", err)
	}
}

// each reads the spilled sessions back in order.
func (sp *resultSpill) each(yield func(*SessionResult) bool) {
	if sp.err != nil || sp.n == 0 {
		return
	}
	if err := sp.w.Flush(); err != nil {
		sp.err = fmt.Errorf("results of many sessions: %w", err)
		return
	}
	dec := gob.NewDecoder(bufio.NewReaderSize(io.NewSectionReader(sp.f, 0, 1<<62), 64<<10))
	for i := 0; i < sp.n; i++ {
		var w sessionWire
		if err := dec.Decode(&w); err != nil {
			sp.err = fmt.Errorf("results of many sessions: reading back: %w", err)
			return
		}
		s := &SessionResult{
			ID: w.ID, Label: w.Label, Ordinal: w.Ordinal, File: w.File, FirstLine: w.FirstLine,
			Revision: w.Revision, Transport: w.Transport, Frames: w.Frames, MissingFrames: w.MissingFrames,
			Findings: w.Findings, Assertions: w.Assertions, Drift: w.Drift, pos: i,
		}
		s.Findings = append(s.Findings, sp.extra[i]...)
		s.Recount()
		if !yield(s) {
			return
		}
	}
}

// AllSessions yields every session result in report order: those held in
// Sessions, then those a run of many sessions kept in its temporary file,
// read back one at a time. Reporters range over it, never over Sessions.
// A failure to read the file back ends the sequence early; Err says so.
func (r *Result) AllSessions() iter.Seq[*SessionResult] {
	return func(yield func(*SessionResult) bool) {
		for _, s := range r.Sessions {
			if !yield(s) {
				return
			}
		}
		if r.spill != nil {
			r.spill.each(yield)
		}
	}
}

// NumSessions is the number of sessions AllSessions yields.
func (r *Result) NumSessions() int {
	if r.spill == nil {
		return len(r.Sessions) // a result made by hand has only Sessions
	}
	return len(r.Sessions) + r.spill.n
}

// NumFindings is the number of findings listed in every session (a
// finding standing for several counts once).
func (r *Result) NumFindings() int {
	n := 0
	for s := range r.AllSessions() {
		n += len(s.Findings)
	}
	return n
}

// Err reports a failure to keep or read back the results of a run of many
// sessions; a report rendered while it is set is incomplete.
func (r *Result) Err() error {
	if r.spill != nil {
		return r.spill.err
	}
	return nil
}

// Close releases the temporary file of a run of many sessions. The result
// must not be read afterwards.
func (r *Result) Close() error {
	sp := r.spill
	if sp == nil || sp.f == nil {
		return nil
	}
	err := sp.f.Close()
	if sp.name != "" {
		err = errors.Join(err, os.Remove(sp.name))
	}
	sp.f = nil
	if sp.err == nil {
		sp.err = errors.New("results of many sessions: the result was closed")
	}
	return err
}

// addFinding adds a finding to a session after it was stored (the
// suppressions' own findings); s may be a copy read back from the spill.
func (r *Result) addFinding(s *SessionResult, fd *Finding) {
	passed := s.Passed()
	s.Findings = append(s.Findings, fd)
	s.Recount()
	if passed && !s.Passed() {
		r.failing++
	}
	if s.pos >= 0 && r.spill != nil {
		if r.spill.extra == nil {
			r.spill.extra = map[int][]*Finding{}
		}
		r.spill.extra[s.pos] = append(r.spill.extra[s.pos], fd)
	}
}
