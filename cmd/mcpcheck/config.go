package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/internal/atomicfile"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/result"
)

// vocabulary is what a configuration file's names are checked against:
// the catalogue and the registered formats.
func vocabulary(rules []*checks.Rule) *config.Vocabulary {
	return &config.Vocabulary{Rules: rules, Outputs: report.Formats(), InputFormats: formatNames()}
}

// loadConfig finds and reads the configuration file of a check: --config
// FILE, else .mcpcheck.yml or .mcpcheck.yaml in the working directory or
// the nearest parent up to the repository's top (only the working
// directory outside a repository), none with --no-config. nil when there
// is none.
func loadConfig(fs *pflag.FlagSet, named string, none bool, wd string, v *config.Vocabulary) (*config.File, error) {
	switch {
	case none && fs.Changed("config"):
		return nil, usagef("--config and --no-config cannot be combined")
	case none:
		return nil, nil
	case fs.Changed("config"):
		if strings.TrimSpace(named) == "" {
			return nil, usagef("--config is empty; name the configuration file")
		}
		return config.Load(named, v)
	}
	path, err := discoverConfig(wd)
	if err != nil || path == "" {
		return nil, err
	}
	return config.Load(path, v)
}

// discoverConfig is the configuration file that applies in wd, relative
// to it as a user would name it; "" for none.
func discoverConfig(wd string) (string, error) {
	top := gitTop(wd)
	if top == "" {
		top = wd // outside a repository only the working directory
	}
	path, err := config.Discover(wd, top)
	if err != nil || path == "" {
		return "", err
	}
	if rel, err := filepath.Rel(wd, path); err == nil {
		path = rel
	}
	return path, nil
}

// applyConfig fills the options the command line did not give from the
// file: flags override the file, key by key. A list given by a flag
// replaces the file's list.
func applyConfig(o *checkOptions, fs *pflag.FlagSet, f *config.File) {
	if f == nil {
		return
	}
	str := func(flag, key, v string, dst *string) {
		if f.Set[key] && !fs.Changed(flag) {
			*dst = v
		}
	}
	list := func(flag, key string, v []string, dst *[]string) {
		if f.Set[key] && !fs.Changed(flag) {
			*dst = slices.Clone(v)
		}
	}
	if f.Set["fail-on"] && !fs.Changed("fail-on") {
		o.failOn = strings.Join(f.FailOn, ",")
		o.failOnSet = true
	}
	list("disable", "disable", f.Disable, &o.disable)
	list("expect-tool", "expect-tools", f.ExpectTools, &o.expectTools)
	list("forbid-tool", "forbid-tools", f.ForbidTools, &o.forbidTools)
	if f.Set["max-duration"] && !fs.Changed("max-duration") {
		o.maxDuration, o.toolMaxDuration = string(f.MaxDuration.All), f.MaxDuration.ToolValues()
	}
	str("max-server-duration", "max-server-duration", string(f.MaxServerDuration), &o.maxServerDuration)
	if f.Set["max-round-trips"] && !fs.Changed("max-round-trips") {
		o.maxRoundTrips, o.roundTripsSet = f.MaxRoundTrips, true
	}
	if f.MinToolCoverage != nil && !fs.Changed("min-tool-coverage") {
		o.minToolCoverage, o.minToolCoverageSet = *f.MinToolCoverage, true
	}
	str("input-format", "input-format", f.InputFormat, &o.inputFormat)
	str("category", "category", f.Category, &o.category)
	if f.Set["category"] && !fs.Changed("category") {
		o.categorySet = true
	}
	for _, p := range []struct {
		flag, key, v string
		dst          *string
		set          *bool
	}{
		{"baseline", "baseline", f.Baseline, &o.baselineDir, &o.baselineSet},
		{"suppressions", "suppressions", f.Suppressions, &o.suppressions, &o.suppressionsSet},
		{"source-root", "source-root", f.SourceRoot, &o.sourceRoot, &o.sourceRootSet},
	} {
		if f.Set[p.key] && !fs.Changed(p.flag) {
			*p.dst, *p.set = relToWork(f.Resolve(p.v)), true
		}
	}
	if f.Set["record-baseline"] && !fs.Changed("record-baseline") {
		o.recordBaseline = f.RecordBaseline
	}
	if f.Set["outputs"] && !fs.Changed("output") {
		formats := make([]string, 0, len(f.Outputs))
		for format := range f.Outputs {
			formats = append(formats, format)
		}
		sort.Strings(formats)
		for _, format := range formats {
			o.outputs = append(o.outputs, format+"="+relToWork(f.Resolve(f.Outputs[format])))
		}
	}
}

