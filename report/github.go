package report

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"

	"github.com/mcpcheck/mcpcheck/internal/safefile"
)

func init() { Register("github", func(o Options) Reporter { return &GitHub{opts: o} }) }

// GitHub writes workflow commands that the Actions runner turns into inline
// annotations, and appends a Markdown summary to Options.StepSummary.
//
// Levels: a gated finding is ::error. A finding that does not fail the gate
// is ::warning when its rule's severity is error or warning, and ::notice
// when it is note, so the rules a user would most likely want to gate on
// stand out without failing anything.
//
// Failed assertions are ::error lines without a file (they belong to a
// session, not a frame). They share the error cap with gated findings and
// come after them: the runner shows only ten error annotations per step, so
// lines beyond that would be dropped anyway.
//
// At most ghCap annotations per level are written, gated findings first,
// then one ::notice:: line counting the rest. When that line is needed, one
// notice slot is kept for it, so it is never the annotation the runner drops.
type GitHub struct {
	opts  Options
	place *placer
}

const (
	// ghCap is the runner's limit of annotations per level and step.
	ghCap = 10
	// ghSummaryBudget is where the step summary stops adding rows; the
	// runner refuses summaries over 1 MiB.
	ghSummaryBudget = 512 << 10
	// ghSummaryReserve is kept free of rows for the lines that close the
	// sections ("N more … not shown"), so the whole stays within budget.
	ghSummaryReserve = 8 << 10
	// ghCountShare is the most the per-session count table takes: with
	// many sessions it would otherwise leave nothing for the findings.
	ghCountShare = 128 << 10
	// ghCellMax bounds one table cell, so one huge message cannot use the
	// whole budget.
	ghCellMax = 1000
)

// ghAnnotation is one workflow command line before capping.
type ghAnnotation struct {
	level string // error, warning, notice
	// assertion marks a failed assertion, counted apart in the overflow notice
	assertion bool
	file      string // "" for none
	line      int
	title     string
	msg       string
}

func (g *GitHub) Report(w io.Writer, r *result.Result) error {
	g.place = newPlacer(g.opts)
	bw := bufio.NewWriter(w)
	ghWriteAnnotations(bw, g.annotations(r))
	if err := bw.Flush(); err != nil {
		return err
	}
	if g.opts.StepSummary == "" {
		return nil
	}
	return ghAppendSummary(g.opts.StepSummary, g.summary(r))
}

// annotations yields every annotation in the order they are written:
// gated findings, failed assertions, then the other findings. A suppressed
// finding gets none: it was accepted; the summary counts it. (A sequence,
// read twice: a run may have far more findings than annotations.)
func (g *GitHub) annotations(r *result.Result) iter.Seq[ghAnnotation] {
	return func(yield func(ghAnnotation) bool) {
		finding := func(f *result.Finding) ghAnnotation {
			a := ghAnnotation{level: ghLevel(f), line: f.Line, title: f.Rule, msg: f.Message + existingNote(f)}
			if f.File != session.StdinName {
				a.file = g.path(f.File)
			}
			return a
		}
		for f := range r.GatedFirst() {
			if !f.Gated {
				break // the gated ones come first
			}
			if f.Suppressed == nil && !yield(finding(f)) {
				return
			}
		}
		for s := range r.AllSessions() {
			for _, as := range s.Assertions {
				if !as.Passed && !yield(ghAnnotation{
					level: "error", assertion: true,
					title: "assertion " + as.Name,
					msg:   fmt.Sprintf("session %s: %s", s.ID, as.Message),
				}) {
					return
				}
			}
		}
		for _, as := range r.RunAssertions {
			if !as.Passed && !yield(ghAnnotation{level: "error", assertion: true, title: "assertion " + as.Name, msg: as.Message}) {
				return
			}
		}
		for s := range r.AllSessions() {
			for _, f := range s.Findings {
				if !f.Gated && f.Suppressed == nil && !yield(finding(f)) {
					return
				}
			}
		}
	}
}

