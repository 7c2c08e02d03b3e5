// Package engine runs the rules over captures into a result: it opens and
// reads the inputs, drives each session's rules and facts, folds floods,
// keeps findings and results off the heap past a budget, applies the
// suppressions file, evaluates the gate and the assertions, and records
// tool baselines.
package engine

import (
	"errors"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/fingerprint"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
	"github.com/mcpcheck/mcpcheck/suppress"
	"github.com/mcpcheck/mcpcheck/usage"
)

// Config is what a check run evaluates.
type Config struct {
	Rules      []*checks.Rule // the rules that run (the catalogue minus disabled ones)
	Catalogue  []*checks.Rule // every rule, for reporters; defaults to checks.All()
	Gate       result.Gate
	Assertions Assertions

	// Suppressions accepts findings by fingerprint (spec §5.1); nil for none.
	Suppressions *suppress.Suppressions

	// InputFormat reads every input as this capture format; nil detects
	// the format of each (spec §2.2).
	InputFormat readers.Format

	// Reading tunes how inputs are read and correlated; the zero value is
	// production's (readers.DefaultOptions).
	Reading readers.Options

	// Found, when set, counts findings as rules make them (the progress
	// line's "findings so far"; it is read from another goroutine).
	Found *atomic.Int64

	// Limits are the run's memory budgets; the zero value is the defaults.
	Limits Limits

	// Servers are per-server settings, applied in order to the sessions
	// whose label they match (spec §1.3, servers:).
	Servers []Server
	// Coverage is the run-wide tool-coverage assertion (spec §5.2).
	Coverage Coverage
	// MaxArgumentHashes bounds the distinct (tool, arguments) a run
	// remembers to find flaky calls; 0 is usage.DefaultMaxHashes.
	MaxArgumentHashes int
	// KeepDefinitions keeps each label's latest tool definitions in the
	// usage summary (for diff).
	KeepDefinitions bool
	// Existing are the fingerprints of an earlier run's findings
	// (--new-from): a finding that has one is reported as existing and
	// does not fail the gate.
	Existing map[string]bool
	// SkipNotCapture, when set, is told of every input that is not a
	// capture of any format (a *readers.NotCaptureError before any of its
	// sessions began), and the run goes on without it instead of failing
	// (--skip-unrecognised: a pre-commit hook given every *.jsonl).
	SkipNotCapture func(err *readers.NotCaptureError)

	// RecordCalls keeps, per session, what its requests did (bounded:
	// result.Calls) for the reports that draw them; off, a run keeps none.
	RecordCalls bool

	// EveryFrame gives every rule every frame, whatever its Sees says:
	// tests compare the two to show that Sees changes nothing.
	EveryFrame bool

	options map[checks.Setting]any // rule options set by Option.Set
	base    *serverSettings        // the settings of a session no Server matches
}

// SetOption makes v the value of rule option s for runs of cfg
// (checks.Option.Set calls it).
func (cfg *Config) SetOption(s checks.Setting, v any) {
	if cfg.options == nil {
		cfg.options = map[checks.Setting]any{}
	}
	cfg.options[s] = v
}

// Limits bound what a run holds in memory; past them it writes to
// temporary files (spec §2.4). Reports read the same either way.
type Limits struct {
	// LiveBytes is roughly how many bytes of encoded findings the open
	// sessions of a run hold in memory before they write them to the
	// temporary file; 0 is DefaultLiveBytes, negative spills every one.
	LiveBytes int
	// ResultBytes is roughly how many bytes of session results a run holds
	// in memory before it spills the rest; 0 is DefaultResultBytes, negative
	// spills every session. Reading a result back costs microseconds a
	// finding; holding it costs its bytes twice over until the reports are
	// written (the collector's headroom), at the run's peak: the end of a
	// file, where all its sessions end at once.
	ResultBytes int
}

// The budgets of a run that sets none (Limits' zero fields).
const (
	DefaultLiveBytes   = 256 << 10
	DefaultResultBytes = 512 << 10
)

