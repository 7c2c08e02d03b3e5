package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/internal/atomicfile"
	"github.com/mcpcheck/mcpcheck/internal/safefile"
	"github.com/mcpcheck/mcpcheck/internal/suggest"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
)

// Exit codes, identical for every format.
const (
	exitPassed = 0 // checked, nothing gated found, every assertion held
	exitFailed = 1 // checked, something failed the gate
	exitUsage  = 2 // nothing was checked
)

// usageError is a problem with the invocation: exit 2, one line on stderr.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// command is what a run of mcpcheck takes from outside its arguments and
// standard streams: the environment, the clock, the rule catalogue, and
// how captures are read and checked. main runs production's
// (defaultCommand); tests run their own, side by side.
type command struct {
	getenv    func(string) string   // the process environment
	now       func() time.Time      // what suppressions expire against and baselines are dated by
	catalogue func() []*checks.Rule // the rules
	reading   readers.Options       // how captures are read; the zero value is production's
	limits    engine.Limits         // the engine's memory budgets; the zero value is production's
}

// defaultCommand is production's command: the process environment, the
// clock, every rule and the default limits.
func defaultCommand() *command {
	return &command{getenv: os.Getenv, now: time.Now, catalogue: checks.All}
}

// run is the whole command as production runs it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return defaultCommand().run(args, stdin, stdout, stderr)
}

// run is the whole command: it returns the exit code and writes nothing to
// stdout unless the check ran.
func (c *command) run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd, rest := "check", args
	if len(args) > 0 && slices.Contains(commands, args[0]) {
		cmd, rest = args[0], args[1:]
	}
	var code int
	var err error
	switch cmd {
	case "check":
		code, err = c.runCheck(rest, stdin, stdout, stderr)
		if cmd != args0(args) {
			err = misspeltCommand(args, err)
		}
	case "rules":
		code, err = c.runRules(rest, stdout)
	case "explain":
		code, err = c.runExplain(rest, stdout)
	case "suppress":
		code, err = c.runSuppress(rest, stdin, stdout)
	case "config":
		code, err = c.runConfig(rest, stdout)
	case "version":
		code, err = c.runVersion(rest, stdout)
	case "help":
		code, err = c.runHelp(rest, stdin, stdout, stderr)
	case "baseline":
		code, err = c.runBaseline(rest, stdin, stdout)
	case "stats":
		code, err = c.runStats(rest, stdin, stdout)
	case "diff":
		code, err = c.runDiff(rest, stdin, stdout)
	}
	if err != nil {
		if _, ok := err.(configProblems); ok { // one problem a line, each FILE:LINE:COL
			fmt.Fprintf(stderr, "mcpcheck: %s\n", strings.ReplaceAll(err.Error(), "\n", "\nmcpcheck: "))
			return exitUsage
		}
		fmt.Fprintf(stderr, "mcpcheck: %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return exitUsage
	}
	return code
}

const usageText = `mcpcheck gates CI on captured MCP sessions.

Usage:
  mcpcheck [check] [flags] [CAPTURE ...]   check captures (the default command)
  mcpcheck baseline [--baseline DIR] [--accept --reason TEXT | --reset] CAPTURE
  mcpcheck rules [--format text|json|markdown]
  mcpcheck explain RULE
  mcpcheck suppress FINGERPRINT... --reason TEXT [--expires YYYY-MM-DD] [--file FILE] [--from CAPTURE]...
  mcpcheck suppress --all --from CAPTURE... [--rule RULE] [--label LABEL] --reason TEXT
  mcpcheck suppress --rule RULE [--label LABEL] --reason TEXT
  mcpcheck stats [--format text|json|markdown] CAPTURE...
  mcpcheck diff [--format text|json|markdown] [--duration-ratio R] BASE HEAD
  mcpcheck config verify [FILE] | init CAPTURE... | schema
  mcpcheck version
  mcpcheck help [COMMAND]

CAPTURE is a file (.gz is decompressed), a directory (its capture files), - for
standard input, or an mcpsnoop session id; with none, the captures: of the
configuration file (.mcpcheck.yml), else the newest mcpsnoop session.

Exit codes: 0 passed, 1 findings failed the gate, 2 nothing was checked.

Text shows each finding's severity (error, warning, note) and marks with ✗
those that fail the gate; the others are folded per rule and session
(--verbose lists every finding with its fingerprint).

Run 'mcpcheck help COMMAND' (or COMMAND --help) for a command's flags.

Check flags:
`