// relToWork is an absolute path from the file made relative to the working
// directory, as a user would have typed it, when it lies below it.
func relToWork(p string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return p
}

// configCaptures expands the file's captures: paths and globs relative to
// the file, in lexical order, each file once. A glob that matches nothing
// is an error: a moved capture directory must not check nothing quietly.
func configCaptures(f *config.File) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, pattern := range f.Captures {
		abs := f.Resolve(pattern)
		matches, err := filepath.Glob(abs)
		if err != nil {
			return nil, usagef("%s: captures: %q: %v", f.Path, pattern, err)
		}
		if len(matches) == 0 {
			if !hasMeta(pattern) {
				matches = []string{abs} // a plain path: reading it says what is wrong
			} else {
				return nil, usagef("%s: captures: %q matches no file", f.Path, pattern)
			}
		}
		sort.Strings(matches)
		for _, m := range matches {
			if m = relToWork(m); !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out, nil
}

func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }

const configUsage = `Usage:
  mcpcheck config verify [FILE]       validate FILE (default: the discovered .mcpcheck.yml); exit 0 or 2
  mcpcheck config init CAPTURE...     write a commented starter .mcpcheck.yml for the captures
  mcpcheck config schema              print the JSON Schema of the file
`

// runConfig is `mcpcheck config verify|init|schema`.
func (c *command) runConfig(args []string, stdout io.Writer) (int, error) {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" || args[0] == "help" {
		fmt.Fprint(stdout, configUsage)
		if len(args) == 0 {
			return exitUsage, usagef("config needs verify, init or schema")
		}
		return exitPassed, nil
	}
	rules := c.catalogue()
	v := vocabulary(rules)
	switch sub, rest := args[0], args[1:]; sub {
	case "schema":
		if len(rest) > 0 {
			return exitUsage, usagef("config schema takes no arguments")
		}
		_, err := stdout.Write(config.SchemaJSON(v))
		return exitPassed, err
	case "verify":
		var path string
		switch len(rest) {
		case 0:
			wd, _ := os.Getwd()
			p, err := discoverConfig(wd)
			if err != nil {
				return exitUsage, err
			}
			if p == "" {
				return exitUsage, usagef("config verify: no %s in %s or above it; name the file, or write one with mcpcheck config init CAPTURE", config.Names[0], wd)
			}
			path = p
		case 1:
			path = rest[0]
		default:
			return exitUsage, usagef("config verify takes at most one file")
		}
		f, err := config.Load(path, v)
		if err != nil {
			return exitUsage, configError(err)
		}
		fmt.Fprintf(stdout, "%s: valid (version %d", path, f.Version)
		if n := len(f.Servers); n > 0 {
			fmt.Fprintf(stdout, ", %d %s", n, plural(n, "server entry", "server entries"))
		}
		fmt.Fprintln(stdout, ")")
		return exitPassed, nil
	case "init":
		return c.runConfigInit(rest, stdout, v)
	}
	return exitUsage, usagef("config: unknown subcommand %q; valid: verify, init, schema", args[0])
}

// configProblems are a configuration file's problems: exit 2, each on its
// own line of stderr.
type configProblems struct{ err error }

func (e configProblems) Error() string { return e.err.Error() }

func configError(err error) error {
	var ce *config.Error
	var ces config.Errors
	if errors.As(err, &ce) || errors.As(err, &ces) {
		return configProblems{err}
	}
	return err
}

