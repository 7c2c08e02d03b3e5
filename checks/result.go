package checks

import (
	"iter"

	"github.com/mcpcheck/mcpcheck/baseline"
)

// Result is a whole evaluated run: every reporter renders it and none
// re-runs a check.
type Result struct {
	Files []string
	// Sessions are the session results held in memory, in report order. A
	// run of many sessions keeps the later ones in a temporary file (spec
	// §2.4; store.go): whatever must see every session, every reporter
	// first, ranges over AllSessions instead.
	Sessions []*SessionResult
	Gate     Gate
	Rules    []*Rule // the full catalogue, for reporters that describe rules
	Passed   bool
	ExitCode int // 0 passed, 1 failed the gate (2 never reaches a report)

	spill    *resultSpill // the sessions past the memory budget; nil when none
	memBytes int          // estimated size of Sessions
	failing  int          // sessions added that failed the gate
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

	counts     [numSignals]int
	suppressed int
	pos        int // position in the result's spill file; -1 in memory
}

// Count is the number of findings of signal s; suppressed ones are not
// counted under their signal.
func (s *SessionResult) Count(sig Signal) int { return s.counts[sig] }

// CountSuppressed is the number of suppressed findings.
func (s *SessionResult) CountSuppressed() int { return s.suppressed }

// FailedSignals lists, in signal order, the gated signals with findings,
// then gated single rules whose signal is not gated.
func (s *SessionResult) FailedSignals(g Gate) []string {
	var out []string
	for _, sig := range Signals() {
		if g.SelectsSignal(sig) && s.counts[sig] > 0 {
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

// Recount recomputes the per-signal counts from Findings; the driver does
// this itself, callers that assemble a SessionResult by hand (tests, other
// front ends) call it after filling Findings.
func (s *SessionResult) Recount() {
	s.counts, s.suppressed = [numSignals]int{}, 0
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