// checkOptions are the parsed check flags.
type checkOptions struct {
	failOn             string
	format             string
	outputs            []string
	disable            []string
	expectTools        []string
	forbidTools        []string
	maxDuration        string
	toolMaxDuration    map[string]time.Duration // from the configuration file only
	maxServerDuration  string
	maxRoundTrips      int
	roundTripsSet      bool // --max-round-trips was given (0 is then an error, not "unset")
	suppressions       string
	sourceRoot         string
	stdinName          string
	category           string
	quiet              bool
	verbose            bool
	showFingerprints   bool
	color              string
	progress           string
	baselineDir        string
	recordBaseline     bool
	inputFormat        string
	minToolCoverage    float64
	minToolCoverageSet bool
	newFrom            string
	configFile         string
	noConfig           bool
	skipUnrecognised   bool
	sarifGatedOnly     bool
	help               bool

	// what was given, by a flag or the configuration file
	failOnSet, categorySet, baselineSet, suppressionsSet, sourceRootSet bool
}

func checkFlags(o *checkOptions) *pflag.FlagSet {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.StringVar(&o.failOn, "fail-on", checks.DefaultGate, "signals and rule ids that fail the gate, comma-separated; all or none")
	fs.StringVar(&o.format, "format", "text", "format on stdout: "+strings.Join(report.Formats(), ", "))
	fs.StringArrayVar(&o.outputs, "output", nil, "also write FMT=PATH (repeatable)")
	fs.StringArrayVar(&o.disable, "disable", nil, "turn a rule off (repeatable)")
	fs.StringArrayVar(&o.expectTools, "expect-tool", nil, "fail if no tools/call of NAME exists (repeatable)")
	fs.StringArrayVar(&o.forbidTools, "forbid-tool", nil, "fail if a tools/call of NAME exists (repeatable)")
	fs.StringVar(&o.maxDuration, "max-duration", "", "fail if a tool call took longer than D (Go duration)")
	fs.StringVar(&o.maxServerDuration, "max-server-duration", "", "the same, counting only the server's time")
	fs.IntVar(&o.maxRoundTrips, "max-round-trips", 0, "fail if one operation used more than N requests")
	fs.StringVar(&o.suppressions, "suppressions", "", "accepted findings (default "+defaultSuppressions+" in the source root, when it exists)")
	fs.StringVar(&o.sourceRoot, "source-root", "", "SARIF and annotation paths are relative to DIR (default $GITHUB_WORKSPACE, else the git work tree's top, else the working directory)")
	fs.StringVar(&o.stdinName, "stdin-name", "", "the path standard input is named by in reports (SARIF default: stdin)")
	fs.StringVar(&o.category, "category", "", "code-scanning category: SARIF automationDetails.id becomes mcpcheck/CATEGORY/")
	fs.BoolVar(&o.quiet, "quiet", false, "text: print only failing findings and the verdict")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "text: list every finding (the ones not failing the gate are folded by default), with its fingerprint, and every count")
	fs.BoolVar(&o.showFingerprints, "show-fingerprints", false, "text: show each finding's fingerprint, for 'mcpcheck suppress'")
	fs.StringVar(&o.color, "color", "auto", "text colouring: auto, always, never")
	fs.StringVar(&o.progress, "progress", "auto", "a progress line on stderr: auto (when stderr is a terminal, not under CI), always, never")
	fs.StringVar(&o.inputFormat, "input-format", "", "read every capture as this format instead of detecting it: "+strings.Join(formatNames(), ", "))
	fs.StringVar(&o.baselineDir, "baseline", "", "tool-baseline directory (default "+defaultBaselineRel+" under the source root, used when it exists); naming one puts drift in the default gate")
	fs.BoolVar(&o.recordBaseline, "record-baseline", false, "record a baseline for a server that has none (trust on first use); without it check writes nothing")
	fs.StringVar(&o.configFile, "config", "", "the configuration file (default: "+config.Names[0]+" in the working directory or above, up to the repository's top)")
	fs.BoolVar(&o.noConfig, "no-config", false, "read no configuration file")
	fs.Float64Var(&o.minToolCoverage, "min-tool-coverage", 0, "fail a server whose successfully called tools are under PCT% of those it advertised")
	fs.StringVar(&o.newFrom, "new-from", "", "a JSON report of an earlier run: findings it holds are existing and do not fail the gate")
	fs.BoolVar(&o.sarifGatedOnly, "sarif-gated-only", false, "SARIF lists only the findings that fail the gate (and suppressed ones): notes do not become code-scanning alerts")
	fs.BoolVar(&o.skipUnrecognised, "skip-unrecognised", false, "skip, with a note, inputs that are not a capture of any format instead of failing (a run that skips every input checked nothing and passes)")
	fs.BoolVarP(&o.help, "help", "h", false, "show this help")
	return fs
}