// SpillEverything are limits that keep nothing in memory: tests use them
// to see that reports read the same from the temporary files.
func SpillEverything() Limits { return Limits{LiveBytes: -1, ResultBytes: -1} }

// limit is n, its default def when 0, and 0 when negative.
func limit(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0
	}
	return n
}

// judgesTheRun are the rules that judge the whole run rather than one
// session: no session says they had nothing to judge.
var judgesTheRun = map[string]bool{flakyCallID: true, staleSuppressionID: true, expiredSuppressionID: true}

// Rule ids the engine reports itself.
const (
	internalErrorID      = "internal-error"
	missingFramesID      = "missing-frames"
	staleSuppressionID   = "stale-suppression"
	expiredSuppressionID = "expired-suppression"
)

// Run reads every input once, runs the rules and assertions, and returns the
// evaluated result. An error means nothing was checked (exit 2): an input
// could not be opened or read, or is not a capture.
func Run(inputs []readers.Source, cfg Config) (*result.Result, error) {
	if cfg.Catalogue == nil {
		cfg.Catalogue = checks.All()
	}
	cfg.options = maps.Clone(cfg.options) // the run's own: it may add the memory store
	if s, _ := cfg.options[checks.BaselineStore].(*baseline.Store); s == nil {
		// Without a directory, sessions of a label compare with the first
		// of them in this run, and recording is not news.
		cfg.SetOption(checks.BaselineStore, baseline.NewMemory())
	}
	res := &result.Result{Gate: cfg.Gate, Rules: cfg.Catalogue}
	fr := &freezer{
		col:  newCollector(res, limit(cfg.Limits.ResultBytes, DefaultResultBytes)),
		byID: map[string]*checks.Rule{}, sup: newSuppressor(cfg.Suppressions),
		live:  liveSpill{budget: limit(cfg.Limits.LiveBytes, DefaultLiveBytes)},
		calls: callBudget{left: DefaultCallBytes},
		usage: cfg.usageCollector(), judged: map[string]int64{}, judgedBy: make([]int64, len(cfg.Rules)),
	}
	for _, r := range cfg.Catalogue {
		fr.byID[r.ID] = r
	}
	defer fr.live.close()
	for _, in := range inputs {
		fr.ordinals = map[string]int{} // sessions of each label so far in this file
		d := newDriver(&cfg, fr, in.Name)
		if err := readInput(in, cfg.InputFormat, cfg.Reading, d); err != nil {
			var nc *readers.NotCaptureError
			if cfg.SkipNotCapture != nil && d.sessions == 0 && errors.As(err, &nc) {
				cfg.SkipNotCapture(nc)
				continue
			}
			res.Close()
			return nil, err
		}
		res.Files = append(res.Files, in.Name)
	}
	for i, r := range cfg.Rules {
		fr.judged[r.ID] += fr.judgedBy[i] // every rule that ran has a count, zero included
	}
	finishUsage(fr.usage, fr.col, fr.sup, &cfg)
	if _, ran := fr.judged[flakyCallID]; ran {
		fr.judged[flakyCallID] = flakyJudged(res.Usage)
	}
	for _, id := range []string{staleSuppressionID, expiredSuppressionID} {
		if _, ran := fr.judged[id]; ran && fr.sup != nil {
			fr.judged[id] = int64(len(fr.sup.order)) // the entries, judged once the run is read
		}
	}
	res.Judged = fr.judged
	fr.sup.report(fr.col, &cfg)
	if err := errors.Join(fr.live.err, res.Err()); err != nil {
		res.Close()
		return nil, err
	}
	res.Passed = fr.col.failing == 0
	for _, a := range res.RunAssertions {
		res.Passed = res.Passed && a.Passed
	}
	if !res.Passed {
		res.ExitCode = 1
	}
	return res, nil
}

