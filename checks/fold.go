package checks

import "fmt"

// MaxFindingsPerRule is how many findings one rule keeps in full in one
// session (spec §2.4). A chatty server can write a million lines to stdout:
// past the cap each finding is only counted, on one finding that stands for
// the rest, so memory follows what must be remembered, never the number of
// findings, and every count stays exact.
const MaxFindingsPerRule = 1000

// foldSubject is the subject of the finding that stands for a rule's folded
// findings: its fingerprint is stable, so it can be suppressed like any other.
const foldSubject = "more findings"

// ruleFold is one rule's findings in one session, counted.
type ruleFold struct {
	kept        int      // findings kept in full
	more        *Finding // stands for the findings past the cap; nil until then
	first, last Location // of the folded findings
}

// Listed reports whether the rule's next finding in this session will be
// listed in full; when it will only be counted, a rule that reports a flood
// may spare itself the formatting and report it with an empty message.
func (p *Pass) Listed() bool {
	fo := p.sink.folds[p.rule]
	return fo == nil || fo.kept < MaxFindingsPerRule
}

// fold counts a finding of r at at; it returns nil when the finding is to
// be kept in full, else the finding that now stands for it too.
func (sr *sessionRun) fold(r *Rule, at Location) *Finding {
	fo := sr.folds[r]
	if fo == nil {
		if sr.folds == nil {
			sr.folds = map[*Rule]*ruleFold{}
		}
		fo = &ruleFold{}
		sr.folds[r] = fo
	}
	if fo.kept < MaxFindingsPerRule {
		fo.kept++
		return nil
	}
	if fo.more == nil {
		fo.more = &Finding{Rule: r.ID, Session: sr.s.ID, folded: true}
		fo.first = at
	} else {
		fo.more.Also++
	}
	fo.last = at
	return fo.more
}

// foldedFindings are the findings that stand for each rule's folded ones,
// made whole: whatever a rule set on one after reporting it, other than
// counting more occurrences, belonged to a finding that is not listed.
func (sr *sessionRun) foldedFindings() []*Finding {
	var out []*Finding
	for r, fo := range sr.folds {
		fd := fo.more
		if fd == nil {
			continue
		}
		n := 1 + fd.Also
		*fd = Finding{
			Rule: r.ID, Signal: r.Signal, Severity: r.Severity,
			Message: fmt.Sprintf("%d more %s of this rule not listed (a rule lists at most %d per session)",
				n, plural(n, "finding", "findings"), MaxFindingsPerRule),
			File: fo.first.File, Line: fo.first.Line,
			Session: sr.s.ID,
			Subject: foldSubject,
			Also:    n - 1,
		}
		if fo.last.Line > 0 && fo.last != fo.first {
			fd.Relate(fo.last.File, fo.last.Line, "the last of them")
		}
		out = append(out, fd)
	}
	sr.folds = nil
	return out
}