// output is one rendering the run must produce.
type output struct {
	format string
	path   string           // as given; "" for stdout
	target string           // the file that receives the report: path with links resolved
	tmp    *atomicfile.File // where the report is written before it is renamed to target
	device bool             // target is not a regular file (/dev/stdout, a pipe): written in place
	rep    report.Reporter
}

func (c *command) runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	var o checkOptions
	fs := checkFlags(&o)
	if err := fs.Parse(args); err != nil {
		return exitUsage, flagError("check", fs, err)
	}
	if o.help {
		fmt.Fprint(stdout, usageText+fs.FlagUsages())
		return exitPassed, nil
	}
	o.roundTripsSet = fs.Changed("max-round-trips")
	if o.quiet && o.verbose {
		return exitUsage, usagef("--quiet and --verbose ask for less and for more; give one")
	}
	o.failOnSet, o.categorySet, o.baselineSet = fs.Changed("fail-on"), fs.Changed("category"), fs.Changed("baseline")
	o.suppressionsSet, o.sourceRootSet = fs.Changed("suppressions"), fs.Changed("source-root")
	rules := c.catalogue()
	if err := checks.Validate(rules); err != nil {
		return exitUsage, err
	}
	wd, _ := os.Getwd()
	file, err := loadConfig(fs, o.configFile, o.noConfig, wd, vocabulary(rules))
	if err != nil {
		return exitUsage, configError(err)
	}
	o.minToolCoverageSet = fs.Changed("min-tool-coverage")
	applyConfig(&o, fs, file)
	minCoverage, err := coverageFlag(o.minToolCoverage, o.minToolCoverageSet)
	if err != nil {
		return exitUsage, err
	}
	root, err := sourceRoot(c.getenv, o.sourceRoot, o.sourceRootSet, wd)
	if err != nil {
		return exitUsage, err
	}
	drift, err := c.checkBaseline(&o, root, wd)
	if err != nil {
		return exitUsage, err
	}
	if drift.inUse && !o.failOnSet {
		o.failOn = checks.DefaultGate + ",drift" // a baseline is kept to be held to
	}
	cfg, err := c.checkConfig(&o, rules)
	if err != nil {
		return exitUsage, err
	}
	if err := drift.apply(&cfg, &o); err != nil {
		return exitUsage, err
	}
	if err := applyServers(&cfg, file, rules); err != nil {
		return exitUsage, err
	}
	if err := applyRuleOptions(&cfg, file, rules); err != nil {
		return exitUsage, err
	}
	cfg.Coverage.MinTools = minCoverage
	if o.newFrom != "" {
		if cfg.Existing, err = loadNewFrom(o.newFrom); err != nil {
			return exitUsage, err
		}
	}
	color, err := useColor(c.getenv, o.color, stdout)
	if err != nil {
		return exitUsage, err
	}
	category, err := checkCategory(o.category, o.categorySet)
	if err != nil {
		return exitUsage, err
	}
	if fs.Changed("stdin-name") && strings.TrimSpace(o.stdinName) == "" {
		return exitUsage, usagef("--stdin-name is empty; name the path the capture on standard input stands for")
	}
	if cfg.Suppressions, err = loadSuppressions(o.suppressions, o.suppressionsSet, root, c.now()); err != nil {
		return exitUsage, err
	}
	if err := scopedRulesExist(cfg.Suppressions, rules); err != nil {
		return exitUsage, err
	}
	ropts := report.Options{
		Quiet: o.quiet, Verbose: o.verbose, ShowFingerprints: o.showFingerprints, Color: color, WorkDir: wd, SourceRoot: root, Category: category, SARIFGatedOnly: o.sarifGatedOnly,
		Version: mcpcheckVersion(), SemanticVersion: buildSemver(), StepSummary: c.getenv("GITHUB_STEP_SUMMARY"),
	}
	if file != nil {
		ropts.ConfigFile = file.Path
	}
	outs, err := plannedOutputs(&o, ropts)
	defer discard(outs) // whatever was not renamed into place
	if err != nil {
		return exitUsage, err
	}
	for _, out := range outs {
		cfg.RecordCalls = cfg.RecordCalls || report.DrawsCalls(out.rep)
	}
	if err := stepSummaryWritable(outs[0].format, ropts.StepSummary); err != nil {
		return exitUsage, err
	}
	prog, err := newProgress(c.getenv, o.progress, stderr)
	if err != nil {
		return exitUsage, err
	}
	note := func(msg string) { fmt.Fprintf(stderr, "mcpcheck: note: %s\n", msg) }
	args = fs.Args()
	if len(args) == 0 && file != nil && len(file.Captures) > 0 {
		if args, err = configCaptures(file); err != nil {
			return exitUsage, err
		}
	}
	sources, err := readers.ResolveNoting(args, stdin, c.getenv, cfg.InputFormat, note)
	if err != nil {
		return exitUsage, err
	}
	sortSources(sources)
	if err := outputsAreNotInputs(outs, sources); err != nil {
		return exitUsage, err
	}
	if prog != nil {
		prog.wrap(sources)
		cfg.Found = &prog.found
		prog.begin()
	}
	for i := range sources {
		if sources[i].Name == session.StdinName && o.stdinName != "" {
			sources[i].Name = o.stdinName // every report names it so
		}
	}
	skipped := 0
	if o.skipUnrecognised {
		cfg.SkipNotCapture = func(err *readers.NotCaptureError) {
			skipped++
			note("skipped " + err.Error())
		}
	}
	res, err := engine.Run(sources, cfg)
	if err == nil {
		res.Notes = append(res.Notes, drift.notes...)
	}
	if prog != nil {
		prog.end() // before the report, which may go to the same terminal
	}
	if err != nil {
		return exitUsage, err
	}
	defer res.Close()
	res.NewFrom = o.newFrom
	if skipped > 0 && len(res.Files) == 0 {
		// Asked for: files that are not captures do not count, so a
		// commit of none is not a failed check.
		fmt.Fprintf(stderr, "mcpcheck: none of the %d %s is a capture; nothing to check\n", skipped, plural(skipped, "input", "inputs"))
		return exitPassed, nil
	}
	if err := writeOutputs(outs, res, stdout); err != nil {
		return exitUsage, err
	}
	return res.ExitCode, nil
}