// freezer turns each session into its result as the session ends, in the
// order sessions were first seen: a file of many sessions keeps no rule
// state or unfrozen findings of the sessions it has finished.
type freezer struct {
	col      *collector
	byID     map[string]*checks.Rule
	sup      *suppressor
	ordinals map[string]int // sessions of each label so far in the file being read
	live     liveSpill      // findings of open sessions past the memory budget
	calls    callBudget     // what the open sessions may keep of their calls
	usage    *usage.Collector
	judged   map[string]int64 // by rule id: what it judged over the run
	// judgedBy counts the same by rule index while the run is read, a
	// slice where the map cost 61 string-keyed writes a session.
	judgedBy []int64
}

func readInput(in readers.Source, format readers.Format, o readers.Options, h session.Handler) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	return readers.ReadAs(in.Name, rc, h, format, o)
}

// revisionJudges is which rules judge frames of one revision.
type revisionJudges struct {
	rev    string
	judges []bool // by rule index
}

// driver is the session.Handler that feeds rules.
type driver struct {
	cfg      *Config
	fr       *freezer
	allRevs  []bool // per rule: it judges every revision
	ranged   bool   // some rule judges only some revisions
	rangedAt []int  // the rules that judge only some revisions
	// seers are, by message kind, the rules (by index, in order) whose
	// Frame looks at frames of that kind (checks.Rule.Sees).
	seers [session.Invalid + 1][]int
	// quietSeers are seers without the rules (checks.Prescanned) a frame's
	// prescan excuses from it (checks.Quiet); quiet says some may be.
	quietSeers [session.Invalid + 1][]int
	quiet      bool
	spareSlots []ruleSlots // of ended sessions, for the next (ruleSlots)

	factKeys []*facts.Key // the facts the rules declare, and what those require

	everyRevision []bool // true for every rule: what each judges when none is ranged
	revisions     [4]revisionJudges
	nextRevision  int // the entry of revisions to reuse next

	internalError *checks.Rule // nil when disabled
	missingFrames bool         // the rule is enabled

	runs     map[*session.Session]*sessionRun
	input    string // the capture being read
	sessions int    // sessions begun in this input

	catIndex []int // per rule: its index in cfg.Catalogue, -1 when it is not there

	prescan func(*session.Frame) session.Marks // the rules' per-frame work without session state; nil when none
}

func newDriver(cfg *Config, fr *freezer, input string) *driver {
	d := &driver{cfg: cfg, fr: fr, input: input, runs: map[*session.Session]*sessionRun{}}
	var declared []*facts.Key
	for _, r := range cfg.Rules {
		d.allRevs = append(d.allRevs, r.Revisions == checks.AllRevisions)
		d.ranged = d.ranged || r.Revisions != checks.AllRevisions
		if r.Revisions != checks.AllRevisions {
			d.rangedAt = append(d.rangedAt, len(d.allRevs)-1)
		}
		for k := range d.seers {
			if r.Sees.Has(session.Kind(k)) || cfg.EveryFrame {
				d.seers[k] = append(d.seers[k], len(d.allRevs)-1)
			}
		}
		for _, f := range r.Facts {
			declared = append(declared, f.Key())
		}
	}
	// Coverage reads every session's listings, whatever the rules read.
	declared = append(declared, facts.Catalogue.Key())
	d.factKeys = facts.Closure(declared)
	for _, r := range cfg.Rules {
		c := -1
		for j, q := range cfg.Catalogue {
			if q == r {
				c = j
			}
		}
		d.catIndex = append(d.catIndex, c)
	}
	d.internalError = checks.Lookup(cfg.Rules, internalErrorID)
	d.missingFrames = checks.Lookup(cfg.Rules, missingFramesID) != nil
	d.prescan = checks.Prescan(cfg.Rules)
	d.quiet = d.prescan != nil && !cfg.EveryFrame
	for k, seers := range d.seers {
		for _, i := range seers {
			if !checks.Prescanned(cfg.Rules[i]) {
				d.quietSeers[k] = append(d.quietSeers[k], i)
			}
		}
	}
	d.everyRevision = make([]bool, len(cfg.Rules))
	for i := range d.everyRevision {
		d.everyRevision[i] = true
	}
	return d
}

