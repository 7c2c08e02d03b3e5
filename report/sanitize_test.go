package report

import (
	"strings"
	"testing"
)

// Capture text cannot reorder or break what a terminal, a log or a browser
// shows: separators and bidirectional controls are escaped like C0 and C1
// controls, in text and in GitHub annotations and summaries alike.
func TestPrintableEscapesSeparatorsAndBidiControls(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"a\u2028b":            `a\u2028b`,
		"a\u2029b":            `a\u2029b`,
		"access\u202e\u2066x": `access\u202e\u2066x`,
		"\u200e\u200f\u061c":  `\u200e\u200f\u061c`,
		"\u202a\u202b\u202c\u202d\u2067\u2068\u2069": `\u202a\u202b\u202c\u202d\u2067\u2068\u2069`,
		"bell\a\x1b[2J\u0085":                        `bell\u0007\u001b[2J\u0085`,
		"naïve 🙂 ok":                                 "naïve 🙂 ok",
		"zero\u200dwidth join":                       "zero\u200dwidth join", // joins emoji; reorders nothing
		"plain ascii del\x7f":                        `plain ascii del\u007f`,
		"esc\x1b[31m only":                           `esc\u001b[31m only`,
		"ascii, then a bad \xff byte":                "ascii, then a bad \ufffd byte",
		"é, then del\x7f":                            `é, then del\u007f`,
	}
	for in, want := range cases {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
		if got := ghEscapeData(in); got != strings.ReplaceAll(want, "%", "%25") {
			t.Errorf("ghEscapeData(%q) = %q", in, got)
		}
		if strings.ContainsAny(ghMarkdown(in), "\u2028\u2029\u202e\u2066") {
			t.Errorf("ghMarkdown(%q) keeps a separator or bidi control", in)
		}
	}
}