func (c *command) checkConfig(o *checkOptions, catalogue []*checks.Rule) (engine.Config, error) {
	gate, err := result.ParseGate(o.failOn, catalogue)
	if err != nil {
		return engine.Config{}, usageError{err.Error()}
	}
	disabled := map[string]bool{}
	for _, id := range o.disable {
		for _, id := range strings.Split(id, ",") {
			r, err := ruleByID(catalogue, "--disable", id)
			if err != nil {
				return engine.Config{}, err
			}
			disabled[r.ID] = true
		}
	}
	for _, id := range gate.RuleIDs() {
		if disabled[id] {
			// a rule gated by name but never run would pass the gate unseen
			return engine.Config{}, usagef("--fail-on names rule %q, which --disable turns off; drop it from one of the two (a signal that covers it may stay in --fail-on)", id)
		}
	}
	var rules []*checks.Rule
	for _, r := range catalogue {
		if !disabled[r.ID] {
			rules = append(rules, r)
		}
	}
	var input readers.Format
	if name := strings.TrimSpace(o.inputFormat); name != "" {
		if input = readers.Lookup(name); input == nil {
			return engine.Config{}, usagef("--input-format: unknown format %q%s; valid: %s", o.inputFormat, suggest.DidYouMean(name, formatNames()), strings.Join(formatNames(), ", "))
		}
	}
	a := engine.Assertions{ExpectTools: o.expectTools, ForbidTools: o.forbidTools, ToolMaxDuration: o.toolMaxDuration}
	if a.MaxDuration, err = parseBudget("--max-duration", o.maxDuration); err != nil {
		return engine.Config{}, err
	}
	if a.MaxServerDuration, err = parseBudget("--max-server-duration", o.maxServerDuration); err != nil {
		return engine.Config{}, err
	}
	if o.maxRoundTrips < 0 || (o.maxRoundTrips == 0 && o.roundTripsSet) {
		return engine.Config{}, usagef("--max-round-trips: %d is not a number of requests; give N >= 1", o.maxRoundTrips)
	}
	a.MaxRoundTrips = o.maxRoundTrips
	return engine.Config{Rules: rules, Catalogue: catalogue, Gate: gate, Assertions: a, InputFormat: input, Reading: c.reading, Limits: c.limits}, nil
}

