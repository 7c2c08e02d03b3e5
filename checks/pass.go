package checks

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/session"
)

// Location is a place in a capture.
type Location struct {
	File    string
	Line    int
	Message string // what is there, for related locations ("request sent here")
}

// Pass is a rule's view of one session: what it reads and where it
// reports. The engine makes it and sets Rule before each call; rules do not
// keep it.
type Pass struct {
	Session  *session.Session
	Rule     *Rule    // the rule being run
	Reporter Reporter // the engine's side of the pass

	// Judging is where the engine counts what the rule judged in the
	// session; nil when nothing counts.
	Judging *int64
}

// Judged counts one frame or exchange the rule judged (whether or not it
// found a problem), for a rule with CountsJudged: one increment, so it may
// sit on the per-frame path.
func (p *Pass) Judged() {
	if p.Judging != nil {
		*p.Judging++
	}
}

// Reporter is what a Pass reports through and reads the run from; the
// engine implements it (go/analysis's Report(Diagnostic) pattern). Rules
// call the Pass, never the Reporter.
type Reporter interface {
	// Fold counts a finding of r at at against the rule's cap in the
	// session (spec §2.4): nil when the finding is to be listed in full,
	// else the finding that stands for it and the others past the cap.
	Fold(r *Rule, at Location) *Finding
	// Report records a finding of r that is listed in full. f is the frame
	// it is reported at (its call's exchange is drawn from it), or nil.
	Report(r *Rule, f *session.Frame, at Location, seq int64, subject, message string) *Finding
	// Listed reports whether r's next finding will be listed in full.
	Listed(r *Rule) bool
	// Fact is the session's tracker of k; nil when it is not available.
	Fact(k *facts.Key) facts.Tracker
	// Option is the value set for the run, ok false when none was.
	Option(s Setting) (v any, ok bool)
	// Baseline is what the engine resolved of the session's label's tool
	// baseline (recording it, the first time) as the session ended: nil
	// before End, or when the session listed no tools or has no label.
	Baseline() *baseline.Entry
	// AttachDrift makes r the session's drift report, which reports show
	// apart from the findings.
	AttachDrift(r *baseline.Report)
	// MarkCause records c as what explains the answer to the request at
	// seq and line, unless a cause is recorded for it already; CauseOf
	// returns the cause of call's answer, or nil.
	MarkCause(seq int64, line int, c Cause)
	CauseOf(call *session.Call) *Cause
}

// Cause is the finding another one follows from: when a rule finds fault
// with a request and another with its answer, the second names the first,
// so a reader sees one story instead of two unrelated findings.
type Cause struct {
	Rule string
	What string // the fault in a few words: "request without _meta"
	File string
	Line int
}

// String is how a message names the cause.
func (c *Cause) String() string {
	return fmt.Sprintf("caused by: %s, line %d", c.What, c.Line)
}

// Finding is a finding as a rule reported it: the engine completes it
// (label, fingerprint, gate, suppression) into the run's result when the
// session ends. A rule may still add to it: more occurrences (Also),
// related locations, the call it is about.
type Finding struct {
	Rule     string
	Signal   Signal
	Severity Severity
	Message  string // the problem only; reporters add the location

	File    string
	Line    int // line of the frame's envelope; 0 for a whole session
	Session string
	Seq     int64
	Subject string // stable: method and tool, prompt or URI; never a request id, line or time

	Related []Location

	// Also is how many more occurrences this finding stands for, when a
	// rule lists a flood of the same problem once: they are counted, not
	// listed.
	Also int

	// Drift is the tool change a tool-drift finding reports (its tier and
	// fields, for reports that carry them apart from the message).
	Drift *baseline.ToolChange

	// CausedBy is the finding this one follows from, or nil (see Cause).
	CausedBy *Cause

	track Tracking // the engine's record of it; nil for a finding made by hand
}

// Tracking is the engine's record of a finding it handed to a rule.
type Tracking interface {
	// About ties the finding to the call it is about.
	About(c *session.Call)
	// Pin marks a finding the rule holds on to, to count on it.
	Pin()
	// Folded reports the finding that stands for findings past the cap:
	// it keeps counts, nothing else.
	Folded() bool
}

// Track ties fd to the engine's record of it (a Reporter calls it).
func (fd *Finding) Track(t Tracking) { fd.track = t }

