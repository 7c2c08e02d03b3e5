package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

func init() { Register("text", func(o Options) Reporter { return &Text{opts: o} }) }

// Text is the human format (spec §7.1): the findings that fail the gate one
// line each, the others folded into a line per rule and session, a line of
// non-zero counts per session, and one verdict for the whole run.
type Text struct{ opts Options }

const (
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
	ansiCyan   = "\x1b[36m"
	ansiGreen  = "\x1b[32m"
	ansiReset  = "\x1b[0m"
)

// gateMark starts the severity of a finding that fails the gate; the
// verdict says what it means, so an uncoloured log explains itself.
const gateMark = "✗ "

// maxGroupNames bounds the names a grouped line lists.
const maxGroupNames = 6

func (t *Text) paint(color, s string) string {
	if !t.opts.Color {
		return s
	}
	return color + s + ansiReset
}

// verdict is what the closing line adds up over every session.
type verdict struct {
	sessions   int
	gated      [checks.NumSignals]int
	notes      int
	suppressed int
	assertions int // failed
}

func (t *Text) Report(w io.Writer, r *result.Result) error {
	bw := bufio.NewWriter(w)
	writeHeader(bw, t.opts, r)
	var v verdict
	for s := range r.AllSessions() {
		v.sessions++
		for _, f := range s.Findings {
			switch n := 1 + f.Also; {
			case f.Gated:
				v.gated[f.Signal] += n
			case f.Suppressed != nil:
				v.suppressed += n
			default:
				v.notes += n
			}
		}
		t.session(bw, s, r.Gate, &v)
	}
	t.writeRunLines(bw, r)
	t.closing(bw, r, &v)
	return bw.Flush()
}

// session writes one session's findings, counts, drift and gate lines.
func (t *Text) session(bw *bufio.Writer, s *result.SessionResult, g result.Gate, v *verdict) {
	for _, l := range t.findingLines(s) {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	if !t.opts.Quiet {
		if t.opts.Verbose {
			fmt.Fprintln(bw, SummaryLine(s))
		} else {
			fmt.Fprintln(bw, CountsLine(s))
		}
	}
	if block := DriftBlock(s); len(block) > 0 && (!t.opts.Quiet || gatedDrift(s)) {
		if !t.opts.Verbose && !gatedDrift(s) {
			block = foldDrift(block)
		}
		for _, line := range block {
			fmt.Fprintln(bw, line)
		}
	}
	if failed := s.FailedSignals(g); len(failed) > 0 {
		fmt.Fprintf(bw, "%s %s\n", t.paint(ansiRed, "check failed:"), strings.Join(failed, ","))
	}
	for _, a := range s.Assertions {
		if !a.Passed {
			v.assertions++
			fmt.Fprintf(bw, "%s %s: %s\n", t.paint(ansiRed, "assertion failed:"), a.Name, printable(a.Message))
		}
	}
}

// foldDrift is a drift block whose changes fail no gate: its head, which
// says how many, and what was not compared; --verbose lists the changes.
func foldDrift(block []string) []string {
	out := []string{block[0]}
	changes := false
	for _, l := range block[1:] {
		if strings.HasPrefix(l, "  not compared") {
			out = append(out, l)
		} else {
			changes = true
		}
	}
	if changes {
		out[0] += "; --verbose lists the changes"
	}
	return out
}

// findingLines are a session's finding lines in finding order: with
// --verbose one per finding; otherwise findings failing the gate one per
// line (identical ones at one place grouped), the others folded per rule.
func (t *Text) findingLines(s *result.SessionResult) []string {
	if t.opts.Verbose {
		lines := make([]string, 0, len(s.Findings))
		for _, f := range s.Findings {
			lines = append(lines, t.findingLine(f, true))
		}
		return lines
	}
	// Buckets keep the order of their first finding; their keys are made
	// of the findings' own strings, so bucketing allocates no text.
	type key struct {
		kind       int // 0 one gated finding alone, 1 gated alike at one place, 2 suppressed, 3 other
		rule, file string
		line, i    int
		shape      shape
	}
	type bucket struct {
		list []*result.Finding
	}
	var order []*bucket
	byKey := map[key]*bucket{}
	add := func(k key, f *result.Finding) {
		b := byKey[k]
		if b == nil {
			b = &bucket{}
			byKey[k] = b
			order = append(order, b)
		}
		b.list = append(b.list, f)
	}
	for i, f := range s.Findings {
		sh := shapeOf(f.Message)
		switch {
		case f.Gated && (t.opts.ShowFingerprints || sh.name == ""):
			add(key{kind: 0, i: i}, f)
		case f.Gated:
			add(key{kind: 1, rule: f.Rule, file: f.File, line: f.Line, shape: shape{pre: sh.pre, post: sh.post}}, f)
		case t.opts.Quiet:
		case f.Suppressed != nil:
			add(key{kind: 2, rule: f.Rule}, f)
		default:
			add(key{kind: 3, rule: f.Rule}, f)
		}
	}
	lines := make([]string, 0, len(order))
	for _, b := range order {
		if f := b.list[0]; f.Gated || len(b.list) == 1 {
			lines = append(lines, t.bucketLine(b.list))
			continue
		}
		// A rule's other findings: a line per message when they say few
		// things, some of several names; else one line saying how many.
		groups := byTemplate(b.list)
		if len(groups) > maxFoldKinds || len(groups) == len(b.list) {
			lines = append(lines, t.bucketLine(b.list))
			continue
		}
		for _, g := range groups {
			lines = append(lines, t.bucketLine(g))
		}
	}
	return lines
}

// maxFoldKinds is how many different messages a rule's folded findings
// in one session may say and still be shown a line each.
const maxFoldKinds = 3

// byTemplate splits findings into groups whose messages differ at most
// in their first quoted string, in order of first appearance.
func byTemplate(list []*result.Finding) [][]*result.Finding {
	var groups [][]*result.Finding
	at := map[shape]int{}
	for _, f := range list {
		sh := shapeOf(f.Message)
		sh.name = ""
		i, ok := at[sh]
		if !ok {
			i = len(groups)
			at[sh] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], f)
	}
	return groups
}

