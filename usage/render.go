package usage

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Duration renders a latency for people: µs under a millisecond, ms with
// one decimal under a second, else seconds with two; "-" for none.
func Duration(d time.Duration, have bool) string {
	switch {
	case !have:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// ErrorKinds renders a tool's errors by kind, "tool-error 2, unanswered 1".
func ErrorKinds(errs map[string]int64) string {
	var kinds []string
	for k := range errs {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, errs[k]))
	}
	return strings.Join(parts, ", ")
}

// clean makes capture text safe for a terminal line or a table cell.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}

// WriteText writes the stats for a terminal: per server its coverage
// line, a table of its tools, and its flaky calls.
func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%d captures, %d servers\n", s.Captures, len(s.Servers))
	for i := range s.Servers {
		sv := &s.Servers[i]
		fmt.Fprintf(w, "\n%s (%d sessions)\n", clean(sv.Line()), sv.Sessions)
		if len(sv.ToolStats) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  tool\tcalls\terrors\terror rate\tp50\tp95\tp99\tmax\tcaptures\tby kind")
		for _, t := range sv.ToolStats {
			l, have := t.Latency, t.Latency.Count > 0
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%.1f%%\t%s\t%s\t%s\t%s\t%d\t%s\n", clean(t.Name), t.Calls, t.Calls-t.OK, 100*t.ErrorRate,
				Duration(l.P50, have), Duration(l.P95, have), Duration(l.P99, have), Duration(l.Max, have), t.Captures, ErrorKinds(t.Errors))
		}
		tw.Flush()
		for _, t := range sv.ToolStats {
			if sl := t.ServerLatency; sl != nil {
				fmt.Fprintf(w, "  %s: %d multi round-trip calls; the server's share p50 %s p95 %s p99 %s max %s\n", clean(t.Name), t.Chains,
					Duration(sl.P50, true), Duration(sl.P95, true), Duration(sl.P99, true), Duration(sl.Max, true))
			}
			if len(t.NeverPassed) > 0 && t.Calls > 0 {
				fmt.Fprintf(w, "  %s: declared arguments never passed: %s\n", clean(t.Name), clean(strings.Join(t.NeverPassed, ", ")))
			}
		}
		for _, f := range sv.Flaky {
			fmt.Fprintf(w, "  flaky: %s with arguments %s succeeded at %s:%d and failed (%s) at %s:%d\n", clean(f.Tool), f.ArgsHash,
				clean(f.OKAt.File), f.OKAt.Line, f.FailKind, clean(f.FailedAt.File), f.FailedAt.Line)
		}
	}
	if s.CapReached {
		fmt.Fprintf(w, "\nnote: %d distinct tool arguments remembered, the most this run keeps (--max-argument-hashes): flaky calls among later ones were not looked for\n", s.MaxArgumentHashes)
	}
	if n := s.LabelCapNote(); n != "" {
		fmt.Fprintf(w, "\nnote: %s\n", n)
	}
	return nil
}

// mdCell escapes a table cell of Markdown.
func mdCell(s string) string {
	s = clean(s)
	return strings.NewReplacer("|", `\|`, "`", "\\`", "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`).Replace(s)
}

// WriteMarkdown writes the stats as Markdown tables, one per server.
func (s *Summary) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "## mcpcheck stats\n\n%d captures, %d servers.\n", s.Captures, len(s.Servers))
	for i := range s.Servers {
		sv := &s.Servers[i]
		fmt.Fprintf(w, "\n### %s\n\n%s\n", mdCell(labelOf(sv.Label)), mdCell(sv.Line()))
		if len(sv.ToolStats) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n| tool | calls | errors | error rate | p50 | p95 | p99 | max | captures | by kind |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
		for _, t := range sv.ToolStats {
			l, have := t.Latency, t.Latency.Count > 0
			fmt.Fprintf(w, "| %s | %d | %d | %.1f%% | %s | %s | %s | %s | %d | %s |\n", mdCell(t.Name), t.Calls, t.Calls-t.OK, 100*t.ErrorRate,
				Duration(l.P50, have), Duration(l.P95, have), Duration(l.P99, have), Duration(l.Max, have), t.Captures, ErrorKinds(t.Errors))
		}
		if len(sv.Flaky) > 0 {
			fmt.Fprintf(w, "\n**Flaky calls**\n\n| tool | arguments | succeeded at | failed at | failure |\n|---|---|---|---|---|\n")
			for _, f := range sv.Flaky {
				fmt.Fprintf(w, "| %s | `%s` | %s:%d | %s:%d | %s |\n", mdCell(f.Tool), f.ArgsHash, mdCell(f.OKAt.File), f.OKAt.Line, mdCell(f.FailedAt.File), f.FailedAt.Line, f.FailKind)
			}
		}
	}
	if s.CapReached {
		fmt.Fprintf(w, "\n> %d distinct tool arguments remembered, the most this run keeps: flaky calls among later ones were not looked for.\n", s.MaxArgumentHashes)
	}
	if n := s.LabelCapNote(); n != "" {
		fmt.Fprintf(w, "\n> %s.\n", mdCell(n))
	}
	return nil
}

func labelOf(l string) string {
	if l == "" {
		return "(unlabelled)"
	}
	return l
}
