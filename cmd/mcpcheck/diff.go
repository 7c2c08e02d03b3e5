package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/rundiff"
)

const diffUsage = `Usage:
  mcpcheck diff [flags] BASE HEAD
  mcpcheck diff [flags] BASE-CAPTURE... -- HEAD-CAPTURE...

What changed from BASE to HEAD: tools added, removed and changed (with the
drift tiers), findings new and gone (by fingerprint), call outcomes that
changed for the same tool and arguments, per-tool latency past
--duration-ratio, coverage gained and lost. Each side is captures (files or
directories); BASE may be a JSON report of an earlier run (--format json).
Exit 1 on a regression (a new gated finding, a success that became a
failure, a breaking tool change, latency past the ratio), 0 otherwise, 2
when nothing could be compared.

Flags:
`

func (c *command) runDiff(args []string, stdin io.Reader, stdout io.Writer) (int, error) {
	fs := pflag.NewFlagSet("diff", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	format := fs.String("format", "text", "text, json or markdown (bounded for a pull-request comment)")
	ratio := fs.Float64("duration-ratio", 2, "a tool whose p50 or p95 grew more than R times is a regression; 0 compares no latency")
	minDelta := fs.Duration("min-duration-change", 10*time.Millisecond, "a latency change smaller than this is noise, whatever its ratio")
	var o readOpts
	o.flags(fs)
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return exitUsage, flagError("diff", fs, err)
	}
	if *help {
		fmt.Fprint(stdout, diffUsage+fs.FlagUsages())
		return exitPassed, nil
	}
	f := strings.ToLower(*format)
	if f != "text" && f != "json" && f != "markdown" {
		return exitUsage, usagef("diff: --format %q is not text, json or markdown", *format)
	}
	if *ratio < 0 || (*ratio > 0 && *ratio < 1) {
		return exitUsage, usagef("diff: --duration-ratio %g: give R >= 1 (or 0 to compare no latency)", *ratio)
	}
	rest := fs.Args()
	var baseArgs, headArgs []string
	if dash := fs.ArgsLenAtDash(); dash >= 0 {
		baseArgs, headArgs = rest[:dash], rest[dash:]
	} else if len(rest) == 2 {
		baseArgs, headArgs = rest[:1], rest[1:]
	}
	if len(baseArgs) == 0 || len(headArgs) == 0 {
		return exitUsage, usagef("diff: name BASE and HEAD (or BASE-CAPTURE... -- HEAD-CAPTURE...); run 'mcpcheck diff --help' for usage")
	}
	if slices.Contains(baseArgs, "-") && slices.Contains(headArgs, "-") {
		return exitUsage, usagef("diff: standard input can be one side, not both")
	}
	base, err := c.diffSide(&o, "BASE", baseArgs, stdin)
	if err != nil {
		return exitUsage, err
	}
	head, err := c.diffSide(&o, "HEAD", headArgs, stdin)
	if err != nil {
		return exitUsage, err
	}
	d := rundiff.Compare(base, head, rundiff.Options{DurationRatio: *ratio, MinDelta: *minDelta})
	bw := bufio.NewWriter(stdout)
	switch f {
	case "json":
		enc := json.NewEncoder(bw)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(struct {
			Version   int  `json:"version"`
			Regressed bool `json:"regressed"`
			*rundiff.Diff
		}{1, d.Regressed(), d})
	case "markdown":
		err = d.WriteMarkdown(bw)
	default:
		err = d.WriteText(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return exitUsage, err
	}
	if d.Regressed() {
		return exitFailed, nil
	}
	return exitPassed, nil
}

// diffSide reads one side: a JSON report of an earlier run, or captures,
// checked with the default gate.
func (c *command) diffSide(o *readOpts, name string, args []string, stdin io.Reader) (*rundiff.Side, error) {
	if len(args) == 1 && strings.HasSuffix(strings.ToLower(args[0]), ".json") {
		if rep := maybeReport(args[0]); rep != nil {
			side := &rundiff.Side{Name: args[0], Usage: rep.Usage, Findings: map[string]rundiff.Finding{}, Report: true}
			for _, s := range rep.Sessions {
				for _, f := range s.Findings {
					side.Findings[f.Fingerprint] = rundiff.Finding{Fingerprint: f.Fingerprint, Rule: f.Rule, Label: s.Label, Message: f.Message, File: f.File, Line: f.Line, Gated: f.Gated}
				}
			}
			return side, nil
		}
	}
	res, err := c.usageRun(o, args, stdin, true)
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", name, err)
	}
	defer res.Close()
	side := &rundiff.Side{Name: strings.Join(args, " "), Usage: res.Usage, Findings: map[string]rundiff.Finding{}}
	for s := range res.AllSessions() {
		for _, f := range s.Findings {
			side.Findings[f.Fingerprint] = findingOf(f)
		}
	}
	return side, res.Err()
}

func findingOf(f *result.Finding) rundiff.Finding {
	return rundiff.Finding{Fingerprint: f.Fingerprint, Rule: f.Rule, Label: f.Label, Message: f.Message, File: f.File, Line: f.Line, Gated: f.Gated}
}

// maybeReport is the JSON report at path, or nil when the file is not one
// (a plain JSON-RPC capture also ends in .json).
func maybeReport(path string) *report.JSONReport {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxReportBytes {
		return nil // read as a capture, which says what is wrong
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	rep, err := parseReport(path, "diff", b)
	if err != nil || rep.Gate == "" {
		return nil
	}
	return rep
}
