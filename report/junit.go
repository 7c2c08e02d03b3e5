package report

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

func init() { Register("junit", func(o Options) Reporter { return &JUnit{opts: o} }) }

// JUnit renders one <testsuite> per session and one <testcase> per signal
// and per assertion group, for CI test tabs (GitLab, Jenkins, Buildkite).
//
// A signal's case fails when some of its findings fail the gate; the
// failure lists those findings and <system-out> lists the signal's other
// findings. Paths are written as given, like the text format, so the lines
// in failure bodies read the same as the text report.
type JUnit struct{ opts Options }

// xmlHeader is written by hand: the junit package writes no declaration.
const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// Report writes the document as it goes, one suite per session (spec
// §2.4): a first pass over the sessions adds up the totals the root element
// carries, a second writes each suite as the junit package would.
func (j *JUnit) Report(w io.Writer, r *result.Result) error {
	root := junit.Testsuites{Name: "mcpcheck"}
	b := junitSuites{r: r, first: map[string]int{}}
	for s := range r.AllSessions() {
		ts := b.suite(s)
		root.Tests += ts.Tests
		root.Errors += ts.Errors
		root.Failures += ts.Failures
		root.Skipped += ts.Skipped
		root.Disabled += ts.Disabled
	}
	start, err := xml.Marshal(root)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, writeBufferSize)
	bw.WriteString(xmlHeader)
	bw.Write(bytes.TrimSuffix(start, []byte("</testsuites>")))
	// Each suite is written as an xml.Encoder indented as nested in the
	// root by junit.Testsuites.WriteXML would write it (xmlWriter). A "]]>"
	// inside the CDATA fields is split into two sections, so capture text
	// cannot close them early; characters XML cannot carry are dropped by
	// xmlSafe beforehand.
	b.next = 0
	cases := caseCache{}
	for s := range r.AllSessions() {
		bw.WriteByte('\n')
		x := xmlWriter{w: bw, prefix: "\t", indent: "\t", cases: cases}
		x.suite(b.suite(s))
	}
	if b.next > 0 {
		bw.WriteByte('\n')
	}
	bw.WriteString("</testsuites>\n")
	return bw.Flush()
}

// junitSuites makes the run's suites in session order, each in the same
// memory: a suite is written before the next is made.
type junitSuites struct {
	r     *result.Result
	next  int            // the next suite's id
	first map[string]int // the first suite of each label carries its run-wide coverage
	ts    junit.Testsuite
	props []junit.Property
}

// suite is session s's suite, its signal cases and then its assertion
// groups; it holds until the next call.
func (b *junitSuites) suite(s *result.SessionResult) *junit.Testsuite {
	id := b.next
	b.next++
	if _, ok := b.first[s.Label]; !ok {
		b.first[s.Label] = id
	}
	ts := &b.ts
	*ts = junit.Testsuite{
		Name:      junitText(s.ID),
		ID:        id,
		Time:      "0.000", // required by the schema; mcpcheck times nothing
		File:      junitText(s.File),
		Testcases: ts.Testcases[:0],
	}
	b.props = append(b.props[:0],
		junit.Property{Name: "file", Value: ts.File},
		junit.Property{Name: "label", Value: junitText(s.Label)},
		junit.Property{Name: "revision", Value: junitText(s.Revision)},
		junit.Property{Name: "transport", Value: junitText(s.Transport)},
		junit.Property{Name: "frames", Value: strconv.FormatInt(s.Frames, 10)},
		junit.Property{Name: "missing_frames", Value: strconv.FormatInt(s.MissingFrames, 10)})
	var present [checks.NumSignals]bool
	for _, f := range s.Findings {
		if f.Suppressed == nil && f.Signal < checks.NumSignals {
			present[f.Signal] = true
		}
	}
	for _, sig := range checks.Signals() {
		if present[sig] {
			ts.AddTestcase(signalCase(sig, s.Findings))
		} else {
			ts.AddTestcase(junit.Testcase{Name: sig.String(), Classname: signalClassnames[sig]})
		}
	}
	if tc, ok := suppressedCase(s.Findings); ok {
		ts.AddTestcase(tc)
	}
	for _, group := range assertionGroups(s.Assertions) {
		ts.AddTestcase(assertionCase(group))
	}
	for i, rule := range b.r.Rules {
		if s.NotObserved(i) {
			ts.AddTestcase(junit.Testcase{Name: rule.ID, Classname: signalClassnames[rule.Signal], Skipped: &notObserved})
		}
	}
	if b.first[s.Label] == id {
		b.props = runWide(ts, b.props, s.Label, b.r)
	}
	ts.Properties = &b.props
	return ts
}