// formatNames are the capture formats --input-format accepts: the
// registered ones.
func formatNames() []string {
	var names []string
	for _, f := range readers.All() {
		names = append(names, f.Name())
	}
	return names
}

func parseBudget(flag, v string) (*time.Duration, error) {
	if v == "" {
		return nil, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return nil, usagef("%s: %q is not a duration such as 500ms, 30s or 2m", flag, v)
	}
	return &d, nil
}

func useColor(getenv func(string) string, mode string, stdout io.Writer) (bool, error) {
	switch strings.ToLower(mode) {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
			return false, nil
		}
		f, ok := stdout.(*os.File)
		if !ok {
			return false, nil
		}
		info, err := f.Stat()
		return err == nil && info.Mode()&os.ModeCharDevice != 0, nil
	}
	return false, oneOf("--color", mode, "auto", "always", "never")
}

// plannedOutputs validates --format and --output before anything is read,
// and opens each file's temporary file beside it, so that a typo, a missing
// directory or an unwritable one costs no time and writes nothing.
func plannedOutputs(o *checkOptions, ropts report.Options) ([]output, error) {
	factory, err := report.Lookup(o.format)
	if err != nil {
		return nil, usageError{"--format: " + err.Error()}
	}
	outs := []output{{format: strings.ToLower(o.format), rep: factory(ropts)}}
	seen := map[string]string{} // the file an output resolves to → the path that named it
	var files []string          // the paths of outputs already planned, for os.SameFile
	for _, spec := range o.outputs {
		format, path, ok := strings.Cut(spec, "=")
		if !ok || format == "" || path == "" {
			return outs, usagef("--output: %q is not FMT=PATH", spec)
		}
		factory, err := report.Lookup(format)
		if err != nil {
			return outs, usageError{"--output: " + err.Error()}
		}
		key := outputFile(path)
		if first, ok := seen[key]; ok && (first == path || !isDevice(key)) {
			if first == path {
				return outs, usagef("--output: %s named twice", path)
			}
			return outs, usagef("--output %s and --output %s are the same file (%s): one report would replace the other; name two files", first, path, key)
		}
		for _, first := range files {
			if sameFile(first, path) && !isDevice(key) {
				return outs, usagef("--output %s and --output %s are the same file (%s): one report would replace the other; name two files", first, path, key)
			}
		}
		seen[key] = path
		files = append(files, path)
		fileOpts := ropts
		fileOpts.Color = false
		fileOpts.StepSummary = "" // only the stdout rendering appends the summary
		out := output{format: strings.ToLower(format), path: path, rep: factory(fileOpts)}
		if err := out.open(); err != nil {
			return outs, err
		}
		outs = append(outs, out)
	}
	return outs, nil
}

// outputFile is the file a report to path replaces, absolute, with every
// link resolved: a link (even one to a file not yet written), a linked
// directory, "." and ".." in either spelling. Two outputs with the same
// outputFile would write one file.
func outputFile(path string) string {
	t := writeTarget(path)
	if r, err := filepath.EvalSymlinks(t); err == nil {
		t = r
	} else if d, err := filepath.EvalSymlinks(filepath.Dir(t)); err == nil {
		t = filepath.Join(d, filepath.Base(t))
	}
	if abs, err := filepath.Abs(t); err == nil {
		t = abs
	}
	return t
}

