package result

import (
	"iter"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/usage"
)

// Result is a whole evaluated run: every reporter renders it and none
// re-runs a check.
type Result struct {
	Files []string
	// Sessions are the session results held in memory, in report order. A
	// run of many sessions keeps the later ones in a temporary file (spec
	// §2.4), Spilled: whatever must see every session, every reporter
	// first, ranges over AllSessions instead.
	Sessions []*SessionResult
	Gate     Gate
	Rules    []*checks.Rule // the full catalogue, for reporters that describe rules
	Passed   bool
	ExitCode int // 0 passed, 1 failed the gate (2 never reaches a report)

	// Usage is what the run's sessions did with what their servers
	// offered (coverage, per-tool statistics, flaky calls; spec §5.2);
	// nil for a result made by hand.
	Usage *usage.Summary
	// RunAssertions are the assertions over the whole run rather than one
	// session (--min-tool-coverage, per server label).
	RunAssertions []Assertion
	// NewFrom is the earlier report --new-from named ("" when none): the
	// findings whose fingerprints it held are Existing.
	NewFrom string
	// Judged is, per rule id of the rules that ran, how many frames or
	// exchanges the rule judged over the run (spec §5.2).
	Judged map[string]int64

	// Spilled are the sessions after Sessions that a run kept off the
	// heap; nil when there are none (always, for a result made by hand).
	Spilled Spilled

	// Notes are what the run says once about itself (drift not checked,
	// for want of a baseline directory), in the order made.
	Notes []string
}

// Spilled is where a run keeps the results of the sessions past its memory
// budget, in report order. The engine provides it.
type Spilled interface {
	// Len is the number of sessions kept.
	Len() int
	// All reads them back in order, each a fresh copy; a failure ends the
	// sequence early and Err says so.
	All() iter.Seq[*SessionResult]
	// Err reports a failure to keep or read back a session.
	Err() error
	// Close releases what holds them; All yields nothing afterwards.
	Close() error
}

// SessionResult is one session's findings, counts and assertion outcomes.
type SessionResult struct {
	ID        string
	Label     string
	Ordinal   int // earlier sessions of the same label in the same file
	File      string
	FirstLine int
	Revision  string
	Transport string

	Frames        int64
	MissingFrames int64 // frames lost to seq gaps

	Findings   []*Finding // deterministic order: line, rule, message
	Assertions []Assertion

	// Drift is the session's tools against their baseline (spec §6); nil
	// when the session listed no tools or tool-drift did not run.
	Drift *baseline.Report

	// Calls is what the session's requests did (bounded); nil when the
	// session made none.
	Calls *Calls
	// Unjudged has bit i set when rule i of the run's catalogue
	// (Result.Rules) ran in the session and judged nothing: not observed
	// (spec §5.2). Nil for a result made by hand.
	Unjudged []uint64

	counts     [checks.NumSignals]int
	suppressed int
}

// NotObserved reports whether catalogue rule i ran in the session and had
// nothing to judge.
func (s *SessionResult) NotObserved(i int) bool {
	return i >= 0 && i/64 < len(s.Unjudged) && s.Unjudged[i/64]&(1<<(i%64)) != 0
}

// Count is the number of findings of signal s; suppressed ones are not
// counted under their signal.
func (s *SessionResult) Count(sig checks.Signal) int { return s.counts[sig] }

// CountSuppressed is the number of suppressed findings.
func (s *SessionResult) CountSuppressed() int { return s.suppressed }

// FailedSignals lists, in signal order, the gated signals with findings,
// then gated single rules whose signal is not gated.
func (s *SessionResult) FailedSignals(g Gate) []string {
	var out []string
	var gated [checks.NumSignals]bool // from the findings: a server's own gate may differ from g
	for _, f := range s.Findings {
		gated[f.Signal] = gated[f.Signal] || f.Gated
	}
	for _, sig := range checks.Signals() {
		if g.SelectsSignal(sig) && gated[sig] {
			out = append(out, sig.String())
		}
	}
	seen := map[string]bool{}
	for _, f := range s.Findings {
		if f.Gated && !g.SelectsSignal(f.Signal) && !seen[f.Rule] {
			seen[f.Rule] = true
			out = append(out, f.Rule)
		}
	}
	return out
}

// Passed reports whether nothing in the session fails the gate.
func (s *SessionResult) Passed() bool {
	for _, f := range s.Findings {
		if f.Gated {
			return false
		}
	}
	for _, a := range s.Assertions {
		if !a.Passed {
			return false
		}
	}
	return true
}

// Assertion is the outcome of one --expect-tool, --forbid-tool or budget flag
// for one session.
type Assertion struct {
	Name    string // expect-tool, forbid-tool, max-duration, max-server-duration, max-round-trips
	Arg     string // the tool name or the budget as given
	Passed  bool
	Message string // what held or what failed, naming the worst offender
}

// Recount recomputes the per-signal counts from Findings; the engine does
// this itself, callers that assemble a SessionResult by hand (tests, other
// front ends) call it after filling Findings.
func (s *SessionResult) Recount() {
	s.counts, s.suppressed = [checks.NumSignals]int{}, 0
	for _, f := range s.Findings {
		if f.Suppressed != nil {
			s.suppressed += 1 + f.Also
			continue
		}
		s.counts[f.Signal] += 1 + f.Also
	}
}

// GatedFirst yields every finding of the run: those that fail the gate
// first, then the others, each group in session and finding order. Reports
// that cap their length keep the findings that matter. (Two passes over the
// sessions: nothing is collected.)
func (r *Result) GatedFirst() iter.Seq[*Finding] {
	return func(yield func(*Finding) bool) {
		for _, gated := range []bool{true, false} {
			for s := range r.AllSessions() {
				for _, f := range s.Findings {
					if f.Gated == gated && !yield(f) {
						return
					}
				}
			}
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
		if r.Spilled != nil {
			for s := range r.Spilled.All() {
				if !yield(s) {
					return
				}
			}
		}
	}
}

// NumSessions is the number of sessions AllSessions yields.
func (r *Result) NumSessions() int {
	if r.Spilled == nil {
		return len(r.Sessions)
	}
	return len(r.Sessions) + r.Spilled.Len()
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
	if r.Spilled != nil {
		return r.Spilled.Err()
	}
	return nil
}

// Close releases the temporary file of a run of many sessions. The result
// must not be read afterwards.
func (r *Result) Close() error {
	if r.Spilled == nil {
		return nil
	}
	return r.Spilled.Close()
}
