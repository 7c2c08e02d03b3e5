package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/usage"
)

const statsUsage = `Usage:
  mcpcheck stats [--format text|json|markdown] [--max-argument-hashes N] CAPTURE...

Per server and tool across the captures: calls, errors by kind, error rate,
latency p50/p95/p99/max (the server's share of multi round-trip calls apart),
the captures each tool was called in, and flaky calls: the same tool with the
same arguments succeeding in one run and failing in another. Exit 0, or 2
when nothing could be read.

Flags:
`

// readOpts are the flags stats and diff share for reading captures.
type readOpts struct {
	inputFormat string
	maxHashes   int
}

func (o *readOpts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.inputFormat, "input-format", "", "read every capture as this format instead of detecting it: "+strings.Join(formatNames(), ", "))
	fs.IntVar(&o.maxHashes, "max-argument-hashes", usage.StatsMaxHashes, "distinct tool arguments remembered to find flaky calls and changed outcomes")
}

// usageRun reads captures for their usage only: no rule runs.
func (c *command) usageRun(o *readOpts, args []string, stdin io.Reader, rules bool) (*result.Result, error) {
	if o.maxHashes < 1 {
		return nil, usagef("--max-argument-hashes: %d; give N >= 1", o.maxHashes)
	}
	var input readers.Format
	if name := strings.TrimSpace(o.inputFormat); name != "" {
		if input = readers.Lookup(name); input == nil {
			return nil, usagef("--input-format: unknown format %q; valid: %s", o.inputFormat, strings.Join(formatNames(), ", "))
		}
	}
	if len(args) == 0 {
		return nil, usagef("name at least one CAPTURE")
	}
	sources, err := readers.Resolve(args, stdin, c.getenv)
	if err != nil {
		return nil, err
	}
	catalogue := c.catalogue()
	gate, err := result.ParseGate("none", catalogue)
	if err != nil {
		return nil, err
	}
	cfg := engine.Config{Catalogue: catalogue, Gate: gate, InputFormat: input, Reading: c.reading, Limits: c.limits,
		MaxArgumentHashes: o.maxHashes, KeepDefinitions: true}
	if rules {
		if cfg.Gate, err = result.ParseGate("error,invalid,warn", catalogue); err != nil {
			return nil, err
		}
		cfg.Rules = catalogue
	}
	return engine.Run(sources, cfg)
}

func (c *command) runStats(args []string, stdin io.Reader, stdout io.Writer) (int, error) {
	fs := pflag.NewFlagSet("stats", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	format := fs.String("format", "text", "text, json or markdown")
	var o readOpts
	o.flags(fs)
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return exitUsage, flagError("stats", fs, err)
	}
	if *help {
		fmt.Fprint(stdout, statsUsage+fs.FlagUsages())
		return exitPassed, nil
	}
	f := strings.ToLower(*format)
	if f != "text" && f != "json" && f != "markdown" {
		return exitUsage, usagef("stats: --format %q is not text, json or markdown", *format)
	}
	res, err := c.usageRun(&o, fs.Args(), stdin, false)
	if err != nil {
		return exitUsage, fmt.Errorf("stats: %w", err)
	}
	defer res.Close()
	bw := bufio.NewWriter(stdout)
	switch f {
	case "json":
		enc := json.NewEncoder(bw)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(res.Usage)
	case "markdown":
		err = res.Usage.WriteMarkdown(bw)
	default:
		err = res.Usage.WriteText(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	return exitPassed, err
}