// run is the state of s, made on its first event.
func (d *driver) run(s *session.Session) *sessionRun {
	if sr := d.runs[s]; sr != nil {
		return sr
	}
	own := d.cfg.settingsFor(s.Label) // the label is known from the first frame on
	sr := &sessionRun{s: s, cfg: d.cfg, own: own, asserts: newAssertTracker(&own.assertions), internalErrorRule: d.internalError}
	if d.cfg.RecordCalls {
		sr.calls = newCallLog(&d.fr.calls)
	}
	sr.facts = facts.NewSet(s, d.factKeys)
	sr.seatRules(d.cfg.Rules, &d.spareSlots)
	sr.startFrom(0)
	d.runs[s] = sr
	if d.sessions == 0 {
		d.fr.usage.File(d.input) // an input counts among the run's captures once it has a session
	}
	d.sessions++
	return sr
}

func (d *driver) Frame(s *session.Session, f *session.Frame) {
	sr := d.run(s)
	if k, v := sr.facts.Frame(f); k != nil {
		sr.factFailed(k, v, f)
	}
	judges := d.everyRevision
	if d.ranged {
		judges = d.judgesRevision(f.Revision(s))
	}
	if f.IsProtocol() {
		sr.protocol++
		for _, i := range d.rangedAt {
			if !sr.dead[i] && judges[i] {
				sr.given[i]++
			}
		}
	}
	seers := d.seers[f.Msg.Kind]
	if m, ok := f.Marks(); ok && d.quiet && checks.Quiet(m) {
		seers = d.quietSeers[f.Msg.Kind]
	}
	d.frameFrom(sr, f, judges, seers, 0)
	sr.asserts.frame(f)
	sr.calls.frame(f)
	d.fr.usage.Frame(s, f)
	if len(sr.findings) > 0 {
		sr.seal(&d.fr.live)
	}
}

// frameFrom gives f to the rules of seers (those that look at its kind)
// from index k on. One deferred recover covers them all (not one per rule
// and frame, on the hot path): a rule that panics is retired for the
// session, and the rules after it still see the frame.
func (d *driver) frameFrom(sr *sessionRun, f *session.Frame, judges []bool, seers []int, k int) {
	defer func() {
		if v := recover(); v != nil {
			sr.retire(seers[k], f, v)
			d.frameFrom(sr, f, judges, seers, k+1)
		}
	}()
	for ; k < len(seers); k++ {
		if i := seers[k]; judges[i] {
			st := &sr.seats[i]
			st.checker.Frame(&st.pass, f)
		}
	}
}

// judgesRevision says, by rule index, which rules judge frames of revision
// rev. A capture has few revisions: the answers are kept for the last
// few asked, so that comparing revisions is not per rule and frame.
func (d *driver) judgesRevision(rev string) []bool {
	for i := range d.revisions {
		if c := &d.revisions[i]; c.judges != nil && c.rev == rev {
			return c.judges
		}
	}
	c := &d.revisions[d.nextRevision]
	d.nextRevision = (d.nextRevision + 1) % len(d.revisions)
	if c.judges == nil {
		c.judges = make([]bool, len(d.cfg.Rules))
	}
	c.rev = strings.Clone(rev) // rev may share the bytes of a frame the reader reuses
	for i, r := range d.cfg.Rules {
		c.judges[i] = r.Revisions.Includes(rev)
	}
	return c.judges
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
	sr.resolveBaseline()
	sr.endFrom(0)
	cat, _ := sr.facts.Get(facts.Catalogue.Key()).(*facts.CatalogueTracker)
	d.fr.usage.EndSession(s, cat)
	var unjudged []uint64
	for i, r := range d.cfg.Rules {
		n := sr.givenTo(i, d.allRevs[i])
		if r.CountsJudged {
			n = sr.judged[i]
		}
		d.fr.judgedBy[i] += n
		if c := d.catIndex[i]; n == 0 && c >= 0 && !judgesTheRun[r.ID] {
			if unjudged == nil {
				unjudged = make([]uint64, (len(d.cfg.Catalogue)+63)/64)
			}
			unjudged[c/64] |= 1 << (c % 64)
		}
	}
	delete(d.runs, s) // the session's rule state is no longer needed
	sr.unseat(&d.spareSlots)
	sr.facts = nil
	fr := d.fr
	ordinal := fr.ordinals[s.Label]
	fr.ordinals[s.Label]++
	out := sr.result(sr.loggedFindings(&fr.live), sr.own.gate, fr.byID, d.missingFrames && !sr.own.disabled[missingFramesID], fr.sup, ordinal)
	out.Unjudged = unjudged
	fr.sup.placed(out, fr.col.add(out))
}

