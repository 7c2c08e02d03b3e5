package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/result"
)

// defaultBaselineDir is --baseline's default (spec §1.1):
// $MCPCHECK_HOME/baselines, else $XDG_STATE_HOME/mcpcheck/baselines, else
// ~/.local/state/mcpcheck/baselines; "" when none of them is set. Never
// the mcpsnoop state directory, whose files have another format.
func defaultBaselineDir(getenv func(string) string) string {
	if d := getenv("MCPCHECK_HOME"); d != "" {
		return filepath.Join(d, "baselines")
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "mcpcheck", "baselines")
	}
	if d := getenv("HOME"); d != "" {
		return filepath.Join(d, ".local", "state", "mcpcheck", "baselines")
	}
	return ""
}

// baselineStore makes the store of a run from the --baseline flag (given:
// set is true). check records first-seen baselines; the baseline command
// reads only (accept and reset write through the store afterwards).
func (c *command) baselineStore(dir string, set, readOnly bool) (*baseline.Store, error) {
	if set && strings.TrimSpace(dir) == "" {
		// An unset CI variable must not silently move the baselines.
		return nil, usagef("--baseline is empty; name the baseline directory")
	}
	if !set {
		dir = defaultBaselineDir(c.getenv)
	}
	var s *baseline.Store
	if readOnly {
		s = baseline.NewReadOnly(dir)
	} else {
		s = baseline.NewStore(dir)
	}
	s.Now = c.now
	if dir != "" && insideMcpsnoopState(c.getenv, dir) {
		s.SetForeign(dir + " is inside the mcpsnoop state directory " + readers.StateDir(c.getenv))
	}
	return s, nil
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

Flags:
`

// runBaseline is `mcpcheck baseline`: show the drift of every session of
// the captures against their baselines, accept the current definitions, or
// reset them.
func (c *command) runBaseline(args []string, stdin io.Reader, stdout io.Writer) (int, error) {
	fs := pflag.NewFlagSet("baseline", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	dir := fs.String("baseline", "", "tool-baseline directory (default $MCPCHECK_HOME/baselines, else $XDG_STATE_HOME/mcpcheck/baselines, else ~/.local/state/mcpcheck/baselines)")
	accept := fs.Bool("accept", false, "make the captured tool definitions the baseline (needs --reason)")
	reason := fs.String("reason", "", "why the definitions are accepted; recorded in the baseline")
	reset := fs.Bool("reset", false, "delete the baseline of every server label in the captures")
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
	store, err := c.baselineStore(*dir, fs.Changed("baseline"), true)
	if err != nil {
		return exitUsage, err
	}
	if store.Dir() == "" {
		return exitUsage, usagef("baseline: no baseline directory: pass --baseline DIR (or set $MCPCHECK_HOME, $XDG_STATE_HOME or $HOME)")
	}
	if *accept || *reset {
		if why := store.Foreign(); why != "" {
			return exitUsage, usagef("baseline: %s; mcpcheck reads it but never writes there: pass --baseline with a directory of its own", why)
		}
	}
	sources, err := readers.Resolve(fs.Args(), stdin, c.getenv)
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
