package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

func init() { Register("text", func(o Options) Reporter { return &Text{opts: o} }) }

// Text is the human format: one line per finding, a summary line per
// session in the mcpsnoop shape, and the verdict.
type Text struct{ opts Options }

const (
	ansiRed   = "\x1b[31m"
	ansiBold  = "\x1b[1m"
	ansiCyan  = "\x1b[36m"
	ansiGreen = "\x1b[32m"
	ansiReset = "\x1b[0m"
)

func (t *Text) paint(color, s string) string {
	if !t.opts.Color {
		return s
	}
	return color + s + ansiReset
}

func (t *Text) Report(w io.Writer, r *result.Result) error {
	bw := bufio.NewWriter(w)
	for s := range r.AllSessions() {
		for _, f := range s.Findings {
			if t.opts.Quiet && !f.Gated {
				continue
			}
			level := t.paint(ansiCyan, "[note]")
			if f.Gated {
				level = t.paint(ansiBold+ansiRed, "[error]")
			}
			fmt.Fprintf(bw, "%s %s %s%s%s (%s)\n", printable(location(f.File, f.Line)), level, printable(f.Message), suppressedNote(f), existingNote(f), f.Rule)
		}
		if !t.opts.Quiet {
			fmt.Fprintln(bw, SummaryLine(s))
		}
		if !t.opts.Quiet || gatedDrift(s) {
			for _, line := range DriftBlock(s) {
				fmt.Fprintln(bw, line)
			}
		}
		if failed := s.FailedSignals(r.Gate); len(failed) > 0 {
			fmt.Fprintf(bw, "%s %s\n", t.paint(ansiRed, "check failed:"), strings.Join(failed, ","))
		}
		for _, a := range s.Assertions {
			if !a.Passed {
				fmt.Fprintf(bw, "%s %s: %s\n", t.paint(ansiRed, "assertion failed:"), a.Name, printable(a.Message))
			}
		}
	}
	t.writeRunLines(bw, r)
	if r.Passed {
		fmt.Fprintln(bw, t.paint(ansiGreen, "check passed"))
	}
	return bw.Flush()
}

// existingNote is " (existing)" for a finding the --new-from report held.
func existingNote(f *result.Finding) string {
	if f.Existing {
		return " (existing)"
	}
	return ""
}

// suppressedNote is " (suppressed: REASON)" for a suppressed finding.
func suppressedNote(f *result.Finding) string {
	if f.Suppressed == nil {
		return ""
	}
	return " (suppressed: " + printable(flatten(f.Suppressed.Reason)) + ")"
}

// SummaryLine is a session's counts in the mcpsnoop `check` shape, followed
// by the signals mcpsnoop does not count and the suppressed findings, which
// count under no signal.
func SummaryLine(s *result.SessionResult) string {
	return fmt.Sprintf("session %s: errors=%d invalid=%d warnings=%d mismatches=%d pending=%d late_results=%d deprecated=%d missing_frames=%d schema_findings=%d contract=%d security=%d incomplete=%d drift=%d suppression=%d suppressed=%d",
		printable(s.ID),
		s.Count(checks.SignalError), s.Count(checks.SignalInvalid), s.Count(checks.SignalWarn),
		s.Count(checks.SignalMismatch), s.Count(checks.SignalPending), s.Count(checks.SignalLateResult),
		s.Count(checks.SignalDeprecated), s.MissingFrames, s.Count(checks.SignalSchema),
		s.Count(checks.SignalContract), s.Count(checks.SignalSecurity),
		s.Count(checks.SignalIncomplete), s.Count(checks.SignalDrift),
		s.Count(checks.SignalSuppression), s.CountSuppressed())
}

// location renders FILE:LINE, or FILE alone when the line is unknown.
func location(file string, line int) string {
	if line <= 0 {
		return file + ":"
	}
	return fmt.Sprintf("%s:%d:", file, line)
}
