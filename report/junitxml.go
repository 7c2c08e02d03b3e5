package report

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jstemmer/go-junit-report/v2/junit"
)

// xmlWriter writes elements as encoding/xml's Encoder does with
// Indent(prefix, indent), byte for byte, without reflection: a session's
// suite has a case per signal and per rule not observed, and encoding
// them by reflection was most of a many-session run's time (20k
// sessions: 3.6 s of 5.3). Its state is the Encoder's printer's.
type xmlWriter struct {
	w              *bufio.Writer
	prefix, indent string
	depth          int
	indentedIn     bool // the last thing written was a start tag
	putNewline     bool // something was written: the next indent starts a line
	cases          caseCache
}

// caseCache holds, as written, the cases every suite has alike: a signal
// without findings, a rule not observed. Most of a suite is such cases.
type caseCache map[plainCase][]byte

// plainCase is a case with a name, a class name and at most the
// not-observed result, at a depth.
type plainCase struct {
	name, classname string
	notObserved     bool
	depth           int
}

// writeIndent is encoding/xml's printer.writeIndent.
func (x *xmlWriter) writeIndent(depthDelta int) {
	if depthDelta < 0 {
		x.depth--
		if x.indentedIn {
			x.indentedIn = false
			return // an element without children closes on its own line
		}
	}
	if x.putNewline {
		x.w.WriteByte('\n')
	} else {
		x.putNewline = true
	}
	x.w.WriteString(x.prefix)
	for range x.depth {
		x.w.WriteString(x.indent)
	}
	if depthDelta > 0 {
		x.depth++
		x.indentedIn = true
	}
}

// open writes a start tag's name; attributes follow, then opened.
func (x *xmlWriter) open(name string) {
	x.writeIndent(1)
	x.w.WriteByte('<')
	x.w.WriteString(name)
}

func (x *xmlWriter) attr(name, value string) {
	x.w.WriteByte(' ')
	x.w.WriteString(name)
	x.w.WriteString(`="`)
	x.escape(value)
	x.w.WriteByte('"')
}

func (x *xmlWriter) attrInt(name string, v int) {
	x.w.WriteByte(' ')
	x.w.WriteString(name)
	x.w.WriteString(`="`)
	x.w.WriteString(strconv.Itoa(v))
	x.w.WriteByte('"')
}

// opened ends the start tag.
func (x *xmlWriter) opened() { x.w.WriteByte('>') }

func (x *xmlWriter) close(name string) {
	x.writeIndent(-1)
	x.w.WriteString("</")
	x.w.WriteString(name)
	x.w.WriteByte('>')
}

// escape writes s as encoding/xml escapes an attribute (xml.EscapeText,
// which its printer's EscapeString matches): the runs between characters
// to escape are written as they are, without a copy.
func (x *xmlWriter) escape(s string) {
	done := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if esc := xmlEscapes[c]; esc != "" {
				x.w.WriteString(s[done : i-1])
				x.w.WriteString(esc)
				done = i
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !xmlChar(r, size) {
			x.w.WriteString(s[done:i])
			x.w.WriteString("\uFFFD") // what XML cannot carry, or not UTF-8
			done = i + size
		}
		i += size
	}
	x.w.WriteString(s[done:])
}

// xmlEscapes are xml.EscapeText's replacements of ASCII characters: the
// markup characters, tab and line breaks as references, and the other C0
// controls, which XML cannot carry, as U+FFFD.
var xmlEscapes = func() (esc [utf8.RuneSelf]string) {
	for c := range byte(0x20) {
		esc[c] = "\uFFFD"
	}
	esc['"'], esc['\''], esc['&'], esc['<'], esc['>'] = "&#34;", "&#39;", "&amp;", "&lt;", "&gt;"
	esc['\t'], esc['\n'], esc['\r'] = "&#x9;", "&#xA;", "&#xD;"
	return esc
}()

// cdata is encoding/xml's emitCDATA: nothing for an empty text, and a
// "]]>" inside split across two sections.
func (x *xmlWriter) cdata(s string) {
	if s == "" {
		return
	}
	x.w.WriteString("<![CDATA[")
	for {
		before, after, ok := strings.Cut(s, "]]>")
		if !ok {
			break
		}
		x.w.WriteString(before)
		x.w.WriteString("]]]]><![CDATA[>")
		s = after
	}
	x.w.WriteString(s)
	x.w.WriteString("]]>")
}

