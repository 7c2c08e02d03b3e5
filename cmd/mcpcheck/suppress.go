package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/internal/atomicfile"
	"github.com/mcpcheck/mcpcheck/internal/safefile"
	"github.com/mcpcheck/mcpcheck/internal/suggest"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/suppress"
)

// defaultSuppressions is the suppressions file check reads from the source
// root when it exists and --suppressions is not given.
const defaultSuppressions = ".mcpcheck-suppressions.json"

// loadSuppressions reads --suppressions FILE, or the default file in root
// (the source root SARIF paths are relative to) when it exists. A file that
// is missing when named, unreadable or invalid is a usage error naming the
// file and the entry. Entries expire against now.
func loadSuppressions(path string, given bool, root string, now time.Time) (*suppress.Suppressions, error) {
	name := path
	if !given {
		path = filepath.Join(root, defaultSuppressions)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		name = displayPath(path)
	} else if strings.TrimSpace(path) == "" {
		return nil, usagef("--suppressions is empty; name a suppressions file")
	}
	set, err := readSuppressions(path, name)
	if err != nil {
		return nil, usagef("--suppressions: %v", err)
	}
	if set == nil {
		return nil, usagef("--suppressions: %s does not exist; create it with 'mcpcheck suppress'", path)
	}
	set.Now = now
	return set, nil
}

// baselineRuleID is the rule that reports on the baseline directory itself.
const baselineRuleID = "baseline"

// scopedRulesExist refuses a scoped entry whose rule is no rule of the
// catalogue: it would accept nothing, silently.
func scopedRulesExist(set *suppress.Suppressions, rules []*checks.Rule) error {
	if set == nil {
		return nil
	}
	for _, e := range set.Entries {
		if e.Scoped() {
			if _, err := ruleByID(rules, fmt.Sprintf("--suppressions: %s:%d", set.File, e.Line), e.Rule); err != nil {
				return err
			}
		}
	}
	return nil
}

// readSuppressions parses the file at path, calling it name; nil when the
// file does not exist. Only a regular file of at most
// safefile.MaxSuppressions bytes is read (a committed link to /dev/zero or
// a named pipe is refused at once, naming what it is).
func readSuppressions(path, name string) (*suppress.Suppressions, error) {
	data, err := safefile.ReadFile(path, safefile.MaxSuppressions)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var se *safefile.Error
	if errors.As(err, &se) {
		return nil, fmt.Errorf("%s: %s", name, se.Problem)
	}
	if err != nil {
		return nil, err
	}
	return suppress.Parse(name, data)
}

// displayPath names a file relative to the working directory when it is
// inside it, as captures given relative are reported.
func displayPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

const suppressUsage = `mcpcheck suppress accepts findings: it adds (or updates) entries in a
suppressions file, which check reads.

Usage:
  mcpcheck suppress FINGERPRINT... --reason TEXT [--expires YYYY-MM-DD] [--file FILE] [--from CAPTURE]...
  mcpcheck suppress --all --from CAPTURE... [--rule RULE] [--label LABEL] --reason TEXT [--expires ...] [--file FILE]
  mcpcheck suppress --rule RULE [--label LABEL] --reason TEXT [--expires ...] [--file FILE]

The first form accepts findings by fingerprint (check --show-fingerprints, or
--verbose, shows them; so do --format json and SARIF). With --from, each must
name a finding of those captures, whose rule, label, subject and message fill
the entry.

--all accepts every finding the captures show now (of RULE, of LABEL, when
given), one entry per fingerprint: new findings still fail the gate.

--rule without --all or fingerprints adds one scoped entry: every finding of
RULE (in sessions of server LABEL), now and later.

Flags:
`

// suppressOptions are the parsed suppress flags.
type suppressOptions struct {
	reason, expires, file string
	rule, label           string
	from                  []string
	all, help             bool
}

