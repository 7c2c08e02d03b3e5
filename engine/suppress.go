package engine

import (
	"fmt"
	"time"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/internal/fingerprint"
	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/suppress"
)

// suppressor applies a suppressions file to one run: it decides each
// finding as its session is frozen, and remembers which entries matched.
type suppressor struct {
	byFP     map[string]*entryState
	scoped   []*entryState   // entries by rule and label, file order
	order    []*entryState   // file order
	folded   map[string]bool // rules that folded findings past their cap in some session
	unplaced []*entryState   // first matched in the session being frozen
}

type entryState struct {
	entry   *suppress.Suppression
	expired bool
	// where the entry first matched: the session its own findings go to
	// (pos: its place in the result spill, -1 in memory), and the finding
	// an expired entry no longer suppresses
	session *result.SessionResult
	pos     int
	first   checks.Location
}

func newSuppressor(set *suppress.Suppressions) *suppressor {
	if set == nil {
		return nil
	}
	now := set.Now
	if now.IsZero() {
		now = time.Now()
	}
	m := &suppressor{byFP: make(map[string]*entryState, len(set.Entries))}
	seen := map[string]bool{}
	for _, e := range set.Entries {
		if seen[e.Key()] {
			continue // ParseSuppressions refuses duplicates; a hand-built set keeps the first
		}
		seen[e.Key()] = true
		st := &entryState{entry: e, expired: e.Expired(now)}
		if e.Scoped() {
			m.scoped = append(m.scoped, st)
		} else {
			m.byFP[e.Fingerprint] = st
		}
		m.order = append(m.order, st)
	}
	return m
}

// decide returns the entry that suppresses f, found in session s, or nil:
// the entry of its fingerprint, else the first scoped entry of its rule
// and label. An expired entry matches but no longer suppresses.
func (m *suppressor) decide(f *result.Finding, s *result.SessionResult) *suppress.Suppression {
	if m == nil {
		return nil
	}
	st := m.byFP[f.Fingerprint]
	if st == nil {
		for _, sc := range m.scoped {
			if sc.entry.Matches(f.Rule, s.Label) {
				st = sc
				break
			}
		}
	}
	if st == nil {
		return nil
	}
	if st.session == nil {
		st.session, st.first = s, checks.Location{File: f.File, Line: f.Line}
		m.unplaced = append(m.unplaced, st)
	}
	if st.expired {
		return nil
	}
	return st.entry
}

// placed tells the entries first matched in s where s was stored.
func (m *suppressor) placed(s *result.SessionResult, pos int) {
	if m == nil {
		return
	}
	for _, st := range m.unplaced {
		st.pos = pos
	}
	m.unplaced = m.unplaced[:0]
}

// report adds the findings about the entries once every session is
// decided: expired-suppression for each expired entry, stale-suppression
// for each that matched nothing although the run could have shown its
// finding. They are placed at the entry in the suppressions file (the line
// to edit), in the session the entry matched, else the first session of
// its label, else the run's first session.
func (m *suppressor) report(col *collector, cfg *Config) {
	if m == nil || col.res.NumSessions() == 0 {
		return
	}
	// The first session of each label an entry names, and the run's first
	// (one pass: a run of many sessions reads them back from its file).
	named := map[string]bool{}
	for _, st := range m.order {
		named[st.entry.Label] = true
	}
	byLabel := map[string]storedSession{}
	var first *storedSession
	for pos, s := range col.all() {
		if first == nil {
			first = &storedSession{s, pos}
		}
		if _, ok := byLabel[s.Label]; !ok && named[s.Label] {
			byLabel[s.Label] = storedSession{s, pos}
		}
	}
	for _, st := range m.order {
		e := st.entry
		var id, msg string
		switch {
		case st.expired:
			id, msg = expiredSuppressionID, fmt.Sprintf("suppression %s expired at the end of %s and no longer suppresses", entryName(e), e.Expires)
		case st.session == nil && m.couldMatch(e, byLabel, cfg):
			id, msg = staleSuppressionID, fmt.Sprintf("suppression %s matched no finding", entryName(e))
		default:
			continue
		}
		r := checks.Lookup(cfg.Rules, id)
		if r == nil {
			continue // disabled
		}
		at := storedSession{st.session, st.pos}
		if at.s == nil {
			at = byLabel[e.Label]
		}
		if at.s == nil {
			at = *first
		}
		s := at.s
		fd := &result.Finding{
			Rule: r.ID, Signal: r.Signal, Severity: r.Severity, Message: secrets.Mask(checks.OneLine(msg)), // a hand-written entry is text like any other
			File: e.File, Line: e.Line, Session: s.ID, Label: s.Label,
			Subject: entrySubject(e),
			Gated:   cfg.Gate.Selects(r),
		}
		fd.Fingerprint = fingerprint.Of(s.Label, s.Ordinal, r.ID, fd.Subject, 0)
		if st.session != nil && st.first.Line > 0 {
			fd.Related = append(fd.Related, checks.Location{File: st.first.File, Line: st.first.Line, Message: "the finding it no longer suppresses"})
		}
		col.addFinding(at.pos, s, fd)
	}
}

// noteFolded records that rule r folded findings past its cap (spec §2.4):
// those are counted, never listed, so an entry may have accepted one of
// them without anything to match here.
func (m *suppressor) noteFolded(rule string) {
	if m == nil {
		return
	}
	if m.folded == nil {
		m.folded = map[string]bool{}
	}
	m.folded[rule] = true
}

// couldMatch reports whether the run could have shown e's finding, so that
// its absence means the entry is stale: an entry of a server label the run
// never saw, of a rule --disable turned off, or of a rule that folded
// findings it did not list (one of them may be the entry's) is not judged.
func (m *suppressor) couldMatch(e *suppress.Suppression, byLabel map[string]storedSession, cfg *Config) bool {
	if m.folded[e.Rule] || (e.Rule == "" && len(m.folded) > 0) {
		return false
	}
	if _, seen := byLabel[e.Label]; e.Label != "" && !seen {
		return false
	}
	if e.Rule != "" && checks.Lookup(cfg.Catalogue, e.Rule) != nil && checks.Lookup(cfg.Rules, e.Rule) == nil {
		return false
	}
	return true
}

// entryName names an entry in messages: its fingerprint and what it says
// it suppressed, or its scope.
func entryName(e *suppress.Suppression) string {
	if e.Scoped() {
		return "of " + e.Scope()
	}
	return e.Fingerprint + entryWhat(e)
}

// entrySubject is the subject of the findings about an entry: stable as
// the entry is.
func entrySubject(e *suppress.Suppression) string {
	if e.Scoped() {
		return "suppression of rule " + e.Rule + " label " + e.Label
	}
	return "suppression " + e.Fingerprint
}

// entryWhat is what an entry says it suppressed, for messages.
func entryWhat(e *suppress.Suppression) string {
	rule := e.Rule
	if rule != "" && !checks.ValidRuleID(rule) {
		rule = checks.Quote(rule, 40)
	}
	switch {
	case rule != "" && e.Subject != "":
		return fmt.Sprintf(" of %s %s", rule, checks.Quote(e.Subject, 80))
	case rule != "":
		return " of " + rule
	case e.Subject != "":
		return " of " + checks.Quote(e.Subject, 80)
	}
	return ""
}

// storedSession is a session result and its position in the result spill
// (-1: in memory).
type storedSession struct {
	s   *result.SessionResult
	pos int
}