// suite writes ts as encoding/xml encodes a junit.Testsuite, named
// "testsuite": its attributes in the struct's order, the omitempty ones
// only when set.
func (x *xmlWriter) suite(ts *junit.Testsuite) {
	x.open("testsuite")
	x.attr("name", ts.Name)
	x.attrInt("tests", ts.Tests)
	x.attrInt("failures", ts.Failures)
	x.attrInt("errors", ts.Errors)
	x.attrInt("id", ts.ID)
	x.attrIntSet("disabled", ts.Disabled)
	x.attrSet("hostname", ts.Hostname)
	x.attrSet("package", ts.Package)
	x.attrIntSet("skipped", ts.Skipped)
	x.attr("time", ts.Time)
	x.attrSet("timestamp", ts.Timestamp)
	x.attrSet("file", ts.File)
	x.opened()
	if ts.Properties != nil { // a non-nil empty list still writes its parent
		x.open("properties")
		x.opened()
		for _, p := range *ts.Properties {
			x.open("property")
			x.attr("name", p.Name)
			x.attr("value", p.Value)
			x.opened()
			x.close("property")
		}
		x.close("properties")
	}
	for i := range ts.Testcases {
		x.testcase(&ts.Testcases[i])
	}
	x.output("system-out", ts.SystemOut)
	x.output("system-err", ts.SystemErr)
	x.close("testsuite")
}

// testcase writes tc, from the cache when it is a plain case. It is
// written the same anywhere in a suite: there, an indent always starts a
// new line, and a start tag indents whatever came before.
func (x *xmlWriter) testcase(tc *junit.Testcase) {
	key, ok := x.plain(tc)
	if !ok {
		x.writeTestcase(tc)
		return
	}
	written, ok := x.cases[key]
	if !ok {
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		alone := xmlWriter{w: w, prefix: x.prefix, indent: x.indent, depth: x.depth, putNewline: true}
		alone.writeTestcase(tc)
		w.Flush()
		written = buf.Bytes()
		x.cases[key] = written
	}
	x.w.Write(written)
	x.indentedIn = false
}

// plain is tc's key in the cache, if it is a plain case the writer keeps.
func (x *xmlWriter) plain(tc *junit.Testcase) (plainCase, bool) {
	if x.cases == nil || !x.putNewline || len(x.cases) >= maxCachedCases || tc.Time != "" || tc.Status != "" ||
		tc.Error != nil || tc.Failure != nil || tc.SystemOut != nil || tc.SystemErr != nil ||
		tc.Skipped != nil && tc.Skipped != &notObserved {
		return plainCase{}, false
	}
	return plainCase{tc.Name, tc.Classname, tc.Skipped != nil, x.depth}, true
}

// maxCachedCases bounds the cache; a catalogue's signals and rules are
// a few dozen.
const maxCachedCases = 1000

func (x *xmlWriter) writeTestcase(tc *junit.Testcase) {
	x.open("testcase")
	x.attr("name", tc.Name)
	x.attr("classname", tc.Classname)
	x.attrSet("time", tc.Time)
	x.attrSet("status", tc.Status)
	x.opened()
	x.result("skipped", tc.Skipped)
	x.result("error", tc.Error)
	x.result("failure", tc.Failure)
	x.output("system-out", tc.SystemOut)
	x.output("system-err", tc.SystemErr)
	x.close("testcase")
}

func (x *xmlWriter) result(name string, r *junit.Result) {
	if r == nil {
		return
	}
	x.open(name)
	x.attr("message", r.Message)
	x.attrSet("type", r.Type)
	x.opened()
	x.cdata(r.Data)
	x.close(name)
}

func (x *xmlWriter) output(name string, o *junit.Output) {
	if o == nil {
		return
	}
	x.open(name)
	x.opened()
	x.cdata(o.Data)
	x.close(name)
}

func (x *xmlWriter) attrSet(name, value string) {
	if value != "" {
		x.attr(name, value)
	}
}

func (x *xmlWriter) attrIntSet(name string, v int) {
	if v != 0 {
		x.attrInt(name, v)
	}
}
