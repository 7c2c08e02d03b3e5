package report

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/jstemmer/go-junit-report/v2/junit"
)

// encodeSuiteXML is how the JUnit report wrote a suite before xmlWriter:
// encoding/xml, indented as nested in the root.
func encodeSuiteXML(t testing.TB, ts *junit.Testsuite) []byte {
	var b bytes.Buffer
	enc := xml.NewEncoder(&b)
	enc.Indent("\t", "\t")
	if err := enc.EncodeElement(ts, xml.StartElement{Name: xml.Name{Local: "testsuite"}}); err != nil {
		t.Fatal(err)
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeSuite writes ts by hand, its plain cases kept in cases (or not
// kept, when it is nil).
func writeSuite(ts *junit.Testsuite, cases caseCache) []byte {
	var b bytes.Buffer
	bw := bufio.NewWriter(&b)
	x := xmlWriter{w: bw, prefix: "\t", indent: "\t", cases: cases}
	x.suite(ts)
	bw.Flush()
	return b.Bytes()
}

// TestJUnitSuiteWriterIsEncodingXML: every suite the report writes by hand
// is, byte for byte, what encoding/xml wrote: the sample run's sessions,
// and suites of awkward strings (raw, not made safe first, as xmlWriter
// may be given them) with every field a suite, case, result and output
// may have set or not, empty and nil lists among them.
func TestJUnitSuiteWriterIsEncodingXML(t *testing.T) {
	r := sampleResult(t)
	var suites []junit.Testsuite
	b := junitSuites{r: r, first: map[string]int{}}
	for s := range r.AllSessions() {
		ts := *b.suite(s)
		props := slices.Clone(*ts.Properties) // the next suite reuses both
		ts.Testcases, ts.Properties = slices.Clone(ts.Testcases), &props
		suites = append(suites, ts)
	}
	if len(suites) == 0 {
		t.Fatal("the sample has no sessions")
	}
	rng := rand.New(rand.NewPCG(26, 21))
	pick := func() string {
		if rng.IntN(5) == 0 {
			return ""
		}
		return junitAwkward[rng.IntN(len(junitAwkward))] + junitAwkward[rng.IntN(len(junitAwkward))]
	}
	maybe := func() int { return rng.IntN(3) * rng.IntN(4) }
	result := func() *junit.Result {
		if rng.IntN(3) == 0 {
			return nil
		}
		return &junit.Result{Message: pick(), Type: pick(), Data: pick()}
	}
	output := func() *junit.Output {
		if rng.IntN(3) == 0 {
			return nil
		}
		return &junit.Output{Data: pick()}
	}
	for range 300 {
		ts := junit.Testsuite{Name: pick(), Tests: maybe(), Failures: maybe(), Errors: maybe(), ID: maybe(),
			Disabled: maybe(), Hostname: pick(), Package: pick(), Skipped: maybe(), Time: pick(), Timestamp: pick(), File: pick(),
			SystemOut: output(), SystemErr: output()}
		switch rng.IntN(3) {
		case 0: // no properties
		case 1:
			ts.Properties = &[]junit.Property{}
		default:
			for range 1 + rng.IntN(3) {
				ts.AddProperty(pick(), pick())
			}
		}
		for range rng.IntN(4) {
			ts.Testcases = append(ts.Testcases, junit.Testcase{Name: pick(), Classname: pick(), Time: pick(), Status: pick(),
				Skipped: result(), Error: result(), Failure: result(), SystemOut: output(), SystemErr: output()})
		}
		for range rng.IntN(4) { // plain cases, which the writer keeps written
			tc := junit.Testcase{Name: junitAwkward[rng.IntN(4)], Classname: junitAwkward[rng.IntN(4)]}
			if rng.IntN(2) == 0 {
				tc.Skipped = &notObserved
			}
			i := rng.IntN(len(ts.Testcases) + 1)
			ts.Testcases = slices.Insert(ts.Testcases, i, tc)
		}
		suites = append(suites, ts)
	}
	// A plain case alone in a suite: the end tag that follows it must
	// start a line.
	for _, skipped := range []*junit.Result{nil, &notObserved} {
		suites = append(suites, junit.Testsuite{Name: "alone", Testcases: []junit.Testcase{{Name: "error", Classname: "mcpcheck.error", Skipped: skipped}}})
	}
	cases := caseCache{}
	for i := range suites {
		want := encodeSuiteXML(t, &suites[i])
		for _, cache := range []caseCache{nil, cases} {
			if got := writeSuite(&suites[i], cache); !bytes.Equal(got, want) {
				t.Fatalf("suite %d (cases kept: %v):\nwritten      %q\nencoding/xml %q", i, cache != nil, got, want)
			}
		}
	}
	if len(cases) < 8 {
		t.Fatalf("only %d plain cases kept: the test proves little", len(cases))
	}
}

// junitAwkward adds what only XML escapes or replaces to the strings
// every writer is tried with.
var junitAwkward = append(slices.Clone(awkward), "it's 'single'", "\u00a0nbsp", "real \ufffd", "\U0010FFFF last", "\ufffe\uffff", "\ud7ff\ue000")

// FuzzJUnitSuiteWriter: any text in any field is written as encoding/xml
// writes it.
func FuzzJUnitSuiteWriter(f *testing.F) {
	for _, s := range junitAwkward {
		f.Add(s, s, s)
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ts := junit.Testsuite{Name: a, Time: b, File: c}
		ts.AddProperty(b, c)
		ts.AddTestcase(junit.Testcase{Name: c, Classname: a, Failure: &junit.Result{Message: b, Data: c}, SystemOut: &junit.Output{Data: a}})
		ts.AddTestcase(junit.Testcase{Name: b, Classname: c, Skipped: &junit.Result{Message: a}})
		ts.AddTestcase(junit.Testcase{Name: a, Classname: b, Skipped: &notObserved})
		ts.AddTestcase(junit.Testcase{Name: c, Classname: a})
		want := encodeSuiteXML(t, &ts)
		cases := caseCache{}
		for range 2 { // the second time, the plain cases come from cases
			if got := writeSuite(&ts, cases); !bytes.Equal(got, want) {
				t.Fatalf("written      %q\nencoding/xml %q", got, want)
			}
		}
	})
}