// isDevice reports a target written in place (/dev/null, /dev/stdout, a
// pipe): several reports written to it replace none of each other.
func isDevice(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.Mode().IsRegular() && !info.IsDir()
}

// sameFile reports two paths naming one existing file (hard links too).
func sameFile(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	return err == nil && os.SameFile(ia, ib)
}

// stepSummaryWritable makes sure, before anything is checked, that the
// github format on stdout can append its summary to $GITHUB_STEP_SUMMARY: a
// summary that cannot be written is found out before a long check, not
// after it.
func stepSummaryWritable(format, path string) error {
	if format != "github" || path == "" {
		return nil
	}
	f, err := safefile.OpenWrite(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return usagef("GITHUB_STEP_SUMMARY: %v; the github format appends its summary there (unset it to write none)", err)
	}
	return f.Close()
}

// outputsAreNotInputs refuses an --output file that is one of the captures
// read: the report would replace the capture it is about.
func outputsAreNotInputs(outs []output, sources []readers.Source) error {
	inputs := map[string]string{}
	for _, src := range sources {
		if src.Name != session.StdinName {
			inputs[realPath(src.Name)] = src.Name
		}
	}
	for _, out := range outs {
		if out.path == "" {
			continue
		}
		if in, ok := inputs[realPath(out.target)]; ok {
			return usagef("--output %s: it is the capture %s, which the report would replace; write the report elsewhere", out.path, in)
		}
	}
	return nil
}

// realPath is path with links resolved, absolute.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// open prepares the file a report goes to. A link is followed, so the
// file it points to receives the report and the link stays (a dangling
// link's target is created). A regular file
// (or a new one) is written through a temporary file beside it, created
// with the mode of the file it replaces, else 0644, so that CI steps
// running as other users can read it. Anything else (/dev/stdout, a named
// pipe) is written in place.
func (o *output) open() error {
	o.target = writeTarget(o.path) // a link to a file not yet written keeps pointing at it
	mode := os.FileMode(0o644)
	if info, err := os.Stat(o.target); err == nil {
		switch {
		case info.IsDir():
			return usagef("--output %s: is a directory", o.path)
		case !info.Mode().IsRegular():
			o.device = true
			return nil
		}
		mode = info.Mode().Perm()
	}
	tmp, err := atomicfile.Create(o.target, mode)
	if err != nil {
		return fmt.Errorf("--output %s: %w", o.path, err)
	}
	o.tmp = tmp
	return nil
}

// discard removes the temporary files of outputs not renamed into place.
func discard(outs []output) {
	for _, out := range outs {
		if out.tmp != nil {
			out.tmp.Discard()
		}
	}
}

// writeOutputs renders every output before any becomes visible: the files
// first, into their temporary files, then stdout into memory (the github
// format appends its step summary then); only when all rendered are the
// files renamed into place and stdout written, so a failure leaves no
// half-written report.
func writeOutputs(outs []output, res *result.Result, stdout io.Writer) error {
	for _, out := range outs {
		if out.tmp == nil {
			continue
		}
		bw := bufio.NewWriter(out.tmp)
		err := out.rep.Report(bw, res)
		if err == nil {
			err = bw.Flush()
		}
		if err == nil {
			err = res.Err() // a run of many sessions could not read one back
		}
		if err == nil {
			err = out.tmp.Close()
		}
		if err != nil {
			return fmt.Errorf("--output %s: %w", out.path, err)
		}
	}
	var out0 console
	defer out0.Close()
	bw := bufio.NewWriterSize(&out0, 64<<10)
	err := outs[0].rep.Report(bw, res)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		return fmt.Errorf("rendering %s: %w", outs[0].format, err)
	}
	for i := range outs {
		out := &outs[i]
		if out.tmp == nil {
			continue
		}
		if err := out.tmp.Commit(); err != nil {
			return fmt.Errorf("--output %s: %w", out.path, err)
		}
		out.tmp = nil // renamed: nothing to discard
	}
	for _, out := range outs {
		if out.device {
			if err := writeDevice(out, res); err != nil {
				return err
			}
		}
	}
	_, err = out0.WriteTo(stdout)
	return err
}

