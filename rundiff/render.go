package rundiff

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/mcpcheck/mcpcheck/usage"
)

// clean makes capture text safe for one terminal line.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}

// line is one entry of a section, rendered for text or Markdown.
type section struct {
	title string
	lines []string
}

func (d *Diff) sections(esc func(string) string) []section {
	var out []section
	var tools []string
	for _, st := range d.Tools {
		for _, c := range st.Changes {
			s := fmt.Sprintf("%s: tool %s %s (%s)", esc(labelOf(st.Label)), esc(c.Tool), c.Change, c.Tier)
			var fields []string
			for _, f := range c.Fields {
				fields = append(fields, fmt.Sprintf("%s %s", f.Field, f.Tier))
			}
			if len(fields) > 0 {
				s += ": " + strings.Join(fields, ", ")
			}
			tools = append(tools, s)
		}
	}
	out = append(out, section{"tools", tools})
	var nf, gone []string
	for _, f := range d.NewFindings {
		mark := ""
		if f.Gated {
			mark = " [gated]"
		}
		nf = append(nf, fmt.Sprintf("%s:%d: %s (%s)%s", esc(f.File), f.Line, esc(f.Message), f.Rule, mark))
	}
	for _, f := range d.Gone {
		gone = append(gone, fmt.Sprintf("%s:%d: %s (%s)", esc(f.File), f.Line, esc(f.Message), f.Rule))
	}
	out = append(out, section{"new findings", nf}, section{"gone findings", gone})
	var oc []string
	for _, c := range d.Outcomes {
		s := fmt.Sprintf("%s: %s with arguments %s: %s in base, %s in head", esc(labelOf(c.Label)), esc(c.Tool), c.ArgsHash, c.Base, c.Head)
		if c.HeadKind != "" {
			s += " (" + c.HeadKind + ")"
		}
		if c.Regression {
			s += " [regression]"
		}
		oc = append(oc, s)
	}
	out = append(out, section{"call outcomes", oc})
	var lat []string
	for _, c := range d.Latency {
		s := fmt.Sprintf("%s: %s p50 %s → %s, p95 %s → %s (%.1fx)", esc(labelOf(c.Label)), esc(c.Tool),
			usage.Duration(c.BaseP50, true), usage.Duration(c.HeadP50, true), usage.Duration(c.BaseP95, true), usage.Duration(c.HeadP95, true), c.Ratio)
		if c.Regression {
			s += " [regression]"
		}
		lat = append(lat, s)
	}
	out = append(out, section{"latency", lat})
	var cov []string
	for _, c := range d.Coverage {
		s := fmt.Sprintf("%s: tool coverage %.0f%% → %.0f%%", esc(labelOf(c.Label)), c.BasePercent, c.HeadPercent)
		if len(c.Gained) > 0 {
			s += "; gained " + esc(joinNames(c.Gained))
		}
		if len(c.Lost) > 0 {
			s += "; lost " + esc(joinNames(c.Lost))
		}
		cov = append(cov, s)
	}
	out = append(out, section{"coverage", cov})
	return out
}

// WriteText writes the diff for a terminal: each non-empty section, then
// the notes and the verdict.
func (d *Diff) WriteText(w io.Writer) error {
	for _, s := range d.sections(clean) {
		if len(s.lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", s.title)
		for _, l := range s.lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	for _, n := range d.Notes {
		fmt.Fprintf(w, "note: %s\n", clean(n))
	}
	if d.Regressed() {
		for _, r := range d.Regressions {
			fmt.Fprintf(w, "regression: %s\n", clean(r))
		}
		_, err := fmt.Fprintln(w, "diff failed")
		return err
	}
	_, err := fmt.Fprintln(w, "no regression")
	return err
}

// MaxMarkdownBytes bounds the Markdown diff: a pull-request comment holds
// at most 65,536 characters.
const MaxMarkdownBytes = 60_000

// maxMarkdownLines is how many entries a section lists before it counts.
const maxMarkdownLines = 50

// mdText escapes capture text for Markdown prose and tables.
func mdText(s string) string {
	return strings.NewReplacer("|", `\|`, "`", "\\`", "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "#", `\#`, "@", "@\u200b").Replace(clean(s))
}

// WriteMarkdown writes the diff for a pull-request comment, at most
// MaxMarkdownBytes: each section lists its first entries and counts the
// rest, and a section that would not fit is counted only.
func (d *Diff) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	verdict := "**No regression.**"
	if d.Regressed() {
		verdict = "**Regression:**"
	}
	fmt.Fprintf(&b, "## mcpcheck diff\n\n%s\n", verdict)
	for _, r := range d.Regressions {
		fmt.Fprintf(&b, "- %s\n", mdText(r))
	}
	const reserve = 2_000 // for the notes and the closing lines
	for _, s := range d.sections(mdText) {
		if len(s.lines) == 0 {
			continue
		}
		head := fmt.Sprintf("\n### %s (%d)\n\n", s.title, len(s.lines))
		if b.Len()+len(head)+reserve > MaxMarkdownBytes {
			fmt.Fprintf(&b, "\n%d %s not shown: the comment is at its size limit.\n", len(s.lines), s.title)
			continue
		}
		b.WriteString(head)
		for i, l := range s.lines {
			entry := "- " + l + "\n"
			if i == maxMarkdownLines || b.Len()+len(entry)+reserve > MaxMarkdownBytes {
				fmt.Fprintf(&b, "- … and %d more\n", len(s.lines)-i)
				break
			}
			b.WriteString(entry)
		}
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "\n> %s\n", mdText(n))
	}
	_, err := w.Write(b.Bytes())
	return err
}