// notObserved is every not-observed case's result; the writer only reads it.
var notObserved = junit.Result{Message: StatusNotObserved + ": nothing in this session for the rule to judge"}

// signalClassnames are the cases' class names by signal, made once rather
// than for each rule of each session.
var signalClassnames = func() (names [checks.NumSignals]string) {
	for _, sig := range checks.Signals() {
		names[sig] = "mcpcheck." + sig.String()
	}
	return names
}()

// runWide adds to the first suite of a server label what the run says of
// the label across every capture (spec §5.2): its coverage as properties,
// appended to props, and its run-wide assertions as cases.
func runWide(ts *junit.Testsuite, props []junit.Property, label string, r *result.Result) []junit.Property {
	prop := func(name, value string) { props = append(props, junit.Property{Name: name, Value: value}) }
	if sv := r.Usage.Server(label); sv != nil {
		prop("coverage_tools", fmt.Sprintf("%d/%d", sv.Tools.Succeeded, sv.Tools.Advertised))
		prop("coverage_tools_percent", strconv.FormatFloat(sv.Tools.Percent(), 'f', 1, 64))
		prop("coverage_tools_never_called", junitText(strings.Join(sv.Tools.NeverCalled, ",")))
		if sv.Prompts.Listed {
			prop("coverage_prompts", fmt.Sprintf("%d/%d", sv.Prompts.Succeeded, sv.Prompts.Advertised))
		}
		if sv.Resources.Listed {
			prop("coverage_resources", fmt.Sprintf("%d/%d", sv.Resources.Succeeded, sv.Resources.Advertised))
		}
	}
	prefix := "server " + labelOrUnlabelled(label) + ":"
	for _, a := range r.RunAssertions {
		if !strings.HasPrefix(a.Message, prefix) {
			continue
		}
		tc := junit.Testcase{Name: a.Name, Classname: "mcpcheck.assertion." + a.Name}
		if a.Passed {
			tc.SystemOut = &junit.Output{Data: junitText(a.Message) + "\n"}
		} else {
			tc.Failure = &junit.Result{Message: junitText(a.Message)}
		}
		ts.AddTestcase(tc)
	}
	return props
}

func labelOrUnlabelled(l string) string {
	if l == "" {
		return "(unlabelled)"
	}
	return l
}

// signalCase is one signal's test case. Counting gated findings, rather
// than asking whether the whole signal is gated, also fails a signal when
// --fail-on names only one of its rules.
func signalCase(sig checks.Signal, findings []*result.Finding) junit.Testcase {
	tc := junit.Testcase{Name: sig.String(), Classname: signalClassnames[sig]}
	var failing, other []string
	failed := 0 // findings standing for several occurrences count as many
	for _, f := range findings {
		if f.Signal != sig || f.Suppressed != nil {
			continue
		}
		if f.Gated {
			failing = append(failing, findingLine(f))
			failed += 1 + f.Also
		} else {
			other = append(other, findingLine(f))
		}
	}
	if len(failing) > 0 {
		tc.Failure = &junit.Result{
			Message: countNoun(failed, sig.String()+" finding", sig.String()+" findings"),
			Data:    strings.Join(failing, ""),
		}
	}
	if len(other) > 0 {
		tc.SystemOut = &junit.Output{Data: strings.Join(other, "")}
	}
	return tc
}

