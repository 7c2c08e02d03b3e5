package engine

import (
	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
)

// sessionRun is one session's rule states, facts and findings; it is the
// checks.Reporter of the session's passes.
type sessionRun struct {
	s      *session.Session
	cfg    *Config
	own    *serverSettings // the run's settings, with its server's applied
	pass   checks.Pass     // for a rule not in cfg.Rules (passFor)
	seats  []seat          // by rule index in cfg.Rules
	dead   []bool          // rules that panicked in this session
	judged []int64         // by rule index: what each rule counted itself (Pass.Judged)
	// given is, by rule index, the protocol frames of its revisions a rule
	// was given: counted for the rules that judge some revisions, and for
	// a rule that judges all once it is retired; protocol counts the rest.
	given    []int64
	protocol int64
	facts    *facts.Set
	findings []*reported                // reported since the last seal: rules may still change them
	log      findingLog                 // the findings before, compactly
	folds    map[*checks.Rule]*ruleFold // findings counted per rule, for the cap
	asserts  *assertTracker
	baseline *baseline.Entry  // resolved as the session ends, for the rules that read it
	drift    *baseline.Report // attached by tool-drift
	calls    *callLog         // what the session's requests did, for reports

	internalErrorRule *checks.Rule // nil when internal-error is disabled

	// causes are the findings marked as explaining the answers to their
	// requests, by the request's seq; one per request with such a finding,
	// so they follow the findings, bounded by the cap per rule.
	causes map[causeKey]checks.Cause
}

// reported is a finding a rule holds, with what the engine keeps of it
// until the session ends (the rule-facing checks.Finding stays plain).
type reported struct {
	fd     checks.Finding
	ex     *result.Exchange
	call   *session.Call // until the session ends, to learn its outcome
	pinned bool          // a rule holds on to it (repeats): the log keeps it whole
	folded bool          // it stands for the rule's findings past the cap
}

func (w *reported) About(c *session.Call) {
	if !w.folded {
		w.ex, w.call = newExchange(c), c
	}
}
func (w *reported) Pin()         { w.pinned = true }
func (w *reported) Folded() bool { return w.folded }

// seat is one rule's checker in the session and the pass it is called
// with, made once: the per-frame path only reads it, where filling in one
// shared pass for every call was 29% of the engine's cost of a call.
type seat struct {
	checker checks.Checker
	pass    checks.Pass
}

// ruleSlots are a session's slices by rule index. An ended session's
// go to the next session that starts: 100k sessions of one request made
// 4.8 KB of them each, a quarter of what the run allocated.
type ruleSlots struct {
	seats  []seat
	judged []int64
	given  []int64
	dead   []bool
}

// maxSpareSlots bounds the slots kept for sessions to come: sessions end
// about as often as they start, so a few serve a run of any size.
const maxSpareSlots = 8

// seatRules makes the seats of the rules in slots, spare ones or new:
// their passes, not yet their checkers (start).
func (sr *sessionRun) seatRules(rules []*checks.Rule, spare *[]ruleSlots) {
	var slots ruleSlots
	if k := len(*spare); k > 0 {
		slots, *spare = (*spare)[k-1], (*spare)[:k-1]
		clear(slots.seats)
		clear(slots.judged)
		clear(slots.given)
		clear(slots.dead)
	} else {
		slots = ruleSlots{seats: make([]seat, len(rules)), judged: make([]int64, len(rules)), given: make([]int64, len(rules)), dead: make([]bool, len(rules))}
	}
	sr.seats, sr.judged, sr.given, sr.dead = slots.seats, slots.judged, slots.given, slots.dead
	for i, r := range rules {
		sr.seats[i].pass = checks.Pass{Session: sr.s, Rule: r, Reporter: sr, Judging: &sr.judged[i]}
	}
}

// unseat ends the session's rule state, its slots spare for the next.
func (sr *sessionRun) unseat(spare *[]ruleSlots) {
	if len(*spare) < maxSpareSlots {
		*spare = append(*spare, ruleSlots{seats: sr.seats, judged: sr.judged, given: sr.given, dead: sr.dead})
	}
	sr.seats, sr.judged, sr.given, sr.dead = nil, nil, nil, nil
}

func (sr *sessionRun) passFor(r *checks.Rule) *checks.Pass {
	for i, q := range sr.cfg.Rules { // not on the per-frame path
		if q == r && i < len(sr.seats) { // none once the session has ended
			return &sr.seats[i].pass
		}
	}
	sr.pass = checks.Pass{Session: sr.s, Rule: r, Reporter: sr}
	return &sr.pass
}

// Report records a finding listed in full (checks.Reporter).
func (sr *sessionRun) Report(r *checks.Rule, f *session.Frame, at checks.Location, seq int64, subject, message string) *checks.Finding {
	w := &reported{fd: checks.Finding{
		Rule: r.ID, Signal: r.Signal, Severity: r.Severity,
		Message: message,
		File:    at.File, Line: at.Line, Seq: seq,
		Session: sr.s.ID,
		Subject: subject,
	}}
	w.fd.Track(w)
	if f != nil && f.Call != nil {
		w.ex = exchangeAt(f)
		if w.ex.Answer == "" {
			w.call = f.Call // what becomes of it is known when the session ends
		}
	}
	sr.findings = append(sr.findings, w)
	return &w.fd
}