func (c *command) runSuppress(args []string, stdin io.Reader, stdout io.Writer) (int, error) {
	var o suppressOptions
	fl := pflag.NewFlagSet("suppress", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.SortFlags = false
	fl.StringVar(&o.reason, "reason", "", "why the findings are accepted (required)")
	fl.StringVar(&o.expires, "expires", "", "the last day the entries hold, YYYY-MM-DD, UTC (default: never expire)")
	fl.StringVar(&o.file, "file", "", "the suppressions file (default "+defaultSuppressions+" in the source root)")
	fl.StringArrayVar(&o.from, "from", nil, "a capture whose findings the fingerprints must name (repeatable)")
	fl.BoolVar(&o.all, "all", false, "accept every finding of the --from captures (of --rule, of --label)")
	fl.StringVar(&o.rule, "rule", "", "with --all: only this rule's findings; alone: one entry for every finding of the rule")
	fl.StringVar(&o.label, "label", "", "with --all or --rule: only findings of sessions of this server label")
	configFile := fl.String("config", "", "the configuration file, whose suppressions: names the file (default: the discovered "+config.Names[0]+")")
	noConfig := fl.Bool("no-config", false, "read no configuration file")
	fl.BoolVarP(&o.help, "help", "h", false, "show this help")
	if err := fl.Parse(args); err != nil {
		return exitUsage, flagError("suppress", fl, err)
	}
	if o.help {
		fmt.Fprint(stdout, suppressUsage+fl.FlagUsages())
		return exitPassed, nil
	}
	fps, err := suppressArgs(&o, fl.Args(), c.now())
	if err != nil {
		return exitUsage, err
	}
	if o.rule != "" {
		r, err := ruleByID(c.catalogue(), "suppress: --rule", o.rule)
		if err != nil {
			return exitUsage, err
		}
		o.rule = r.ID
	}
	wd, _ := os.Getwd()
	file, err := loadConfig(fl, *configFile, *noConfig, wd, vocabulary(c.catalogue()))
	if err != nil {
		return exitUsage, configError(err)
	}
	if file != nil && file.Set["suppressions"] && !fl.Changed("file") {
		o.file = relToWork(file.Resolve(file.Suppressions)) // where check reads them
	}
	path, name := o.file, o.file
	if path == "" {
		root, err := sourceRoot(c.getenv, "", false, wd) // as check finds it
		if err != nil {
			return exitUsage, err
		}
		path = filepath.Join(root, defaultSuppressions)
		name = displayPath(path)
	}
	set, err := readSuppressions(path, name)
	if err != nil {
		return exitUsage, usagef("suppress: %v", err)
	}
	if set == nil {
		set = &suppress.Suppressions{File: name}
	}
	entries := make([]suppress.Suppression, len(fps))
	for i, fp := range fps {
		entries[i] = suppress.Suppression{Fingerprint: fp, Reason: o.reason, Expires: o.expires}
	}
	switch {
	case o.all:
		if entries, err = c.everyFinding(&o, stdin); err != nil {
			return exitUsage, err
		}
	case o.rule != "":
		entries = []suppress.Suppression{{Rule: o.rule, Label: o.label, Reason: o.reason, Expires: o.expires}}
	case len(o.from) > 0:
		if err := c.fillFromCaptures(entries, o.from, stdin); err != nil {
			return exitUsage, err
		}
	}
	// Read the file again under the update lock and write it before
	// unlocking, so that a concurrent suppress adding other entries loses
	// none (the read above only checked the file before a long --from).
	unlock, err := atomicfile.Lock(writeTarget(path))
	if err != nil {
		return exitUsage, usagef("suppress: %v", err)
	}
	defer unlock()
	if set, err = readSuppressions(path, name); err != nil {
		return exitUsage, usagef("suppress: %v", err)
	}
	if set == nil {
		set = &suppress.Suppressions{File: name}
	}
	added := 0
	for _, e := range entries {
		if set.Put(e) {
			added++
		}
	}
	if err := writeFileAtomic(path, set.Marshal()); err != nil {
		return exitUsage, usagef("suppress: %v", err)
	}
	fmt.Fprintf(stdout, "%s: %d added, %d updated, %d in all\n", name, added, len(entries)-added, len(set.Entries))
	return exitPassed, nil
}

// suppressArgs validates the reason, the expiry and the fingerprints, and
// returns the fingerprints normalised, each once, in order; an expiry
// already past now is refused.
func suppressArgs(o *suppressOptions, args []string, now time.Time) ([]string, error) {
	switch {
	case o.all && len(args) > 0:
		return nil, usagef("suppress: --all accepts every finding; give it no FINGERPRINT")
	case o.all && len(o.from) == 0:
		return nil, usagef("suppress: --all needs --from CAPTURE: the captures whose findings are accepted")
	case !o.all && o.rule != "" && (len(args) > 0 || len(o.from) > 0):
		return nil, usagef("suppress: --rule goes with --all --from CAPTURE, or alone for a scoped entry; not with fingerprints")
	case o.label != "" && o.rule == "" && !o.all:
		return nil, usagef("suppress: --label goes with --all or --rule")
	case !o.all && o.rule == "" && len(args) == 0:
		return nil, usagef("suppress needs FINGERPRINTs (check --show-fingerprints shows them), --all --from CAPTURE, or --rule RULE")
	}
	if strings.TrimSpace(o.reason) == "" {
		return nil, usagef("suppress: --reason is required: say why the findings are accepted")
	}
	if o.expires != "" {
		day, err := suppress.ParseExpiry(o.expires)
		if err != nil {
			return nil, usagef("suppress: --%v", err)
		}
		if (&suppress.Suppression{Expires: o.expires}).Expired(now) {
			return nil, usagef("suppress: --expires %s is already past (entries expire at the end of their day, UTC)", day.Format(time.DateOnly))
		}
	}
	var fps []string
	for _, a := range args {
		fp := strings.ToLower(strings.TrimSpace(a))
		if !result.ValidFingerprint(fp) {
			return nil, usagef("suppress: %q is not a fingerprint (32 hexadecimal digits, as --format json and SARIF show them)", a)
		}
		if !slices.Contains(fps, fp) {
			fps = append(fps, fp)
		}
	}
	return fps, nil
}

// checkCaptures checks the captures with every rule and no suppressions,
// against check's baselines read only (drift findings are findings to
// accept too, and accepting writes no baseline); the caller closes the
// result.
func (c *command) checkCaptures(captures []string, stdin io.Reader) (*result.Result, error) {
	sources, err := readers.Resolve(captures, stdin, c.getenv)
	if err != nil {
		return nil, err
	}
	rules := c.catalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		return nil, err
	}
	cfg := engine.Config{Rules: rules, Catalogue: rules, Gate: gate, Reading: c.reading, Limits: c.limits}
	wd, _ := os.Getwd()
	root, err := sourceRoot(c.getenv, "", false, wd)
	if err != nil {
		return nil, err
	}
	if dir, inUse, err := baselineDir("", false, root, wd); err != nil {
		return nil, err
	} else if inUse {
		checks.BaselineStore.Set(&cfg, c.newStore(dir, false)) // read only: accepting records nothing
	}
	return engine.Run(sources, cfg)
}