// ghLevel is the annotation level of a finding.
func ghLevel(f *result.Finding) string {
	switch {
	case f.Gated:
		return "error"
	case f.Severity == checks.SeverityNote:
		return "notice"
	default:
		return "warning"
	}
}

// ghWriteAnnotations writes the capped annotations and the overflow notice.
func ghWriteAnnotations(w io.Writer, all iter.Seq[ghAnnotation]) {
	per := map[string]int{}
	for a := range all {
		per[a.level]++
	}
	limit := map[string]int{"error": ghCap, "warning": ghCap, "notice": ghCap}
	if per["error"] > ghCap || per["warning"] > ghCap || per["notice"] > ghCap {
		limit["notice"] = ghCap - 1 // keep a slot for the overflow notice
	}
	written := map[string]int{}
	hiddenFindings, hiddenAssertions := 0, 0
	for a := range all {
		switch {
		case written[a.level] < limit[a.level]:
			written[a.level]++
			fmt.Fprintln(w, a.command())
		case a.assertion:
			hiddenAssertions++
		default:
			hiddenFindings++
		}
	}
	if hiddenFindings+hiddenAssertions == 0 {
		return
	}
	var hidden []string
	if hiddenFindings > 0 {
		hidden = append(hidden, countNoun(hiddenFindings, "more finding", "more findings"))
	}
	if hiddenAssertions > 0 {
		hidden = append(hidden, countNoun(hiddenAssertions, "more failed assertion", "more failed assertions"))
	}
	fmt.Fprintf(w, "::notice::%s not shown as annotations; see the job summary or the full report (--format text, json or sarif)\n",
		ghEscapeData(strings.Join(hidden, " and ")))
}

// command renders ::LEVEL file=F,line=L,title=T::MESSAGE.
func (a ghAnnotation) command() string {
	var props []string
	if a.file != "" {
		props = append(props, "file="+ghEscapeProperty(a.file))
		if a.line > 0 {
			props = append(props, fmt.Sprintf("line=%d", a.line))
		}
	}
	if a.title != "" {
		props = append(props, "title="+ghEscapeProperty(a.title))
	}
	cmd := "::" + a.level
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	return cmd + "::" + ghEscapeData(a.msg)
}

// ghEscapeData escapes a command's message as the runner unescapes it, and
// makes the remaining control characters visible so capture text cannot
// recolour or rewrite the log.
func ghEscapeData(s string) string {
	return printable(ghDataEscaper.Replace(s))
}

// ghEscapeProperty escapes a property value, where ':' and ',' would end it.
func ghEscapeProperty(s string) string {
	return printable(ghPropertyEscaper.Replace(s))
}