// suppressedCase is the session's suppressed findings as one skipped case,
// each with its reason; ok is false when there are none.
func suppressedCase(findings []*result.Finding) (tc junit.Testcase, ok bool) {
	var lines []string
	n := 0
	for _, f := range findings {
		if f.Suppressed != nil {
			lines = append(lines, findingLine(f))
			n += 1 + f.Also
		}
	}
	if n == 0 {
		return tc, false
	}
	return junit.Testcase{
		Name: "suppressed", Classname: "mcpcheck.suppressed",
		Skipped: &junit.Result{Message: countNoun(n, "suppressed finding", "suppressed findings"), Data: strings.Join(lines, "")},
	}, true
}

// findingLine is FILE:LINE: message (rule-id), or for a suppressed finding
// FILE:LINE: message (suppressed: REASON) (rule-id), then its related
// locations indented, each line ending in a newline.
func findingLine(f *result.Finding) string {
	var b strings.Builder
	b.WriteString(junitText(location(f.File, f.Line)))
	b.WriteByte(' ')
	b.WriteString(junitText(flatten(f.Message)))
	b.WriteString(suppressedNote(f))
	b.WriteString(existingNote(f))
	b.WriteString(" (" + f.Rule + ")\n")
	for _, rel := range f.Related {
		b.WriteString("\trelated: " + junitText(location(rel.File, rel.Line)) + " " + junitText(flatten(rel.Message)) + "\n")
	}
	return xmlSafe(b.String())
}

// flatten keeps one finding on one line of a body, whatever a message holds.
func flatten(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s // as most messages are: Replace would copy it
	}
	return lineBreaks.Replace(s)
}

// lineBreaks is made once: a Replacer builds its tables on first use.
var lineBreaks = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ")

// assertionGroup is every outcome of one assertion kind in a session, so
// repeated --expect-tool flags make one case, not one per tool.
type assertionGroup struct {
	name string
	list []result.Assertion
}

// assertionGroups groups by name in order of first appearance.
func assertionGroups(as []result.Assertion) []assertionGroup {
	var groups []assertionGroup
	index := map[string]int{}
	for _, a := range as {
		i, ok := index[a.Name]
		if !ok {
			i = len(groups)
			index[a.Name] = i
			groups = append(groups, assertionGroup{name: a.Name})
		}
		groups[i].list = append(groups[i].list, a)
	}
	return groups
}

// assertionCase fails when any assertion of the group failed; messages of
// the ones that held go to <system-out>.
func assertionCase(g assertionGroup) junit.Testcase {
	tc := junit.Testcase{Name: junitText(g.name), Classname: "mcpcheck.assertion"}
	var failed, held []string
	for _, a := range g.list {
		line := junitText(flatten(a.Message)) + "\n"
		if a.Passed {
			held = append(held, line)
		} else {
			failed = append(failed, line)
		}
	}
	if len(failed) > 0 {
		tc.Failure = &junit.Result{
			Message: junitText(fmt.Sprintf("%d of %s failed", len(failed), countNoun(len(g.list), g.name+" assertion", g.name+" assertions"))),
			Data:    strings.Join(failed, ""),
		}
	}
	if len(held) > 0 {
		tc.SystemOut = &junit.Output{Data: strings.Join(held, "")}
	}
	return tc
}

// junitText is capture text as JUnit carries it: what XML cannot carry
// dropped (xmlSafe), then what would reorder or break the text a CI page
// shows escaped as every reporter escapes it (printable): bidirectional
// controls, line and paragraph separators, C1 controls, tab and newline
// inside a value.
func junitText(s string) string { return printable(xmlSafe(s)) }

// xmlSafe drops every character XML 1.0 cannot carry: C0 controls other
// than tab, LF and CR, U+FFFE and U+FFFF, and bytes that are not UTF-8
// (which include encoded surrogates). encoding/xml would replace some of
// them in attributes but writes CDATA verbatim, and a parser rejects the
// whole document on one such character.
func xmlSafe(s string) string {
	if xmlClean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if xmlChar(r, size) {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// xmlClean is the fast path: most strings need no copy.
func xmlClean(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !xmlChar(r, size) {
			return false
		}
		i += size
	}
	return true
}

// xmlChar is the XML 1.0 Char production; a one-byte RuneError is a byte
// that is not UTF-8.
func xmlChar(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return false
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20:
		return false
	case r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
		return false
	}
	return r <= 0x10FFFF
}

// countNoun is "1 finding" or "3 findings".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
