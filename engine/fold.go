package engine

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

// foldSubject is the subject of the finding that stands for a rule's folded
// findings: its fingerprint is stable, so it can be suppressed like any other.
const foldSubject = "more findings"

// ruleFold is one rule's findings in one session, counted.
type ruleFold struct {
	kept        int       // findings kept in full
	more        *reported // stands for the findings past the cap; nil until then
	first, last checks.Location
}

// Listed reports whether r's next finding in this session will be listed
// in full (checks.Reporter).
func (sr *sessionRun) Listed(r *checks.Rule) bool {
	fo := sr.folds[r]
	return fo == nil || fo.kept < checks.MaxFindingsPerRule
}

// Fold counts a finding of r at at (checks.Reporter); it returns nil when
// the finding is to be kept in full, else the finding that now stands for
// it too.
func (sr *sessionRun) Fold(r *checks.Rule, at checks.Location) *checks.Finding {
	if n := sr.cfg.Found; n != nil {
		n.Add(1) // --progress counts every finding, listed or not
	}
	fo := sr.folds[r]
	if fo == nil {
		if sr.folds == nil {
			sr.folds = map[*checks.Rule]*ruleFold{}
		}
		fo = &ruleFold{}
		sr.folds[r] = fo
	}
	if fo.kept < checks.MaxFindingsPerRule {
		fo.kept++
		return nil
	}
	if fo.more == nil {
		fo.more = &reported{fd: checks.Finding{Rule: r.ID, Session: sr.s.ID}, folded: true}
		fo.more.fd.Track(fo.more)
		fo.first = at
	} else {
		fo.more.fd.Also++
	}
	fo.last = at
	return &fo.more.fd
}

// foldedFindings are the findings that stand for each rule's folded ones,
// made whole: whatever a rule set on one after reporting it, other than
// counting more occurrences, belonged to a finding that is not listed.
func (sr *sessionRun) foldedFindings() []*result.Finding {
	var out []*result.Finding
	for r, fo := range sr.folds {
		if fo.more == nil {
			continue
		}
		n := 1 + fo.more.fd.Also
		fd := &result.Finding{
			Rule: r.ID, Signal: r.Signal, Severity: r.Severity,
			Message: fmt.Sprintf("%d more %s of this rule not listed (a rule lists at most %d per session)",
				n, plural(n, "finding", "findings"), checks.MaxFindingsPerRule),
			File: fo.first.File, Line: fo.first.Line,
			Session: sr.s.ID,
			Subject: foldSubject,
			Also:    n - 1,
		}
		if fo.last.Line > 0 && fo.last != fo.first {
			fd.Related = append(fd.Related, checks.Location{File: fo.last.File, Line: fo.last.Line, Message: "the last of them"})
		}
		out = append(out, fd)
	}
	sr.folds = nil
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