// everyFinding is an entry for every finding the --from captures show now,
// of --rule and --label when given, filled from the finding; none is an
// error, so that a slip does not pass for "nothing to accept". Findings of
// the baseline rule are left out unless --rule names it: they say what the
// baseline directory holds, not what the capture shows, and change as
// soon as a baseline is recorded.
func (c *command) everyFinding(o *suppressOptions, stdin io.Reader) ([]suppress.Suppression, error) {
	res, err := c.checkCaptures(o.from, stdin)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	var entries []suppress.Suppression
	seen := map[string]bool{}
	labels := map[string]bool{}
	for s := range res.AllSessions() {
		labels[s.Label] = true
		if o.label != "" && s.Label != o.label {
			continue
		}
		for _, f := range s.Findings {
			if (o.rule != "" && f.Rule != o.rule) || (o.rule == "" && f.Rule == baselineRuleID) || seen[f.Fingerprint] {
				continue
			}
			seen[f.Fingerprint] = true
			entries = append(entries, suppress.Suppression{Fingerprint: f.Fingerprint, Reason: o.reason, Expires: o.expires,
				Rule: f.Rule, Label: f.Label, Subject: f.Subject, Message: f.Message})
		}
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		what := "no finding"
		if o.rule != "" {
			what = "no " + o.rule + " finding"
		}
		if o.label != "" && !labels[o.label] {
			var known []string
			for l := range labels {
				known = append(known, l)
			}
			slices.Sort(known)
			return nil, usagef("suppress: no session of label %q in %s%s; its labels are %s", o.label, strings.Join(o.from, ", "), suggest.DidYouMean(o.label, known), strings.Join(known, ", "))
		}
		return nil, usagef("suppress: %s in %s: nothing to accept", what, strings.Join(o.from, ", "))
	}
	return entries, nil
}

// fillFromCaptures checks the captures and fills each entry from the
// finding its fingerprint names; a fingerprint that names none is an error.
func (c *command) fillFromCaptures(entries []suppress.Suppression, captures []string, stdin io.Reader) error {
	res, err := c.checkCaptures(captures, stdin)
	if err != nil {
		return err
	}
	defer res.Close()
	found := map[string]*result.Finding{}
	for i := range entries {
		found[entries[i].Fingerprint] = nil // only these are kept
	}
	for s := range res.AllSessions() {
		for _, f := range s.Findings {
			if g, wanted := found[f.Fingerprint]; wanted && g == nil {
				found[f.Fingerprint] = f
			}
		}
	}
	for i := range entries {
		e := &entries[i]
		f := found[e.Fingerprint]
		if f == nil {
			return usagef("suppress: fingerprint %s names no finding of %s; 'mcpcheck --format json' shows their fingerprints",
				e.Fingerprint, strings.Join(captures, ", "))
		}
		e.Rule, e.Label, e.Subject, e.Message = f.Rule, f.Label, f.Subject, f.Message
	}
	return nil
}

// writeTarget is the file a write to path replaces: path with links
// resolved, including a link to a file not yet written.
func writeTarget(path string) string {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		return resolved
	}
	if dest, err := os.Readlink(path); err == nil { // a link to a file not yet written
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		return dest
	}
	return path
}

// writeFileAtomic replaces path with data through a temporary file beside
// it, renamed into place, so that a reader (or a crash) never sees half a
// file. A link is followed, so the file it points to is replaced and the
// link stays; the file keeps its mode (a new one is 0644).
func writeFileAtomic(path string, data []byte) error {
	target := writeTarget(path)
	mode := os.FileMode(0o644)
	if info, err := os.Stat(target); err == nil {
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		mode = info.Mode().Perm()
	}
	return atomicfile.Write(target, data, mode)
}