// The escapers are made once: a Replacer builds its tables on first use,
// and there is a command for every finding.
var (
	ghDataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghPropertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// path is how annotations name a capture: relative to the source root
// (the repository), as SARIF does, so the runner can place them on the
// file; a capture outside the root keeps its absolute path.
func (g *GitHub) path(file string) string {
	pl := g.place.at(file)
	if pl.rel != "" || pl.abs == "" {
		return pl.rel
	}
	return pl.abs
}

// ghAppendSummary appends text to the step summary file, which other steps
// and other invocations share.
func ghAppendSummary(path, text string) error {
	f, err := safefile.OpenWrite(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("step summary: %w", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("step summary %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("step summary %s: %w", path, err)
	}
	return nil
}

// ghSummary builds Markdown under a byte budget: rows are added while they
// fit, and a section that runs out says how much it left out.
type ghSummary struct {
	b     strings.Builder
	until int // rows stop at this length; 0: the budget less the reserve
}

func (s *ghSummary) line(format string, args ...any) {
	fmt.Fprintf(&s.b, format, args...)
	s.b.WriteByte('\n')
}

// rows adds each row while the budget allows and returns how many it left out.
func (s *ghSummary) rows(rows []string) int {
	return s.section(nil, slices.Values(rows))
}

// section writes head (when not nil) before the first row, then each row
// while the budget allows, and returns how many rows it left out. Rows are
// a sequence: a run of many sessions has far more than the budget holds.
func (s *ghSummary) section(head func(), rows iter.Seq[string]) int {
	left := 0
	for r := range rows {
		if head != nil {
			head()
			head = nil
		}
		if left > 0 || s.b.Len()+len(r)+1 > s.limit() {
			left++
			continue
		}
		s.line("%s", r)
	}
	return left
}

// limit is where rows stop.
func (s *ghSummary) limit() int {
	if s.until > 0 {
		return min(s.until, ghSummaryBudget-ghSummaryReserve)
	}
	return ghSummaryBudget - ghSummaryReserve
}

// text is the summary, cut at a line within the budget should the lines
// that close sections ever outgrow the reserve.
func (s *ghSummary) text() string {
	out := s.b.String()
	if len(out) <= ghSummaryBudget {
		return out
	}
	cut := strings.LastIndexByte(out[:ghSummaryBudget-len(ghSummaryCut)], '\n')
	return out[:cut+1] + ghSummaryCut
}

const ghSummaryCut = "\n(cut at the step summary's size limit; the text, JSON and SARIF reports have everything)\n"

// summary is the Markdown appended to the step summary: verdict, the
// failing sessions, counts per signal and session, failed assertions,
// then the findings, gated first.
func (g *GitHub) summary(r *result.Result) string {
	var s ghSummary
	s.line("## mcpcheck")
	s.line("")
	s.line("%s", ghVerdict(r))
	s.line("")
	s.line("%s", g.limits(r))

	// what failed comes first: with many sessions the count table would
	// otherwise spend the budget before a failing session is drawn
	g.failingSessionsSection(&s, r)

	s.line("")
	s.line("### Findings per signal")
	s.line("")
	head := "| session | label |"
	rule := "|---|---|"
	for _, sig := range checks.Signals() {
		head += " " + sig.String() + " |"
		rule += "--:|"
	}
	s.line("%s suppressed | failed |", head)
	s.line("%s--:|---|", rule)
	rows := func(yield func(string) bool) {
		for ses := range r.AllSessions() {
			if !yield(ghCountRow(ses, r.Gate)) {
				return
			}
		}
	}
	s.until = s.b.Len() + ghCountShare
	n := s.section(nil, rows)
	s.until = 0
	if n > 0 {
		s.line("")
		s.line("%s not shown.", countNoun(n, "more session", "more sessions"))
	}

	g.coverageSection(&s, r)

	assertionsHead := func() {
		s.line("")
		s.line("### Failed assertions")
		s.line("")
	}
	if n := s.section(assertionsHead, g.failedAssertions(r)); n > 0 {
		s.line("")
		s.line("%s not shown.", countNoun(n, "more failed assertion", "more failed assertions"))
	}

	s.drift(r)

	findingsHead := func() {
		s.line("")
		s.line("### Findings")
		s.line("")
		s.line("| level | session | location | rule | message |")
		s.line("|---|---|---|---|---|")
	}
	if n := s.section(findingsHead, g.findingRows(r)); n > 0 {
		s.line("")
		s.line("%s not shown; the text, JSON and SARIF reports have them all.", countNoun(n, "more finding", "more findings"))
	}
	s.line("")
	return s.text()
}

// ghVerdict is the one-line outcome.
func ghVerdict(r *result.Result) string {
	findings, gated, suppressed, failedAssertions := 0, 0, 0, 0
	sessions := 0
	for s := range r.AllSessions() {
		sessions++
		suppressed += s.CountSuppressed()
		for _, f := range s.Findings {
			findings += 1 + f.Also // one that stands for several counts them all
			if f.Gated {
				gated += 1 + f.Also
			}
		}
		for _, a := range s.Assertions {
			if !a.Passed {
				failedAssertions++
			}
		}
	}
	verdict := "**Check passed**"
	if !r.Passed {
		verdict = "**Check failed**"
	}
	return fmt.Sprintf("%s: %s, %s (%d failing the gate, %d suppressed), %s; gate `%s`, exit code %d.",
		verdict, countNoun(sessions, "session", "sessions"), countNoun(findings, "finding", "findings"),
		gated, suppressed, countNoun(failedAssertions, "failed assertion", "failed assertions"), ghMarkdown(r.Gate.String()), r.ExitCode)
}

// limits says which reports are capped, and what the caps left out of this
// run's: a reader of the summary learns where to find every finding.
func (g *GitHub) limits(r *result.Result) string {
	listed, folded := 0, 0
	per := map[string]int{}
	for s := range r.AllSessions() {
		for _, f := range s.Findings {
			listed++
			folded += f.Also
			if f.Suppressed == nil {
				per[ghLevel(f)]++
			}
		}
		for _, a := range s.Assertions {
			if !a.Passed {
				per["error"]++
			}
		}
	}
	var left []string
	if listed > MaxSARIFResults {
		left = append(left, fmt.Sprintf("SARIF left out %d findings", listed-(MaxSARIFResults-1)))
	}
	limit := map[string]int{"error": ghCap, "warning": ghCap, "notice": ghCap}
	if per["error"] > ghCap || per["warning"] > ghCap || per["notice"] > ghCap {
		limit["notice"] = ghCap - 1 // as ghWriteAnnotations keeps a slot for its notice
	}
	hidden := 0
	for level, n := range per {
		hidden += max(n-limit[level], 0)
	}
	if hidden > 0 {
		left = append(left, countNoun(hidden, "finding or failed assertion was", "findings or failed assertions were")+" not annotated")
	}
	if folded > 0 {
		left = append(left, fmt.Sprintf("%d occurrences are counted on findings that stand for them (a rule lists at most %d per session)", folded, checks.MaxFindingsPerRule))
	}
	text := fmt.Sprintf("Capped: annotations (%d per level) and SARIF (%d results, the gated first). Text, JSON and JUnit list every finding; a rule lists at most %d per session there and counts the rest.",
		ghCap, MaxSARIFResults, checks.MaxFindingsPerRule)
	if len(left) > 0 {
		text += " In this run, " + strings.Join(left, "; ") + "."
	}
	return text
}

// ghCountRow is one session's counts; a count that fails the gate is bold.
func ghCountRow(s *result.SessionResult, g result.Gate) string {
	row := "| " + ghMarkdown(s.ID) + " | " + ghMarkdown(s.Label) + " |"
	for _, sig := range checks.Signals() {
		n := s.Count(sig)
		if n > 0 && g.SelectsSignal(sig) {
			row += fmt.Sprintf(" **%d** |", n)
		} else {
			row += fmt.Sprintf(" %d |", n)
		}
	}
	row += fmt.Sprintf(" %d |", s.CountSuppressed())
	failed := "—"
	if f := s.FailedSignals(g); len(f) > 0 {
		failed = ghMarkdown(strings.Join(f, ", "))
	}
	return row + " " + failed + " |"
}

// failedAssertions are list items, one per failed assertion.
func (g *GitHub) failedAssertions(r *result.Result) iter.Seq[string] {
	return func(yield func(string) bool) {
		for s := range r.AllSessions() {
			for _, a := range s.Assertions {
				if !a.Passed && !yield(fmt.Sprintf("- session %s, %s %s: %s",
					ghMarkdown(s.ID), ghMarkdown(a.Name), ghMarkdown(a.Arg), ghMarkdown(a.Message))) {
					return
				}
			}
		}
		for _, a := range r.RunAssertions {
			if !a.Passed && !yield(fmt.Sprintf("- the run, %s %s: %s", ghMarkdown(a.Name), ghMarkdown(a.Arg), ghMarkdown(a.Message))) {
				return
			}
		}
	}
}

// findingRows are table rows, gated findings first, so a truncated summary
// still shows what failed the run; suppressed findings are only counted.
func (g *GitHub) findingRows(r *result.Result) iter.Seq[string] {
	return func(yield func(string) bool) {
		for f := range r.GatedFirst() {
			if f.Suppressed != nil {
				continue
			}
			file := f.File
			if file != session.StdinName {
				file = g.path(file)
			}
			level := "note"
			if f.Gated {
				level = "**error**"
			}
			if !yield(fmt.Sprintf("| %s | %s | %s | %s | %s |", level, ghMarkdown(f.Session),
				ghMarkdown(strings.TrimSuffix(location(file, f.Line), ":")), ghMarkdown(f.Rule), ghMarkdown(f.Message))) {
				return
			}
		}
	}
}

// ghMarkdownEscaper neutralises capture text in Markdown: HTML becomes
// entities, and the characters that open code, emphasis, links, tables,
// strikethrough, math and mentions are backslash-escaped.
var ghMarkdownEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "`", "\\`", "|", `\|`, "*", `\*`, "_", `\_`,
	"[", `\[`, "]", `\]`, "~", `\~`, "$", `\$`, "@", `\@`,
	"\r", " ", "\n", " ",
)

// ghMarkdown escapes text for a table cell or list item, one line, at most
// ghCellMax runes.
func ghMarkdown(s string) string {
	return printable(ghMarkdownEscaper.Replace(ghTruncate(s, ghCellMax)))
}

// ghTruncate cuts s after max runes, marking the cut.
func ghTruncate(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// coverageSection is the run's coverage per server label (spec §5.2), the
// rules that had nothing to judge, and the findings an earlier report
// already held; nothing for a result without usage (made by hand).
func (g *GitHub) coverageSection(s *ghSummary, r *result.Result) {
	if r.Usage == nil || len(r.Usage.Servers) == 0 {
		return
	}
	s.line("")
	s.line("### Coverage")
	s.line("")
	s.line("| server | tools called successfully | never called | prompts | resources |")
	s.line("|---|--:|---|--:|--:|")
	rows := func(yield func(string) bool) {
		for _, sv := range r.Usage.Servers {
			tools, prompts, resources := "not listed", "—", "—"
			if sv.Tools.Listed {
				tools = fmt.Sprintf("%d/%d (%.0f%%)", sv.Tools.Succeeded, sv.Tools.Advertised, sv.Tools.Percent())
			}
			if sv.Prompts.Listed {
				prompts = fmt.Sprintf("%d/%d", sv.Prompts.Succeeded, sv.Prompts.Advertised)
			}
			if sv.Resources.Listed {
				resources = fmt.Sprintf("%d/%d", sv.Resources.Succeeded, sv.Resources.Advertised)
			}
			if !yield(fmt.Sprintf("| %s | %s | %s | %s | %s |", ghMarkdown(labelOrUnlabelled(sv.Label)), tools,
				ghMarkdown(strings.Join(sv.Tools.NeverCalled, ", ")), prompts, resources)) {
				return
			}
		}
	}
	if n := s.section(nil, rows); n > 0 {
		s.line("")
		s.line("%s not shown.", countNoun(n, "more server", "more servers"))
	}
	if n := r.Usage.LabelCapNote(); n != "" {
		s.line("")
		s.line("**Note:** %s.", n)
	}
	var notObserved []string
	for _, st := range RuleStates(r) {
		if st.Status == StatusNotObserved {
			notObserved = append(notObserved, st.Rule.ID)
		}
	}
	if len(notObserved) > 0 {
		s.line("")
		s.line("Not observed (nothing in the captures for them to judge): %s.", ghMarkdown(strings.Join(notObserved, ", ")))
	}
	for _, l := range UnjudgedGated(r) {
		s.line("")
		s.line("**Note:** %s.", ghMarkdown(l))
	}
	if r.NewFrom != "" {
		existing := 0
		for ses := range r.AllSessions() {
			for _, f := range ses.Findings {
				if f.Existing {
					existing++
				}
			}
		}
		s.line("")
		s.line("%s already in %s (existing, not gated); every other finding is new.", countNoun(existing, "finding was", "findings were"), ghMarkdown(r.NewFrom))
	}
}