// Fact is the session's tracker of k (checks.Reporter).
func (sr *sessionRun) Fact(k *facts.Key) facts.Tracker { return sr.facts.Get(k) }

// Option is the run's value of s (checks.Reporter).
func (sr *sessionRun) Option(s checks.Setting) (any, bool) {
	v, ok := sr.cfg.options[s]
	return v, ok
}

// Baseline is the session's resolved tool baseline (checks.Reporter).
func (sr *sessionRun) Baseline() *baseline.Entry { return sr.baseline }

// MarkCause records what explains the answer to a request (checks.Reporter).
func (sr *sessionRun) MarkCause(seq int64, line int, c checks.Cause) {
	k := causeKey{seq, line}
	if _, ok := sr.causes[k]; ok {
		return
	}
	if sr.causes == nil {
		sr.causes = map[causeKey]checks.Cause{}
	}
	sr.causes[k] = c
}

// causeKey is a request by its seq and line: either alone may repeat in
// formats that restart a counter or join files.
type causeKey struct {
	seq  int64
	line int
}

// CauseOf is what explains the answer to call, or nil (checks.Reporter).
func (sr *sessionRun) CauseOf(call *session.Call) *checks.Cause {
	if c, ok := sr.causes[causeKey{call.Seq, call.Line}]; ok {
		return &c
	}
	return nil
}

// AttachDrift keeps the session's drift report (checks.Reporter).
func (sr *sessionRun) AttachDrift(r *baseline.Report) { sr.drift = r }

// resolveBaseline resolves the session's label's tool baseline before the
// rules' End, for the rules that read it: the first complete listing of a
// label without a baseline is recorded as its baseline here, by the
// engine, never by a rule.
func (sr *sessionRun) resolveBaseline() {
	reads := false
	for i, r := range sr.cfg.Rules {
		reads = reads || (!sr.dead[i] && checks.ReadsBaseline(r))
	}
	if !reads || sr.s.Label == "" {
		return
	}
	t, _ := sr.facts.Get(facts.ToolListings.Key()).(*facts.ToolListingsTracker)
	if t == nil || len(t.List) == 0 {
		return // no complete listing: nothing to compare or record
	}
	store, _ := sr.cfg.options[checks.BaselineStore].(*baseline.Store)
	if store == nil {
		return
	}
	list := t.List
	e := store.Resolve(sr.s.Label, &list[0].Definitions, &list[len(list)-1].Definitions, checks.BaselineOrigin(sr.s, &list[0]))
	sr.baseline = &e
}

// startFrom, damage and endFrom call the rules under a recover: a panic
// becomes an internal-error finding and retires the rule for this
// session, so one broken rule cannot stop the others (frames:
// driver.frameFrom). startFrom and endFrom take the rules from index k
// on under one deferred recover, not one a rule (34M instructions of a
// 10k-session run).
func (sr *sessionRun) startFrom(k int) {
	defer func() {
		if v := recover(); v != nil {
			sr.retire(k, nil, v)
			sr.startFrom(k + 1)
		}
	}()
	for ; k < len(sr.cfg.Rules); k++ {
		sr.seats[k].checker = sr.cfg.Rules[k].New()
	}
}

func (sr *sessionRun) damage(i int, d session.Damage) {
	defer sr.recoverPanic(i, nil)
	st := &sr.seats[i]
	st.checker.Damage(&st.pass, d)
}

func (sr *sessionRun) endFrom(k int) {
	defer func() {
		if v := recover(); v != nil {
			sr.retire(k, nil, v)
			sr.endFrom(k + 1)
		}
	}()
	for ; k < len(sr.seats); k++ {
		if !sr.dead[k] {
			st := &sr.seats[k]
			st.checker.End(&st.pass)
		}
	}
}

// recoverPanic must be deferred directly: recover only works there.
func (sr *sessionRun) recoverPanic(i int, f *session.Frame) {
	if v := recover(); v != nil {
		sr.retire(i, f, v)
	}
}

// retire records rule i's panic v and stops giving it this session's input.
func (sr *sessionRun) retire(i int, f *session.Frame, v any) {
	sr.stop(i)
	r := sr.cfg.Rules[i]
	sr.internalError(f, r.ID, "rule %s failed: %v; its findings for this session are incomplete", r.ID, v)
}

// stop gives rule i no more of the session's input: it is dead, what it
// was given so far is what it judged, and a checker that does nothing
// stands in for it on the per-frame path (which does not look at dead).
func (sr *sessionRun) stop(i int) {
	sr.dead[i] = true
	if sr.cfg.Rules[i].Revisions == checks.AllRevisions {
		sr.given[i] = sr.protocol
	}
	sr.seats[i].checker = checks.Base{}
}

// givenTo is how many protocol frames of its revisions rule i was given.
func (sr *sessionRun) givenTo(i int, allRevs bool) int64 {
	if allRevs && !sr.dead[i] {
		return sr.protocol
	}
	return sr.given[i]
}

func (sr *sessionRun) internalError(f *session.Frame, subject, format string, args ...any) {
	if sr.internalErrorRule == nil {
		return // internal-error was disabled
	}
	at := checks.Location{File: sr.s.File, Line: sr.s.FirstLine}
	var seq int64
	if f != nil {
		at, seq = checks.Location{File: f.File, Line: f.Line}, f.Seq
	}
	sr.passFor(sr.internalErrorRule).ReportAt(at, seq, subject, format, args...)
}

var _ checks.Reporter = (*sessionRun)(nil)
