package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/suppress"
)

// awkward strings: what encoding/json escapes (quotes, backslashes,
// control characters, invalid UTF-8, U+2028 and U+2029), what it leaves
// alone with HTML escaping off (<, >, &), what jsonSafe escapes after it
// (bidi controls, DEL) and plain text outside ASCII.
var awkward = []string{"", "plain", `"quoted"`, `back\slash`, "tab\there", "line\nbreak", "cr\r", "\b\f", "\x00\x01\x1f",
	"\x7f", "<html>&amp;</html>", "bad \xff utf8 \xc3", "sep\u2028par\u2029", "bidi\u202eevil\u202c", "zero\u200bwidth",
	"café ünïcode 日本", "emoji 🏴\U000E0067\U000E0062\U000E007F", "]]>", "%SRCROOT%", "a b/c d.jsonl"}

// TestSARIFResultWriterIsEncodingJSON: every result the log writes by hand
// is, byte for byte, what encoding/json wrote: the sample run's findings,
// and findings made of awkward strings with every member a result may
// have (related places, a cause, a suppression with and without its
// fields, a baseline state, a finding without a file).
func TestSARIFResultWriterIsEncodingJSON(t *testing.T) {
	base := sampleResult(t)
	var findings []*result.Finding
	for _, s := range base.Sessions {
		findings = append(findings, s.Findings...)
	}
	rng := rand.New(rand.NewPCG(21, 22))
	pick := func() string { return awkward[rng.IntN(len(awkward))] + awkward[rng.IntN(len(awkward))] }
	for n := 0; n < 400; n++ {
		f := *findings[rng.IntN(len(findings))]
		f.Message, f.Subject, f.Session, f.Fingerprint = pick(), pick(), pick(), pick()
		if rng.IntN(4) == 0 {
			f.File = "" // no place: an empty location
		} else if rng.IntN(2) == 0 {
			f.File = "/work/project/" + pick()
		}
		f.Line, f.Seq = rng.IntN(5), int64(rng.IntN(3))
		f.Related = nil
		for range rng.IntN(3) {
			f.Related = append(f.Related, result.Location{File: f.File, Line: rng.IntN(9), Message: pick()})
		}
		f.CausedBy = nil
		if rng.IntN(3) == 0 {
			f.CausedBy = &result.Cause{Rule: "fake-bad-arguments", File: f.File, Line: 3, What: pick()}
		}
		switch rng.IntN(3) {
		case 0:
			f.Suppressed = nil
		case 1:
			f.Suppressed = &suppress.Suppression{Fingerprint: pick(), Reason: pick(), Expires: pick(), File: "/work/project/.mcpcheck-suppressions.json", Line: 3}
		}
		f.Existing = rng.IntN(2) == 0
		findings = append(findings, &f)
	}
	s := &SARIF{opts: testOptions()}
	s.place = newPlacer(s.opts)
	_, index := s.build(base)
	var buf bytes.Buffer
	written := 0
	for _, f := range findings {
		for _, newFrom := range []bool{false, true} {
			res := s.result(f, index, newFrom)
			for _, prefix := range []string{"", "      "} {
				want, err := sarifEncode(&buf, prefix, res)
				if err != nil {
					t.Fatal(err)
				}
				got, ok := sarifResultJSON(nil, res, prefix)
				if !ok {
					if f.Drift == nil {
						t.Fatalf("finding %+v left to encoding/json", f)
					}
					continue // drift's properties are left to encoding/json
				}
				written++
				if got := jsonSafe(got); string(got)+"\n" != string(want) {
					t.Fatalf("finding %+v:\nwritten  %s\nencoding/json %s", f, got, want)
				}
			}
		}
	}
	if written < 1500 {
		t.Fatalf("only %d results written by hand: the test proves little", written)
	}
}

// The strings of a result, written by hand, are encoding/json's.
func FuzzSARIFString(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got, want := string(appendJSONString(nil, s)), strings.TrimSuffix(buf.String(), "\n"); got != want {
			t.Fatalf("%q: written %s, encoding/json %s", s, got, want)
		}
	})
}