// result freezes the session: gating, counts, order and fingerprints.
func (sr *sessionRun) result(findings []*result.Finding, g result.Gate, byID map[string]*checks.Rule, missingFrames bool, sup *suppressor, ordinal int) *result.SessionResult {
	s := sr.s
	folded := sr.foldedFindings()
	for _, f := range folded {
		sup.noteFolded(f.Rule)
	}
	if off := sr.own.disabled; len(off) > 0 { // the server's disabled rules
		findings = slices.DeleteFunc(findings, func(f *result.Finding) bool { return off[f.Rule] })
		folded = slices.DeleteFunc(folded, func(f *result.Finding) bool { return off[f.Rule] })
	}
	out := &result.SessionResult{
		ID: s.ID, Label: s.Label, Ordinal: ordinal, File: s.File, FirstLine: s.FirstLine,
		Revision: s.Revision, Transport: s.Transport,
		Frames: s.Frames, MissingFrames: s.MissingFrames,
		Findings:   append(findings, folded...),
		Assertions: sr.asserts.results(s.ID),
		Drift:      sr.drift,
		Calls:      sr.calls.result(),
	}
	sr.calls = nil
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
		k := [2]string{f.Rule, f.Subject}
		f.Fingerprint = fingerprint.Of(s.Label, ordinal, f.Rule, f.Subject, seen[k])
		seen[k]++
		// Suppression is decided per finding, before any folding.
		f.Suppressed = sup.decide(f, out)
		r := byID[f.Rule]
		f.Existing = sr.cfg.Existing[f.Fingerprint]
		f.Gated = f.Suppressed == nil && !f.Existing && r != nil && g.Selects(r)
	}
	if !missingFrames {
		out.MissingFrames = 0 // a disabled rule is neither reported nor counted
	}
	out.Recount()
	return out
}

// factFailed retires every rule that reads a fact whose tracker panicked:
// what they would judge is unknown.
func (sr *sessionRun) factFailed(k *facts.Key, v any, f *session.Frame) {
	var retired []string
	for i, r := range sr.cfg.Rules {
		for _, k2 := range facts.Closure(factKeys(r)) {
			if k2 == k && !sr.dead[i] {
				sr.stop(i)
				retired = append(retired, r.ID)
			}
		}
	}
	sr.internalError(f, "fact "+k.Name, "fact %s failed: %v; the findings of %s for this session are incomplete", k.Name, v, strings.Join(retired, ", "))
}

func factKeys(r *checks.Rule) []*facts.Key {
	keys := make([]*facts.Key, len(r.Facts))
	for i, f := range r.Facts {
		keys[i] = f.Key()
	}
	return keys
}

// ReleasesFrames: rules and facts keep no frame and copy the bytes they
// keep (the platform's rule), so the reader may reuse one frame for every
// envelope. The fixture harness's tiny-buffer run poisons the reused frame
// after each envelope and would show a rule or fact that kept it.
func (*driver) ReleasesFrames() {}

// Prescan does the rules' work on f that needs no session state; a
// two-goroutine read runs it on the reader's goroutine (session.Prescanner).
func (d *driver) Prescan(f *session.Frame) session.Marks {
	if d.prescan == nil {
		return 0
	}
	return d.prescan(f)
}