// bucketLine is the line of findings of one rule that the text shows
// together: one finding as it is; several with one message but for a
// name as that message and the names; otherwise how many there are.
func (t *Text) bucketLine(list []*result.Finding) string {
	f := list[0]
	if len(list) == 1 {
		return t.findingLine(f, t.opts.ShowFingerprints)
	}
	n, worst := 0, checks.SeverityNote
	var names []string
	first := shapeOf(f.Message)
	alike := first.name != ""
	for _, g := range list {
		n += 1 + g.Also
		worst = min(worst, shownSeverity(g))
		sh := shapeOf(g.Message)
		alike = alike && sh.pre == first.pre && sh.post == first.post
		names = append(names, sh.name)
	}
	var msg string
	switch {
	case alike:
		msg = fmt.Sprintf("%d× %s: %s", n, printable(first.template()), printable(nameList(names)))
		if f.Suppressed != nil {
			msg += suppressedNote(f)
		}
	case f.Suppressed != nil:
		msg = fmt.Sprintf("%d %s findings suppressed; --verbose lists them", n, f.Rule)
	default:
		msg = fmt.Sprintf("%d %s %s; --verbose lists them", n, f.Rule, severityNoun(n, worst))
	}
	return fmt.Sprintf("%s %s%s (%s)", printable(location(f.File, f.Line)), t.level(f.Gated, worst), msg, f.Rule)
}

// findingLine is FILE:LINE: SEVERITY MESSAGE (rule-id), with how many a
// folded repeat stands for, the suppression's reason and, when asked, the
// fingerprint.
func (t *Text) findingLine(f *result.Finding, fingerprint bool) string {
	var b strings.Builder
	b.WriteString(printable(location(f.File, f.Line)))
	b.WriteByte(' ')
	b.WriteString(t.level(f.Gated, shownSeverity(f)))
	b.WriteString(printable(f.Message))
	if f.Also > 0 {
		fmt.Fprintf(&b, " (%d more like it)", f.Also)
	}
	b.WriteString(suppressedNote(f))
	b.WriteString(existingNote(f))
	if fingerprint && f.Fingerprint != "" {
		b.WriteString(" [fingerprint " + f.Fingerprint + "]")
	}
	b.WriteString(" (" + f.Rule + ")")
	return b.String()
}

// shownSeverity is the finding's severity; a suppressed finding is shown
// as a note (spec §5.1).
func shownSeverity(f *result.Finding) checks.Severity {
	if f.Suppressed != nil {
		return checks.SeverityNote
	}
	return f.Severity
}

// level is the severity word, marked and red when the finding fails the gate.
func (t *Text) level(gated bool, sev checks.Severity) string {
	word := sev.String()
	if gated {
		return t.paint(ansiBold+ansiRed, gateMark+word) + " "
	}
	color := ansiCyan
	if sev != checks.SeverityNote {
		color = ansiYellow
	}
	return t.paint(color, word) + " "
}

