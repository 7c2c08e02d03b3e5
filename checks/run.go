package checks

import (
	"slices"
	"sort"

	"github.com/mcpcheck/mcpcheck/session"
)

// Config is what a check run evaluates.
type Config struct {
	Rules      []*Rule // the rules that run (the catalogue minus disabled ones)
	Catalogue  []*Rule // every rule, for reporters; defaults to All()
	Gate       Gate
	Assertions Assertions
}

// Run reads every input once, runs the rules and assertions, and returns the
// evaluated result. An error means nothing was checked (exit 2): an input
// could not be opened or read, or is not a capture.
func Run(inputs []session.Source, cfg Config) (*Result, error) {
	if cfg.Catalogue == nil {
		cfg.Catalogue = All()
	}
	res := &Result{Gate: cfg.Gate, Rules: cfg.Catalogue}
	byID := map[string]*Rule{}
	for _, r := range cfg.Catalogue {
		byID[r.ID] = r
	}
	for _, in := range inputs {
		d := newDriver(&cfg)
		if err := readInput(in, d); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, in.Name)
		sort.SliceStable(d.order, func(i, j int) bool { return d.order[i].s.FirstLine < d.order[j].s.FirstLine })
		for _, sr := range d.order {
			res.Sessions = append(res.Sessions, sr.result(cfg.Gate, byID, cfg.Rules))
		}
	}
	res.Passed = true
	for _, s := range res.Sessions {
		if !s.Passed() {
			res.Passed = false
		}
	}
	if !res.Passed {
		res.ExitCode = 1
	}
	return res, nil
}

func readInput(in session.Source, h session.Handler) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	return session.Read(in.Name, rc, h)
}

// driver is the session.Handler that feeds rules.
type driver struct {
	cfg       *Config
	stateless []*Rule // rules with a Check: one function for every session
	stateful  []*Rule // rules with a Start: a checker per session
	runs      map[*session.Session]*sessionRun
	order     []*sessionRun
}

func newDriver(cfg *Config) *driver {
	d := &driver{cfg: cfg, runs: map[*session.Session]*sessionRun{}}
	for _, r := range cfg.Rules {
		if r.Check != nil {
			d.stateless = append(d.stateless, r)
		}
		if r.Start != nil {
			d.stateful = append(d.stateful, r)
		}
	}
	return d
}

// run is the state of s, made on its first event. Only stateful rules cost
// memory per session: a file may interleave many sessions.
func (d *driver) run(s *session.Session) *sessionRun {
	if sr := d.runs[s]; sr != nil {
		return sr
	}
	sr := &sessionRun{s: s, asserts: newAssertTracker(&d.cfg.Assertions)}
	sr.pass = Pass{Session: s, sink: sr}
	sr.reportPanics = slices.Contains(d.cfg.Rules, ruleInternalError)
	sr.checkers = make([]any, len(d.stateful))
	for i, r := range d.stateful {
		sr.guard(r, nil, func() { sr.checkers[i] = r.Start(s) })
	}
	d.runs[s] = sr
	d.order = append(d.order, sr)
	return sr
}

func (d *driver) Frame(s *session.Session, f *session.Frame) {
	sr := d.run(s)
	for _, r := range d.stateless {
		if !sr.dead[r] {
			sr.check(r, f)
		}
	}
	for i, r := range d.stateful {
		if fc, ok := sr.checkers[i].(FrameChecker); ok && !sr.dead[r] {
			sr.frame(r, fc, f)
		}
	}
	sr.asserts.frame(f)
}

func (d *driver) Damage(s *session.Session, dmg session.Damage) {
	sr := d.run(s)
	for i, r := range d.stateful {
		if dc, ok := sr.checkers[i].(DamageChecker); ok && !sr.dead[r] {
			sr.guard(r, nil, func() { dc.Damage(sr.passFor(r), dmg) })
		}
	}
}

func (d *driver) End(s *session.Session) {
	sr := d.run(s)
	for i, r := range d.stateful {
		if ec, ok := sr.checkers[i].(EndChecker); ok && !sr.dead[r] {
			sr.guard(r, nil, func() { ec.End(sr.passFor(r), s) })
		}
	}
	delete(d.runs, s) // the session's rule state is no longer needed
	sr.checkers = nil
}

// sessionRun is one session's rule states and findings.
type sessionRun struct {
	s        *session.Session
	pass     Pass  // reused for every call: rules do not keep it
	checkers []any // the stateful rules' checkers, by driver.stateful index
	dead     map[*Rule]bool
	findings []*Finding
	asserts  *assertTracker

	reportPanics bool // internal-error is enabled
}

func (sr *sessionRun) passFor(r *Rule) *Pass {
	sr.pass.rule = r
	return &sr.pass
}

// guard runs fn for rule r; a panic becomes an internal-error finding and
// retires the rule for this session, so one broken rule cannot stop the
// others.
func (sr *sessionRun) guard(r *Rule, f *session.Frame, fn func()) {
	defer sr.recoverPanic(r, f)
	fn()
}

// check and frame are guard for the hot path, without a closure per rule
// and frame.
func (sr *sessionRun) check(r *Rule, f *session.Frame) {
	defer sr.recoverPanic(r, f)
	r.Check(sr.passFor(r), f)
}

func (sr *sessionRun) frame(r *Rule, fc FrameChecker, f *session.Frame) {
	defer sr.recoverPanic(r, f)
	fc.Frame(sr.passFor(r), f)
}

// recoverPanic must be deferred directly: recover only works there.
func (sr *sessionRun) recoverPanic(r *Rule, f *session.Frame) {
	v := recover()
	if v == nil {
		return
	}
	if sr.dead == nil {
		sr.dead = map[*Rule]bool{}
	}
	sr.dead[r] = true
	if !sr.reportPanics {
		return // internal-error was disabled
	}
	at := Location{File: sr.s.File, Line: sr.s.FirstLine}
	var seq int64
	if f != nil {
		at, seq = Location{File: f.File, Line: f.Line}, f.Seq
	}
	sr.passFor(ruleInternalError).ReportAt(at, seq, r.ID,
		"rule %s failed: %v; its findings for this session are incomplete", r.ID, v)
}

// result freezes the session: gating, counts, order and fingerprints.
func (sr *sessionRun) result(g Gate, byID map[string]*Rule, enabled []*Rule) *SessionResult {
	s := sr.s
	out := &SessionResult{
		ID: s.ID, Label: s.Label, File: s.File, FirstLine: s.FirstLine,
		Revision: s.Revision, Transport: s.Transport,
		Frames: s.Frames, MissingFrames: s.MissingFrames,
		Findings:   sr.findings,
		Assertions: sr.asserts.results(),
	}
	sort.SliceStable(out.Findings, func(i, j int) bool {
		a, b := out.Findings[i], out.Findings[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
	seen := map[[2]string]int{}
	for _, f := range out.Findings {
		f.Label = s.Label
		r := byID[f.Rule]
		f.Gated = r != nil && g.Selects(r)
		k := [2]string{f.Rule, f.Subject}
		f.Fingerprint = fingerprint(s.Label, f.Rule, f.Subject, seen[k])
		seen[k]++
	}
	if !slices.Contains(enabled, ruleMissingFrames) {
		out.MissingFrames = 0 // a disabled rule is neither reported nor counted
	}
	out.Recount()
	return out
}