// runConfigInit writes a commented starter file for the captures: their
// server labels become servers: entries.
func (c *command) runConfigInit(args []string, stdout io.Writer, v *config.Vocabulary) (int, error) {
	fs := pflag.NewFlagSet("config init", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("file", config.Names[0], "where to write the file (- for standard output)")
	force := fs.Bool("force", false, "replace an existing file")
	if err := fs.Parse(args); err != nil {
		return exitUsage, flagError("config", fs, err)
	}
	if fs.NArg() == 0 {
		return exitUsage, usagef("config init needs the captures the file is for")
	}
	for _, a := range fs.Args() {
		if _, err := os.Stat(a); err != nil {
			return exitUsage, usagef("config init: %s: %v", a, unwrapPathError(err))
		}
	}
	labels, err := c.captureLabels(fs.Args())
	if err != nil {
		return exitUsage, err
	}
	dir := filepath.Dir(*out)
	var rel []string
	for _, a := range fs.Args() {
		abs, _ := filepath.Abs(a)
		absDir, _ := filepath.Abs(dir)
		r, err := filepath.Rel(absDir, abs)
		if err != nil {
			r = abs
		}
		rel = append(rel, filepath.ToSlash(r))
	}
	text := config.Starter(rel, labels)
	if _, err := config.Parse(*out, []byte(text), v); err != nil {
		return exitUsage, fmt.Errorf("config init wrote a file it cannot read (a bug): %v", err)
	}
	if *out == "-" {
		_, err := io.WriteString(stdout, text)
		return exitPassed, err
	}
	if _, err := os.Stat(*out); err == nil && !*force {
		return exitUsage, usagef("config init: %s exists; pass --force to replace it", *out)
	}
	if err := atomicfile.Write(*out, []byte(text), 0o644); err != nil {
		return exitUsage, fmt.Errorf("config init: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s for %d %s and %d %s; check it with mcpcheck config verify\n",
		*out, len(fs.Args()), plural(len(fs.Args()), "capture", "captures"), len(labels), plural(len(labels), "server", "servers"))
	return exitPassed, nil
}

// captureLabels are the server labels of the captures' sessions, sorted:
// the captures are read, no rule runs.
func (c *command) captureLabels(captures []string) ([]string, error) {
	sources, err := readers.Resolve(captures, nil, c.getenv)
	if err != nil {
		return nil, err
	}
	gate, err := result.ParseGate("none", c.catalogue())
	if err != nil {
		return nil, err
	}
	res, err := engine.Run(sources, engine.Config{Catalogue: c.catalogue(), Gate: gate, Reading: c.reading, Limits: c.limits})
	if err != nil {
		return nil, err
	}
	defer res.Close()
	seen := map[string]bool{}
	var labels []string
	for s := range res.AllSessions() {
		if s.Label != "" && !seen[s.Label] {
			seen[s.Label] = true
			labels = append(labels, s.Label)
		}
	}
	sort.Strings(labels)
	return labels, res.Err()
}

// applyServers turns the file's servers: entries into the engine's, in the
// order of their keys (every matching entry applies; a later one's gate
// and budgets replace an earlier one's).
func applyServers(cfg *engine.Config, f *config.File, rules []*checks.Rule) error {
	if f == nil {
		return nil
	}
	patterns := make([]string, 0, len(f.Servers))
	for p := range f.Servers {
		patterns = append(patterns, p)
	}
	sort.Strings(patterns)
	for _, p := range patterns {
		s := f.Servers[p]
		srv := engine.Server{Pattern: p, Assertions: engine.Assertions{
			ExpectTools: s.ExpectTools, ForbidTools: s.ForbidTools,
			MaxDuration: s.MaxDuration.All.Value(), ToolMaxDuration: s.MaxDuration.ToolValues(), MaxServerDuration: s.MaxServerDuration.Value(), MaxRoundTrips: s.MaxRoundTrips,
		}}
		if s.MinToolCoverage != nil {
			if cfg.Coverage.ByServer == nil {
				cfg.Coverage.ByServer = map[string]float64{}
			}
			cfg.Coverage.ByServer[p] = *s.MinToolCoverage
		}
		if len(s.FailOn) > 0 {
			g, err := result.ParseGate(strings.Join(s.FailOn, ","), rules)
			if err != nil {
				return usagef("%s: servers.%s: %v", f.Path, p, err)
			}
			srv.Gate = &g
		}
		for _, id := range s.Disable {
			if srv.Disabled == nil {
				srv.Disabled = map[string]bool{}
			}
			srv.Disabled[id] = true
		}
		cfg.Servers = append(cfg.Servers, srv)
	}
	return nil
}

// applyRuleOptions sets the options the file's rules: section gives.
func applyRuleOptions(cfg *engine.Config, f *config.File, rules []*checks.Rule) error {
	if f == nil {
		return nil
	}
	ids := make([]string, 0, len(f.Rules))
	for id := range f.Rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := checks.Lookup(rules, id)
		for name, raw := range f.Rules[id] {
			for _, o := range r.Options {
				if c, ok := o.(checks.ConfigurableSetting); ok && c.Configurable() && c.OptionName() == name {
					v, err := c.ParseOption(raw)
					if err != nil {
						return usagef("%s: rules.%s.%s: %v", f.Path, id, name, err)
					}
					cfg.SetOption(o, v)
				}
			}
		}
	}
	return nil
}

// sortSources puts the captures in the order of their names, so that the
// report does not depend on the order they were named in.
func sortSources(sources []readers.Source) {
	sort.SliceStable(sources, func(i, j int) bool { return sources[i].Name < sources[j].Name })
}
