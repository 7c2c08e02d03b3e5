package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/result"
)

// defaultBaselineRel is where baselines live by default: under the source
// root, checked in with the code (spec §6). No directory in the user's
// home or state directories is read or written unless named.
const defaultBaselineRel = ".mcpcheck/baselines"

// baselineDir is the baseline directory of a run: dir when given (by
// flag or configuration), else the default under the source root. inUse
// says whether drift is checked: the directory was named, or exists.
func baselineDir(dir string, given bool, root, wd string) (path string, inUse bool, err error) {
	if given {
		if strings.TrimSpace(dir) == "" {
			// An unset CI variable must not silently move the baselines.
			return "", false, usagef("--baseline is empty; name the baseline directory")
		}
		return dir, true, nil
	}
	path = filepath.Join(root, filepath.FromSlash(defaultBaselineRel))
	if rel, err := filepath.Rel(wd, path); err == nil {
		path = rel // reports name it relative to where the user is, never by a home path
	}
	info, err := os.Stat(path)
	return path, err == nil && info.IsDir(), nil
}

// newStore makes the baseline store of dir: recording only when asked
// (check --record-baseline), reading only otherwise.
func (c *command) newStore(dir string, record bool) *baseline.Store {
	var s *baseline.Store
	if record {
		s = baseline.NewStore(dir)
	} else {
		s = baseline.NewReadOnly(dir)
	}
	s.Now = c.now
	if insideMcpsnoopState(c.getenv, dir) {
		s.SetForeign(dir + " is inside the mcpsnoop state directory " + readers.StateDir(c.getenv))
	}
	return s
}

// driftPlan is how a check treats drift: against a baseline directory, or
// not at all (and the report says so once).
type driftPlan struct {
	inUse   bool // drift joins the default gate
	store   *baseline.Store
	notes   []string
	record  bool
	missing string // the default directory that does not exist
}

// checkBaseline decides the drift plan of a check.
func (c *command) checkBaseline(o *checkOptions, root, wd string) (*driftPlan, error) {
	dir, inUse, err := baselineDir(o.baselineDir, o.baselineSet, root, wd)
	if err != nil {
		return nil, err
	}
	// Drift gates when the directory is named or kept; recording into a
	// default directory that does not exist yet only starts it.
	p := &driftPlan{inUse: inUse, record: o.recordBaseline}
	if inUse || o.recordBaseline {
		p.store = c.newStore(dir, o.recordBaseline)
		return p, nil
	}
	p.missing = dir
	return p, nil
}

// apply sets the store, or, without a directory, leaves the drift rules
// out of the run: comparing sessions of one run with each other would make
// the result depend on the order the captures are named in.
func (p *driftPlan) apply(cfg *engine.Config, o *checkOptions) error {
	if p.store != nil {
		checks.BaselineStore.Set(cfg, p.store)
		return nil
	}
	for _, id := range cfg.Gate.RuleIDs() {
		if r := checks.Lookup(cfg.Rules, id); r != nil && checks.ReadsBaseline(r) {
			return usagef("--fail-on names %s, but drift is not checked without a baseline directory: record one with mcpcheck baseline --accept --reason TEXT CAPTURE, or pass --baseline DIR", id)
		}
	}
	if slices.ContainsFunc(cfg.Rules, checks.ReadsBaseline) { // not when both drift rules are disabled
		p.notes = append(p.notes, fmt.Sprintf("drift not checked: no baseline directory (%s does not exist); record one with mcpcheck baseline --accept --reason TEXT CAPTURE, or pass --baseline DIR", p.missing))
	}
	cfg.Rules = slices.DeleteFunc(slices.Clone(cfg.Rules), checks.ReadsBaseline)
	return nil
}

// insideMcpsnoopState reports whether dir is (in) the mcpsnoop proxy's
// state directory, which mcpcheck reads baselines from but never writes.
func insideMcpsnoopState(getenv func(string) string, dir string) bool {
	if getenv("MCPSNOOP_HOME") == "" && getenv("XDG_STATE_HOME") == "" && getenv("HOME") == "" {
		return false
	}
	abs := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		a, _ := filepath.Abs(p)
		return a
	}
	rel, err := filepath.Rel(abs(readers.StateDir(getenv)), abs(dir))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

const baselineUsage = `Usage:
  mcpcheck baseline [--baseline DIR] CAPTURE                  show drift (exit 1 if any)
  mcpcheck baseline [--baseline DIR] --accept --reason TEXT CAPTURE
                                                            make the capture's tools the baseline
  mcpcheck baseline [--baseline DIR] --reset CAPTURE          delete the baseline of the capture's servers

The directory is --baseline DIR, else the configuration file's baseline:, else
.mcpcheck/baselines under the source root (check it in). With no CAPTURE, the
configuration file's captures:.

Flags:
`

