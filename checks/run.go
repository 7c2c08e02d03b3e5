package checks

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
)

// Config is what a check run evaluates.
type Config struct {
	Rules      []*Rule // the rules that run (the catalogue minus disabled ones)
	Catalogue  []*Rule // every rule, for reporters; defaults to All()
	Gate       Gate
	Assertions Assertions

	// Suppressions accepts findings by fingerprint (spec §5.1); nil for none.
	Suppressions *Suppressions

	// InputFormat reads every input as this capture format; nil detects
	// the format of each (spec §2.2).
	InputFormat readers.Format

	// Reading tunes how inputs are read and correlated; the zero value is
	// production's (readers.DefaultOptions).
	Reading readers.Options

	// Found, when set, counts findings as rules make them (the progress
	// line's "findings so far"; it is read from another goroutine).
	Found *atomic.Int64

	options map[Setting]any // rule options set by Option.Set
	shared  map[any]any     // run-wide state rules share across sessions (drift.go); made by Run
}

// Run reads every input once, runs the rules and assertions, and returns the
// evaluated result. An error means nothing was checked (exit 2): an input
// could not be opened or read, or is not a capture.
func Run(inputs []readers.Source, cfg Config) (*Result, error) {
	if cfg.Catalogue == nil {
		cfg.Catalogue = All()
	}
	cfg.shared = map[any]any{}
	res := &Result{Gate: cfg.Gate, Rules: cfg.Catalogue}
	fr := &freezer{res: res, byID: map[string]*Rule{}, sup: newSuppressor(cfg.Suppressions)}
	for _, r := range cfg.Catalogue {
		fr.byID[r.ID] = r
	}
	defer fr.live.close()
	for _, in := range inputs {
		fr.ordinals = map[string]int{} // sessions of each label so far in this file
		if err := readInput(in, cfg.InputFormat, cfg.Reading, newDriver(&cfg, fr)); err != nil {
			res.Close()
			return nil, err
		}
		res.Files = append(res.Files, in.Name)
	}
	fr.sup.report(res, &cfg)
	if err := errors.Join(fr.live.err, res.Err()); err != nil {
		res.Close()
		return nil, err
	}
	res.Passed = res.failing == 0
	if !res.Passed {
		res.ExitCode = 1
	}
	return res, nil
}

// freezer turns each session into its result as the session ends, in the
// order sessions were first seen: a file of many sessions keeps no rule
// state or unfrozen findings of the sessions it has finished.
type freezer struct {
	res      *Result
	byID     map[string]*Rule
	sup      *suppressor
	ordinals map[string]int // sessions of each label so far in the file being read
	live     liveSpill      // findings of open sessions past the memory budget
}

func readInput(in readers.Source, format readers.Format, o readers.Options, h session.Handler) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	return readers.ReadAs(in.Name, rc, h, format, o)
}

// driver is the session.Handler that feeds rules.
type driver struct {
	cfg      *Config
	fr       *freezer
	allRevs  []bool       // per rule: it judges every revision
	ranged   bool         // some rule judges only some revisions
	factKeys []*facts.Key // the facts the rules declare, and what those require
	runs     map[*session.Session]*sessionRun
}

func newDriver(cfg *Config, fr *freezer) *driver {
	d := &driver{cfg: cfg, fr: fr, runs: map[*session.Session]*sessionRun{}}
	var declared []*facts.Key
	for _, r := range cfg.Rules {
		d.allRevs = append(d.allRevs, r.Revisions == AllRevisions)
		d.ranged = d.ranged || r.Revisions != AllRevisions
		for _, f := range r.Facts {
			declared = append(declared, f.Key())
		}
	}
	d.factKeys = facts.Closure(declared)
	return d
}

// run is the state of s, made on its first event.
func (d *driver) run(s *session.Session) *sessionRun {
	if sr := d.runs[s]; sr != nil {
		return sr
	}
	sr := &sessionRun{s: s, cfg: d.cfg, asserts: newAssertTracker(&d.cfg.Assertions)}
	sr.pass = Pass{Session: s, sink: sr}
	sr.reportPanics = slices.Contains(d.cfg.Rules, ruleInternalError)
	sr.facts = facts.NewSet(s, d.factKeys)
	sr.checkers = make([]Checker, len(d.cfg.Rules))
	sr.dead = make([]bool, len(d.cfg.Rules))
	for i, r := range d.cfg.Rules {
		sr.start(i, r)
	}
	d.runs[s] = sr
	return sr
}

func (d *driver) Frame(s *session.Session, f *session.Frame) {
	sr := d.run(s)
	if k, v := sr.facts.Frame(f); k != nil {
		sr.factFailed(k, v, f)
	}
	rev := ""
	if d.ranged {
		rev = f.Revision(s)
	}
	d.frameFrom(sr, f, rev, 0)
	sr.asserts.frame(f)
	if len(sr.findings) > 0 {
		sr.seal(&d.fr.live)
	}
}

// frameFrom gives f to the rules from index i on. One deferred recover
// covers them all (not one per rule and frame, on the hot path): a rule
// that panics is retired for the session, and the rules after it still
// see the frame.
func (d *driver) frameFrom(sr *sessionRun, f *session.Frame, rev string, i int) {
	defer func() {
		if v := recover(); v != nil {
			sr.retire(i, f, v)
			d.frameFrom(sr, f, rev, i+1)
		}
	}()
	for ; i < len(d.cfg.Rules); i++ {
		if r := d.cfg.Rules[i]; !sr.dead[i] && (d.allRevs[i] || r.Revisions.Includes(rev)) {
			sr.checkers[i].Frame(sr.passFor(r), f)
		}
	}
}

