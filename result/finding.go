// Package result is what a check run produces and every reporter renders:
// findings as plain data, per-session results with their counts and
// assertion outcomes, the gate, and the iterators reports range over. It
// knows the rule metadata (checks) and nothing of how a run is made.
package result

import (
	"time"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/internal/fingerprint"
	"github.com/mcpcheck/mcpcheck/session"
	"github.com/mcpcheck/mcpcheck/suppress"
)

// Location is a place in a capture.
type Location = checks.Location

// Cause is the finding another one follows from.
type Cause = checks.Cause

// Finding is one problem a rule found, as reports show it.
type Finding struct {
	Rule     string
	Signal   checks.Signal
	Severity checks.Severity
	Message  string // the problem only; reporters add the location

	File    string
	Line    int // line of the frame's envelope; 0 for a whole session
	Session string
	Label   string
	Seq     int64
	Subject string // stable: method and tool, prompt or URI; never a request id, line or time

	Related []Location

	// Fingerprint is derived from (session label, the session's ordinal
	// among sessions of that label in its file, rule, subject) and the
	// occurrence among equal subjects, never from lines, timestamps or
	// request ids, so the same traffic recorded twice keeps its
	// fingerprints and two sessions of one server in one file do not share
	// them (spec §3, §7.3).
	Fingerprint string

	// Gated is true when the finding's signal or rule is selected by
	// --fail-on: it fails the gate and is reported at level error.
	Gated bool

	// Suppressed is the suppressions entry that accepts the finding, or
	// nil: a suppressed finding is reported and counted apart, at level
	// note, and never fails the gate.
	Suppressed *suppress.Suppression

	// Existing is true when the earlier report --new-from named held the
	// finding's fingerprint: it is reported, marked existing, and does not
	// fail the gate.
	Existing bool

	// Also is how many more occurrences this finding stands for, when a
	// rule lists a flood of the same problem once: they are counted, not
	// listed.
	Also int

	// Drift is the tool change a tool-drift finding reports (its tier and
	// fields, for reports that carry them apart from the message).
	Drift *baseline.ToolChange

	// CausedBy is the finding this one follows from, or nil: its message
	// already ends by naming it; reports may also point at it.
	CausedBy *Cause

	// Exchange is the request the finding is about and its answer, when it
	// is about one; nil otherwise.
	Exchange *Exchange
}

// Level is how reports show the finding: error when gated, note otherwise.
func (f *Finding) Level() string {
	if f.Gated {
		return "error"
	}
	return "note"
}

// ValidFingerprint reports whether s has the form of a fingerprint as
// mcpcheck writes them (lower-case hexadecimal).
func ValidFingerprint(s string) bool { return fingerprint.Valid(s) }

// Exchange is the request a finding is about and what became of it, for
// reports that draw the exchange (the job summary's sequence diagram). It
// is a copy: neither the call nor the frames are kept past the session.
type Exchange struct {
	From   session.Direction // who sent the request
	Method string
	Name   string // tool or prompt name, or resource URI; "" when none
	ID     string // the request id as written: for people, never for subjects
	Line   int    // the request's line
	Sent   time.Time

	// Answer is what came back ("result", "error -32603", "isError result",
	// "HTTP 502", …), or "" when nothing did; Note says why there was none
	// ("never answered", "cancelled", …) or adds to the answer.
	Answer   string
	Answered time.Time // zero when there was no answer or no timestamp
	Note     string
}

// Latency is the time from the request to its answer; ok is false when
// either end has no timestamp.
func (e *Exchange) Latency() (time.Duration, bool) {
	if e.Sent.IsZero() || e.Answered.IsZero() {
		return 0, false
	}
	return e.Answered.Sub(e.Sent), true
}