// runBaseline is `mcpcheck baseline`: show the drift of every session of
// the captures against their baselines, accept the current definitions, or
// reset them.
func (c *command) runBaseline(args []string, stdin io.Reader, stdout io.Writer) (int, error) {
	fs := pflag.NewFlagSet("baseline", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	dir := fs.String("baseline", "", "tool-baseline directory (default "+defaultBaselineRel+" under the source root)")
	accept := fs.Bool("accept", false, "make the captured tool definitions the baseline (needs --reason)")
	reason := fs.String("reason", "", "why the definitions are accepted; recorded in the baseline")
	reset := fs.Bool("reset", false, "delete the baseline of every server label in the captures")
	configFile := fs.String("config", "", "the configuration file, whose baseline: and captures: apply (default: the discovered "+config.Names[0]+")")
	noConfig := fs.Bool("no-config", false, "read no configuration file")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return exitUsage, flagError("baseline", fs, err)
	}
	if *help {
		fmt.Fprint(stdout, baselineUsage+fs.FlagUsages())
		return exitPassed, nil
	}
	switch {
	case *accept && *reset:
		return exitUsage, usagef("baseline: --accept and --reset cannot be combined")
	case *accept && strings.TrimSpace(*reason) == "":
		return exitUsage, usagef("baseline: --accept needs --reason TEXT saying why the new definitions are trusted")
	case !*accept && fs.Changed("reason"):
		return exitUsage, usagef("baseline: --reason goes with --accept")
	}
	wd, _ := os.Getwd()
	file, err := loadConfig(fs, *configFile, *noConfig, wd, vocabulary(c.catalogue()))
	if err != nil {
		return exitUsage, configError(err)
	}
	dirGiven := fs.Changed("baseline")
	if file != nil && file.Set["baseline"] && !dirGiven {
		*dir, dirGiven = relToWork(file.Resolve(file.Baseline)), true // the directory check reads
	}
	srcRoot, rootGiven := "", false
	if file != nil && file.Set["source-root"] {
		srcRoot, rootGiven = relToWork(file.Resolve(file.SourceRoot)), true
	}
	root, err := sourceRoot(c.getenv, srcRoot, rootGiven, wd)
	if err != nil {
		return exitUsage, err
	}
	path, _, err := baselineDir(*dir, dirGiven, root, wd)
	if err != nil {
		return exitUsage, err
	}
	store := c.newStore(path, false)
	if *accept || *reset {
		if why := store.Foreign(); why != "" {
			return exitUsage, usagef("baseline: %s; mcpcheck reads it but never writes there: pass --baseline with a directory of its own", why)
		}
	}
	captures := fs.Args()
	if len(captures) == 0 && file != nil && len(file.Captures) > 0 {
		if captures, err = configCaptures(file); err != nil {
			return exitUsage, err
		}
	}
	sources, err := readers.Resolve(captures, stdin, c.getenv)
	if err != nil {
		return exitUsage, err
	}
	rules := c.catalogue()
	var run []*checks.Rule
	for _, id := range []string{"internal-error", "tool-drift", "baseline"} {
		if r := checks.Lookup(rules, id); r != nil {
			run = append(run, r)
		}
	}
	gate, err := result.ParseGate("drift,internal-error", rules)
	if err != nil {
		return exitUsage, err
	}
	cfg := engine.Config{Rules: run, Catalogue: rules, Gate: gate, Reading: c.reading, Limits: c.limits}
	checks.BaselineStore.Set(&cfg, store)
	res, err := engine.Run(sources, cfg)
	if err != nil {
		return exitUsage, err
	}
	defer res.Close()
	var out bytes.Buffer // nothing reaches stdout unless every step worked
	switch {
	case *reset:
		err = resetBaselines(&out, store, res)
	case *accept:
		err = acceptBaselines(&out, store, res, strings.TrimSpace(*reason))
	default:
		color, _ := useColor(c.getenv, "auto", stdout)
		text, _ := report.Lookup("text")
		err = text(report.Options{Color: color}).Report(&out, res)
	}
	if err != nil {
		return exitUsage, err
	}
	if _, err := stdout.Write(out.Bytes()); err != nil {
		return exitUsage, err
	}
	if *reset || *accept {
		return exitPassed, nil
	}
	return res.ExitCode, nil
}

// acceptBaselines writes, for every label the captures listed tools of, the
// last listing seen as its baseline.
func acceptBaselines(w io.Writer, store *baseline.Store, res *result.Result, reason string) error {
	labels := store.Labels()
	for s := range res.AllSessions() {
		if s.Drift != nil && s.Label == "" {
			fmt.Fprintf(w, "session %s has no server label: its tools were not accepted\n", s.ID)
		}
	}
	if len(labels) == 0 {
		return usagef("baseline --accept: no session of the captures has a server label and a complete tools/list; nothing to accept")
	}
	if store.PastCap() > 0 {
		return usagef("baseline --accept: the captures name more than %d servers, the most one run keeps; nothing was accepted: accept them in smaller runs", baseline.MaxLabels)
	}
	for _, label := range labels {
		a, err := store.Accept(label, reason)
		if err != nil {
			return fmt.Errorf("baseline --accept: server %q: %w", label, err)
		}
		fmt.Fprintf(w, "accepted the baseline of server %q: %d %s from session %s of %s (%s)\n",
			label, a.Tools, plural(a.Tools, "tool", "tools"), a.From.Session, a.From.File, a.Path)
		if a.Previous != nil {
			b, r, i := (&baseline.Report{Changes: a.Changes}).Tiers()
			fmt.Fprintf(w, "  replacing the %s: %d %s (breaking %d, review %d, info %d)\n",
				a.Previous.Describe(), len(a.Changes), plural(len(a.Changes), "tool changed", "tools changed"), b, r, i)
		}
	}
	return nil
}

// resetBaselines deletes the baseline of every label in the captures.
func resetBaselines(w io.Writer, store *baseline.Store, res *result.Result) error {
	seen := map[string]bool{}
	for s := range res.AllSessions() {
		if s.Label == "" || seen[s.Label] {
			continue
		}
		seen[s.Label] = true
		removed, err := store.Reset(s.Label)
		switch {
		case err != nil:
			return fmt.Errorf("baseline --reset: server %q: %w", s.Label, err)
		case removed:
			fmt.Fprintf(w, "removed the baseline of server %q (%s)\n", s.Label, store.Path(s.Label))
		default:
			fmt.Fprintf(w, "server %q has no baseline in %s\n", s.Label, store.Dir())
		}
	}
	if len(seen) == 0 {
		return usagef("baseline --reset: no session of the captures has a server label; nothing to reset")
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