// closing is the one verdict for the whole run: what was read, what fails
// the gate by signal, the notes, and check passed or check failed.
func (t *Text) closing(bw *bufio.Writer, r *result.Result, v *verdict) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s: ", countNoun(len(r.Files), "capture", "captures"), countNoun(v.sessions, "session", "sessions"))
	gated := 0
	var bySignal []string
	for _, sig := range checks.Signals() {
		if n := v.gated[sig]; n > 0 {
			gated += n
			bySignal = append(bySignal, fmt.Sprintf("%s %d", sig, n))
		}
	}
	var parts []string
	if gated > 0 {
		parts = append(parts, fmt.Sprintf("%s the gate (%s, marked %s)", countNoun(gated, "finding fails", "findings fail"), strings.Join(bySignal, ", "), strings.TrimSpace(gateMark)))
	} else {
		parts = append(parts, "nothing fails the gate")
	}
	if v.assertions > 0 {
		parts = append(parts, countNoun(v.assertions, "assertion failed", "assertions failed"))
	}
	if v.notes > 0 {
		parts = append(parts, countNoun(v.notes, "other finding", "other findings")+", not gated")
	}
	if v.suppressed > 0 {
		parts = append(parts, fmt.Sprintf("%d suppressed", v.suppressed))
	}
	b.WriteString(strings.Join(parts, "; ") + "; ")
	if r.Passed {
		b.WriteString(t.paint(ansiGreen, "check passed"))
	} else {
		b.WriteString(t.paint(ansiRed, "check failed"))
	}
	fmt.Fprintln(bw, b.String())
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

// counts are a session's counts in the mcpsnoop `check` order, followed by
// the signals mcpsnoop does not count and the suppressed findings, which
// count under no signal.
func counts(s *result.SessionResult) [][2]any {
	return [][2]any{
		{"errors", s.Count(checks.SignalError)}, {"invalid", s.Count(checks.SignalInvalid)},
		{"warnings", s.Count(checks.SignalWarn)}, {"mismatches", s.Count(checks.SignalMismatch)},
		{"pending", s.Count(checks.SignalPending)}, {"late_results", s.Count(checks.SignalLateResult)},
		{"deprecated", s.Count(checks.SignalDeprecated)}, {"missing_frames", int(s.MissingFrames)},
		{"schema_findings", s.Count(checks.SignalSchema)}, {"contract", s.Count(checks.SignalContract)},
		{"security", s.Count(checks.SignalSecurity)}, {"incomplete", s.Count(checks.SignalIncomplete)},
		{"drift", s.Count(checks.SignalDrift)}, {"suppression", s.Count(checks.SignalSuppression)},
		{"suppressed", s.CountSuppressed()},
	}
}

// SummaryLine is a session's counts in the mcpsnoop `check` shape, every
// count written (text under --verbose).
func SummaryLine(s *result.SessionResult) string {
	var b strings.Builder
	b.WriteString("session " + printable(s.ID) + ":")
	for _, c := range counts(s) {
		fmt.Fprintf(&b, " %s=%d", c[0], c[1])
	}
	return b.String()
}

// CountsLine is a session's non-zero counts, named as SummaryLine names
// them, or "no findings".
func CountsLine(s *result.SessionResult) string {
	var b strings.Builder
	b.WriteString("session " + printable(s.ID) + ":")
	n := 0
	for _, c := range counts(s) {
		if c[1].(int) != 0 {
			fmt.Fprintf(&b, " %s=%d", c[0], c[1])
			n++
		}
	}
	if n == 0 {
		b.WriteString(" no findings")
	}
	return b.String()
}

// location renders FILE:LINE, or FILE alone when the line is unknown.
func location(file string, line int) string {
	if line <= 0 {
		return file + ":"
	}
	return file + ":" + strconv.Itoa(line) + ":"
}

// shape is a message split at its first quoted string: findings whose
// messages differ only there say one thing of several names ("tool "…"
// declares $schema …: create_directory, …"). The parts are substrings of
// the message; name (with its quotes) is "" when it has none.
type shape struct{ pre, name, post string }

func shapeOf(msg string) shape {
	start := strings.IndexByte(msg, '"')
	if start < 0 {
		return shape{pre: msg}
	}
	for i := start + 1; i < len(msg); i++ {
		switch msg[i] {
		case '\\':
			i++
		case '"':
			return shape{msg[:start], msg[start : i+1], msg[i+1:]}
		}
	}
	return shape{pre: msg}
}

// template is the message with its name replaced by "…".
func (s shape) template() string { return s.pre + `"…"` + s.post }

// nameList lists names, plain where a name needs no quotes, at most
// maxGroupNames of them and how many more.
func nameList(names []string) string {
	shown := make([]string, 0, min(len(names), maxGroupNames)+1)
	for i, n := range names {
		if i == maxGroupNames {
			shown = append(shown, fmt.Sprintf("and %d more", len(names)-i))
			break
		}
		if inner := n[1 : len(n)-1]; plainName(inner) {
			n = inner
		}
		shown = append(shown, n)
	}
	return strings.Join(shown, ", ")
}

// plainName is a name that reads unambiguously without quotes in a list.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r == '/' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// severityNoun names findings of one rule by their worst severity: "notes",
// "warnings", "errors".
func severityNoun(n int, sev checks.Severity) string {
	word := map[checks.Severity]string{checks.SeverityError: "error", checks.SeverityWarning: "warning", checks.SeverityNote: "note"}[sev]
	if n == 1 {
		return word
	}
	return word + "s"
}
