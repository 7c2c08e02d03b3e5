package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpcheck/mcpcheck/result"
)

// CoverageLines are the run's coverage, one line per server label (spec
// §5.2, §7.1), then the failed run-wide assertions; text and the job
// summary show them before the verdict.
func CoverageLines(r *result.Result) []string {
	var out []string
	if r.Usage != nil {
		for i := range r.Usage.Servers {
			out = append(out, printable(r.Usage.Servers[i].Line()))
		}
		if r.Usage.CapReached {
			out = append(out, fmt.Sprintf("note: %d distinct tool arguments remembered, the most a run keeps: flaky calls among later ones were not looked for", r.Usage.MaxArgumentHashes))
		}
		if n := r.Usage.LabelCapNote(); n != "" {
			out = append(out, "note: "+n)
		}
	}
	return out
}

// writeRunLines writes the coverage lines, the run-wide assertions that
// failed, the rules whose gated signal judged nothing, and which findings
// an earlier report already held.
func (t *Text) writeRunLines(w io.Writer, r *result.Result) {
	if !t.opts.Quiet { // quiet: only what failed
		for _, l := range CoverageLines(r) {
			fmt.Fprintln(w, l)
		}
	}
	for _, a := range r.RunAssertions {
		if !a.Passed {
			fmt.Fprintf(w, "%s %s: %s\n", t.paint(ansiRed, "assertion failed:"), a.Name, printable(a.Message))
		}
	}
	if t.opts.Quiet {
		return
	}
	if r.NewFrom != "" {
		n, existing := 0, 0
		for s := range r.AllSessions() {
			for _, f := range s.Findings {
				n++
				if f.Existing {
					existing++
				}
			}
		}
		fmt.Fprintf(w, "new from %s: %d new findings, %d existing (not gated)\n", printable(r.NewFrom), n-existing, existing)
	}
	if l := RulesLine(r); l != "" {
		fmt.Fprintln(w, l)
	}
	for _, l := range UnjudgedGated(r) {
		fmt.Fprintln(w, "note: "+l)
	}
}

// RulesLine says in one line what the rules made of the run: how many had
// findings, judged and found nothing, or had nothing to judge (named).
// Empty for a result without judged counts (made by hand).
func RulesLine(r *result.Result) string {
	if r.Judged == nil {
		return ""
	}
	var found, none int
	var notObserved []string
	for _, st := range RuleStates(r) {
		switch st.Status {
		case StatusFindings:
			found++
		case StatusNoneFound:
			none++
		case StatusNotObserved:
			notObserved = append(notObserved, st.Rule.ID)
		}
	}
	line := fmt.Sprintf("rules: %d with findings, %d judged and found nothing, %d not observed", found, none, len(notObserved))
	if len(notObserved) > 0 {
		const most = 8
		names := notObserved[:min(most, len(notObserved))]
		line += " (" + strings.Join(names, ", ")
		if len(notObserved) > most {
			line += fmt.Sprintf(" and %d more", len(notObserved)-most)
		}
		line += ")"
	}
	return line
}