func (d *driver) Damage(s *session.Session, dmg session.Damage) {
	sr := d.run(s)
	for i := range d.cfg.Rules {
		if !sr.dead[i] {
			sr.damage(i, dmg)
		}
	}
	if len(sr.findings) > 0 {
		sr.seal(&d.fr.live)
	}
}

func (d *driver) End(s *session.Session) {
	sr := d.run(s)
	for i := range d.cfg.Rules {
		if !sr.dead[i] {
			sr.end(i)
		}
	}
	delete(d.runs, s) // the session's rule state is no longer needed
	sr.checkers, sr.facts = nil, nil
	fr := d.fr
	ordinal := fr.ordinals[s.Label]
	fr.ordinals[s.Label]++
	fr.res.Add(sr.result(sr.loggedFindings(&fr.live), d.cfg.Gate, fr.byID, d.cfg.Rules, fr.sup, ordinal))
}

// sessionRun is one session's rule states, facts and findings.
type sessionRun struct {
	s        *session.Session
	cfg      *Config
	pass     Pass      // reused for every call: rules do not keep it
	checkers []Checker // by rule index in cfg.Rules
	dead     []bool    // rules that panicked in this session
	facts    *facts.Set
	findings []*Finding          // reported since the last seal: rules may still change them
	log      findingLog          // the findings before, compactly
	folds    map[*Rule]*ruleFold // findings counted per rule, for the cap
	asserts  *assertTracker
	drift    *baseline.Report // set by tool-drift

	reportPanics bool // internal-error is enabled
}

func (sr *sessionRun) passFor(r *Rule) *Pass {
	sr.pass.rule = r
	return &sr.pass
}

// start, damage and end call rule i under recoverPanic: a panic becomes an
// internal-error finding and retires the rule for this session, so one
// broken rule cannot stop the others (frames: driver.frameFrom).
func (sr *sessionRun) start(i int, r *Rule) {
	defer sr.recoverPanic(i, nil)
	sr.checkers[i] = r.New()
}

func (sr *sessionRun) damage(i int, d session.Damage) {
	defer sr.recoverPanic(i, nil)
	sr.checkers[i].Damage(sr.passFor(sr.cfg.Rules[i]), d)
}

func (sr *sessionRun) end(i int) {
	defer sr.recoverPanic(i, nil)
	sr.checkers[i].End(sr.passFor(sr.cfg.Rules[i]))
}

// recoverPanic must be deferred directly: recover only works there.
func (sr *sessionRun) recoverPanic(i int, f *session.Frame) {
	if v := recover(); v != nil {
		sr.retire(i, f, v)
	}
}

// retire records rule i's panic v and stops giving it this session's input.
func (sr *sessionRun) retire(i int, f *session.Frame, v any) {
	sr.dead[i] = true
	r := sr.cfg.Rules[i]
	sr.internalError(f, r.ID, "rule %s failed: %v; its findings for this session are incomplete", r.ID, v)
}

// factFailed retires every rule that reads a fact whose tracker panicked:
// what they would judge is unknown.
func (sr *sessionRun) factFailed(k *facts.Key, v any, f *session.Frame) {
	var retired []string
	for i, r := range sr.cfg.Rules {
		for _, k2 := range facts.Closure(factKeys(r)) {
			if k2 == k && !sr.dead[i] {
				sr.dead[i] = true
				retired = append(retired, r.ID)
			}
		}
	}
	sr.internalError(f, "fact "+k.Name, "fact %s failed: %v; the findings of %s for this session are incomplete", k.Name, v, strings.Join(retired, ", "))
}

func (sr *sessionRun) internalError(f *session.Frame, subject, format string, args ...any) {
	if !sr.reportPanics {
		return // internal-error was disabled
	}
	at := Location{File: sr.s.File, Line: sr.s.FirstLine}
	var seq int64
	if f != nil {
		at, seq = Location{File: f.File, Line: f.Line}, f.Seq
	}
	sr.passFor(ruleInternalError).ReportAt(at, seq, subject, format, args...)
}

func factKeys(r *Rule) []*facts.Key {
	keys := make([]*facts.Key, len(r.Facts))
	for i, f := range r.Facts {
		keys[i] = f.Key()
	}
	return keys
}

// result freezes the session: gating, counts, order and fingerprints.
func (sr *sessionRun) result(findings []*Finding, g Gate, byID map[string]*Rule, enabled []*Rule, sup *suppressor, ordinal int) *SessionResult {
	s := sr.s
	folded := sr.foldedFindings()
	for _, f := range folded {
		sup.noteFolded(f.Rule)
	}
	out := &SessionResult{
		ID: s.ID, Label: s.Label, Ordinal: ordinal, File: s.File, FirstLine: s.FirstLine,
		Revision: s.Revision, Transport: s.Transport,
		Frames: s.Frames, MissingFrames: s.MissingFrames,
		Findings:   append(findings, folded...),
		Assertions: sr.asserts.results(),
		Drift:      sr.drift,
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
		f.finish()
		f.Label = s.Label
		k := [2]string{f.Rule, f.Subject}
		f.Fingerprint = fingerprint(s.Label, ordinal, f.Rule, f.Subject, seen[k])
		seen[k]++
		// Suppression is decided per finding, before any folding.
		f.Suppressed = sup.decide(f, out)
		r := byID[f.Rule]
		f.Gated = f.Suppressed == nil && r != nil && g.Selects(r)
	}
	if !slices.Contains(enabled, ruleMissingFrames) {
		out.MissingFrames = 0 // a disabled rule is neither reported nor counted
	}
	out.Recount()
	return out
}