// writeDevice writes a report to a target that is not a regular file.
func writeDevice(out output, res *result.Result) error {
	f, err := safefile.OpenWrite(out.target, os.O_WRONLY, 0)
	var se *safefile.Error
	if errors.As(err, &se) {
		return fmt.Errorf("--output %s: %s", out.path, se.Problem)
	}
	if err != nil {
		return fmt.Errorf("--output %s: %w", out.path, err)
	}
	bw := bufio.NewWriter(f)
	err = out.rep.Report(bw, res)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--output %s: %w", out.path, err)
	}
	return nil
}

func (c *command) runRules(args []string, stdout io.Writer) (int, error) {
	fs := pflag.NewFlagSet("rules", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "text", "text, json or markdown")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return exitUsage, flagError("rules", fs, err)
	}
	if *help {
		fmt.Fprint(stdout, "Usage:\n  mcpcheck rules [--format text|json|markdown]\n\nLists every rule: its signal, severity, the revisions it judges and whether it\nfails the default gate.\n\nFlags:\n"+fs.FlagUsages())
		return exitPassed, nil
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("rules takes no arguments")
	}
	rules := c.catalogue()
	var b bytes.Buffer
	switch strings.ToLower(*format) {
	case "text":
		gate, _ := result.ParseGate(checks.DefaultGate, rules)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "RULE\tSIGNAL\tSEVERITY\tREVISIONS\tFAILS DEFAULT GATE\tSUMMARY")
		for _, r := range rules {
			gated := "no"
			if gate.Selects(r) {
				gated = "yes"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Signal, r.Severity, r.Revisions, gated, r.Doc.Summary)
		}
		tw.Flush()
	case "markdown":
		b.WriteString(checks.MarkdownTable(rules))
	case "json":
		type ruleJSON struct {
			ID        string `json:"id"`
			Title     string `json:"title"`
			Signal    string `json:"signal"`
			Severity  string `json:"severity"`
			Revisions string `json:"revisions"`
			Since     string `json:"since"`
			Why       string `json:"why"`
			Fix       string `json:"fix"`
			Bad       string `json:"bad"`
			Good      string `json:"good"`
		}
		list := make([]ruleJSON, len(rules))
		for i, r := range rules {
			d := r.Doc
			list[i] = ruleJSON{r.ID, d.Summary, r.Signal.String(), r.Severity.String(), r.Revisions.String(),
				d.Since, strings.Join(strings.Fields(d.Why), " "), strings.Join(strings.Fields(d.Fix), " "), d.Bad, d.Good}
		}
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return exitUsage, err
		}
	default:
		return exitUsage, oneOf("rules: --format", *format, "text", "json", "markdown")
	}
	_, err := stdout.Write(b.Bytes())
	return exitPassed, err
}

func (c *command) runExplain(args []string, stdout io.Writer) (int, error) {
	if slices.Contains(args, "--help") || slices.Contains(args, "-h") {
		fmt.Fprint(stdout, "Usage:\n  mcpcheck explain RULE\n\nShows one rule's documentation: why it matters, how to fix it, a bad and a\ngood example. Run 'mcpcheck rules' for the list of rules.\n")
		return exitPassed, nil
	}
	if len(args) != 1 {
		return exitUsage, usagef("explain takes one rule id; run 'mcpcheck rules' for the list")
	}
	rules := c.catalogue()
	r, err := ruleByID(rules, "explain", args[0])
	if err != nil {
		return exitUsage, err
	}
	gate, _ := result.ParseGate(checks.DefaultGate, rules)
	gated := "no"
	if gate.Selects(r) {
		gated = "yes"
	}
	fmt.Fprintf(stdout, "%s: %s\n\nsignal:    %s (fails the default gate: %s)\nseverity:  %s\nrevisions: %s\nsince:     mcpcheck %s\n",
		r.ID, r.Doc.Summary, r.Signal, gated, r.Severity, r.Revisions, r.Doc.Since)
	for _, o := range r.Options {
		fmt.Fprintf(stdout, "option:    %s: %s\n", o.OptionName(), o.OptionDoc())
	}
	fmt.Fprintf(stdout, "\n%s\n", r.Doc.Text())
	return exitPassed, nil
}
