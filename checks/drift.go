package checks

import (
	"fmt"
	"slices"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/session"
)

// BaselineStore is where tool-drift and baseline find tool baselines, and
// the engine records them; the CLI sets it from --baseline. Unset, a run
// keeps nothing (the engine sets a store of its own, baseline.NewMemory):
// each session of a label is compared with the first listing of that
// label in the same run, and recording is not reported.
var BaselineStore = &Option[*baseline.Store]{
	Name: "baseline-store",
	Doc:  "the tool-baseline directory (--baseline DIR); unset, sessions of one run are compared with the first session of their label",
}

// BaselineOrigin is where the session's tool baseline would be recorded
// from: its first complete listing. The engine resolves (and records) the
// baseline for it as the session ends; the rules compare with what it
// resolved.
func BaselineOrigin(s *session.Session, first *facts.ToolListing) baseline.Origin {
	return baseline.Origin{File: s.File, Session: s.ID, Line: first.Line}
}

// ReadsBaseline reports whether r reads the tool baseline the engine
// resolves at the end of a session.
func ReadsBaseline(r *Rule) bool { return slices.Contains(r.Options, Setting(BaselineStore)) }

// attachDrift makes r the session's drift report (tool-drift's).
func (p *Pass) attachDrift(r *baseline.Report) { p.Reporter.AttachDrift(r) }

// sessionDrift is what tool-drift and baseline both judge: the session's
// listings against its label's baseline. Each rule computes it at the end
// of the session from what the engine resolved (Pass.Reporter.Baseline).
type sessionDrift struct {
	report *baseline.Report
	store  *baseline.Store
	err    *baseline.Error // the baseline file cannot be used
	first  facts.ToolListing
	lines  []facts.ToolListing // the listing each change was first seen in
}

func computeDrift(p *Pass) *sessionDrift {
	list := facts.ToolListings.Of(p).List
	if len(list) == 0 {
		return nil // no complete listing: nothing to compare or record
	}
	s := p.Session
	d := &sessionDrift{store: BaselineStore.Get(p), first: list[0], report: &baseline.Report{Label: s.Label}}
	r := d.report
	if s.Label == "" {
		r.Status, r.Problem = baseline.StatusUnavailable, "the session has no server label, which keys its baseline"
		return d
	}
	origin := BaselineOrigin(s, &list[0])
	e := p.Reporter.Baseline()
	if e == nil {
		panic("the engine resolved no baseline for the session")
	}
	r.Path, r.NotKept = e.Path, e.NotKept
	switch {
	case e.Err != nil:
		d.err = e.Err
		r.Status, r.Problem = baseline.StatusUnavailable, e.Err.Error()
		return d
	case e.Baseline == nil:
		r.Status, r.Problem = baseline.StatusUnavailable, "there is no baseline and "+e.NotKept
		return d
	}
	b := e.Baseline
	r.Format, r.Recorded, r.Accepted, r.NotCompared = b.Describe(), b.Recorded, b.Accepted, b.Missing
	switch {
	case e.RecordedBy != nil && *e.RecordedBy == origin:
		// Later sessions compare with what this one recorded; its own
		// later listings are a server changing its tools with
		// list_changed, as it may. The first is still compared: it may
		// have lost a race with another process recording this label.
		r.Status = baseline.StatusRecorded
		list = list[:1]
	case e.RecordedBy != nil:
		r.Status, r.RecordedBy = baseline.StatusCompared, e.RecordedBy
	default:
		r.Status = baseline.StatusCompared
	}
	seen := map[string]bool{}
	for _, l := range list {
		for _, c := range baseline.Compare(&b.Definitions, &l.Definitions) {
			key := fmt.Sprintf("%v", c)
			if seen[key] {
				continue
			}
			seen[key] = true
			r.Changes = append(r.Changes, c)
			d.lines = append(d.lines, l)
		}
	}
	return d
}

// tierSeverity is the level a tool-drift finding takes from its tier.
func tierSeverity(t baseline.Tier) Severity {
	switch t {
	case baseline.TierBreaking:
		return SeverityError
	case baseline.TierReview:
		return SeverityWarning
	}
	return SeverityNote
}

// persistHint tells a user how to make a recorded baseline count.
func persistHint(dir string) string {
	return fmt.Sprintf("keep %s (commit it or cache it) for later runs to compare against", dir)
}
