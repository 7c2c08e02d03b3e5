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
		d := &driver{cfg: &cfg, runs: map[*session.Session]*sessionRun{}}
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
	cfg   *Config
	runs  map[*session.Session]*sessionRun
	order []*sessionRun
}

func (d *driver) run(s *session.Session) *sessionRun {
	if sr := d.runs[s]; sr != nil {
		return sr
	}
	sr := &sessionRun{s: s, asserts: newAssertTracker(&d.cfg.Assertions)}
	for _, r := range d.cfg.Rules {
		if r == ruleInternalError {
			sr.reportPanics = true
		}
		if r.Start == nil {
			continue
		}
		rr := &ruleRun{rule: r, pass: &Pass{Session: s, rule: r, sink: sr}}
		sr.rules = append(sr.rules, rr)
		rr.guard(sr, nil, func() { rr.init(r.Start(s)) })
	}
	d.runs[s] = sr
	d.order = append(d.order, sr)
	return sr
}

func (d *driver) Frame(s *session.Session, f *session.Frame) {
	sr := d.run(s)
	for _, rr := range sr.rules {
		if rr.frame != nil && !rr.dead {
			rr.onFrame(sr, f)
		}
	}
	sr.asserts.frame(f)
}

func (d *driver) Damage(s *session.Session, dmg session.Damage) {
	sr := d.run(s)
	for _, rr := range sr.rules {
		if rr.damage != nil && !rr.dead {
			rr.guard(sr, nil, func() { rr.damage.Damage(rr.pass, dmg) })
		}
	}
}

func (d *driver) End(s *session.Session) {
	sr := d.run(s)
	for _, rr := range sr.rules {
		if rr.end != nil && !rr.dead {
			rr.guard(sr, nil, func() { rr.end.End(rr.pass, s) })
		}
	}
	delete(d.runs, s) // the session's rule state is no longer needed
	sr.rules = nil
}

// sessionRun is one session's rule states and findings.
type sessionRun struct {
	s        *session.Session
	rules    []*ruleRun
	findings []*Finding
	asserts  *assertTracker

	reportPanics bool // internal-error is enabled
}

type ruleRun struct {
	rule   *Rule
	pass   *Pass
	frame  FrameChecker
	damage DamageChecker
	end    EndChecker
	dead   bool // panicked: not called again for this session
}

func (rr *ruleRun) init(c any) {
	rr.frame, _ = c.(FrameChecker)
	rr.damage, _ = c.(DamageChecker)
	rr.end, _ = c.(EndChecker)
}

// guard runs fn; a panic becomes an internal-error finding and retires the
// rule for this session, so one broken rule cannot stop the others.
func (rr *ruleRun) guard(sr *sessionRun, f *session.Frame, fn func()) {
	defer rr.recoverPanic(sr, f)
	fn()
}

// onFrame is guard for the hot path, without a closure per rule and frame.
func (rr *ruleRun) onFrame(sr *sessionRun, f *session.Frame) {
	defer rr.recoverPanic(sr, f)
	rr.frame.Frame(rr.pass, f)
}

// recoverPanic must be deferred directly: recover only works there.
func (rr *ruleRun) recoverPanic(sr *sessionRun, f *session.Frame) {
	v := recover()
	if v == nil {
		return
	}
	rr.dead = true
	if !sr.reportPanics {
		return // internal-error was disabled
	}
	at := Location{File: sr.s.File, Line: sr.s.FirstLine}
	var seq int64
	if f != nil {
		at, seq = Location{File: f.File, Line: f.Line}, f.Seq
	}
	internal := &Pass{Session: sr.s, rule: ruleInternalError, sink: sr}
	internal.ReportAt(at, seq, rr.rule.ID,
		"rule %s failed: %v; its findings for this session are incomplete", rr.rule.ID, v)
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