func (fd *Finding) folded() bool { return fd.track != nil && fd.track.Folded() }

// Fact returns the session's tracker of k to a rule that declared it in
// Rule.Facts; reading an undeclared fact fails the rule (internal-error).
func (p *Pass) Fact(k *facts.Key) facts.Tracker {
	for _, d := range p.Rule.Facts {
		if d.Key() == k {
			if t := p.Reporter.Fact(k); t != nil {
				return t
			}
			panic(fmt.Sprintf("fact %s is not available", k.Name))
		}
	}
	panic(fmt.Sprintf("rule %s reads fact %s without declaring it in Facts", p.Rule.ID, k.Name))
}

// Report records a finding at frame f.
func (p *Pass) Report(f *session.Frame, subject, format string, args ...any) *Finding {
	return p.report(f, Location{File: f.File, Line: f.Line}, f.Seq, subject, format, args)
}

// ReportAt records a finding at a location that is not a frame being seen.
//
// A rule's first MaxFindingsPerRule findings in a session are kept in full;
// each later one is only counted, on the one finding that stands for them
// all (spec §2.4), which is what ReportAt then returns: a rule may count
// more occurrences on it (Also), and the rest of what it sets is dropped.
func (p *Pass) ReportAt(at Location, seq int64, subject, format string, args ...any) *Finding {
	return p.report(nil, at, seq, subject, format, args)
}

func (p *Pass) report(f *session.Frame, at Location, seq int64, subject, format string, args []any) *Finding {
	if fd := p.Reporter.Fold(p.Rule, at); fd != nil {
		return fd // not even formatted: a flood must cost little
	}
	return p.Reporter.Report(p.Rule, f, at, seq, secrets.Mask(subject), secrets.Mask(OneLine(fmt.Sprintf(format, args...))))
}

// Listed reports whether the rule's next finding in this session will be
// listed in full; when it will only be counted, a rule that reports a flood
// may spare itself the formatting and report it with an empty message.
func (p *Pass) Listed() bool { return p.Reporter.Listed(p.Rule) }

// Relate adds a related location to a finding.
func (fd *Finding) Relate(file string, line int, message string) *Finding {
	if line > 0 && !fd.folded() {
		fd.Related = append(fd.Related, Location{File: file, Line: line, Message: secrets.Mask(message)})
	}
	return fd
}

// Explains marks fd, reported at a request, as the cause of whatever a
// rule finds in that request's answer; what names the fault in a few words
// ("request without _meta"). The first cause marked on a request wins.
func (p *Pass) Explains(fd *Finding, what string) {
	if fd == nil || fd.folded() || fd.Line == 0 {
		return
	}
	p.Reporter.MarkCause(fd.Seq, fd.Line, Cause{Rule: fd.Rule, What: secrets.Mask(what), File: fd.File, Line: fd.Line})
}

// FollowsCause links fd, reported at the answer f to a request, to the
// finding marked as that request's cause, if any: the message ends by
// naming it, and reports show it as a related location.
func (p *Pass) FollowsCause(f *session.Frame, fd *Finding) *Finding {
	if f == nil || f.Call == nil || fd == nil || fd.folded() || fd.CausedBy != nil {
		return fd
	}
	if c := p.Reporter.CauseOf(f.Call); c != nil && c.Rule != fd.Rule {
		cause := *c
		fd.CausedBy = &cause
		fd.Message += "; " + cause.String()
	}
	return fd
}

// About ties a finding reported away from any frame to the call it is
// about; a finding reported at a frame is tied to its call already.
func (fd *Finding) About(c *session.Call) *Finding {
	if c != nil && fd.track != nil {
		fd.track.About(c)
	}
	return fd
}

// pin keeps a finding whole in its session's log: a rule holds it to count
// more occurrences on it (repeats).
func (fd *Finding) pin() {
	if fd.track != nil {
		fd.track.Pin()
	}
}

// MaxFindingsPerRule is how many findings one rule keeps in full in one
// session (spec §2.4). A chatty server can write a million lines to stdout:
// past the cap each finding is only counted, on one finding that stands for
// the rest, so memory follows what must be remembered, never the number of
// findings, and every count stays exact.
const MaxFindingsPerRule = 1000
