package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/usage"
)

// encodeJSON is how the json report wrote a value before it was written
// by hand: encoding/json indented under prefix, then jsonSafe.
func encodeJSON(t testing.TB, prefix string, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return jsonSafe(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func writeSessionJSON(prefix string, js *JSONSession) []byte {
	w := &jsonIndenter{prefix: prefix}
	sessionJSON(w, js)
	return jsonSafe(w.b)
}

// someSession is a session of strings pick gives, with every member set
// or not, lists nil, empty or full, and counts with and without keys
// that are not signals.
func someSession(rng *rand.Rand, pick func() string) JSONSession {
	js := JSONSession{ID: pick(), Label: pick(), File: pick(), Revision: pick(), Transport: pick(),
		Frames: rng.Int64N(5) - 1, MissingFrames: rng.Int64N(3), Passed: rng.IntN(2) == 0, Suppressed: rng.IntN(3)}
	switch rng.IntN(4) {
	case 0: // nil counts
	case 1:
		js.Counts = JSONCounts{}
	default:
		js.Counts = JSONCounts{}
		for _, name := range signalNames {
			if rng.IntN(5) > 0 {
				js.Counts[name] = rng.IntN(4)
			}
		}
		if rng.IntN(2) == 0 {
			js.Counts[pick()] = rng.IntN(9) - 4
		}
	}
	js.Findings = someList(rng, func() JSONFinding { return someFinding(rng, pick) })
	js.Assertions = someList(rng, func() JSONAssertion {
		return JSONAssertion{Name: pick(), Arg: pick(), Passed: rng.IntN(2) == 0, Message: pick()}
	})
	js.Failed = someList(rng, pick)
	if rng.IntN(2) == 0 {
		js.Drift = someDrift(rng, pick)
	}
	return js
}

// someList is nil, empty or up to three values of one.
func someList[T any](rng *rand.Rand, one func() T) []T {
	switch n := rng.IntN(5); n {
	case 0:
		return nil
	default:
		list := []T{}
		for range n - 1 {
			list = append(list, one())
		}
		return list
	}
}

func someFinding(rng *rand.Rand, pick func() string) JSONFinding {
	f := JSONFinding{Rule: pick(), Signal: pick(), Severity: pick(), Level: pick(), Gated: rng.IntN(2) == 0,
		Message: pick(), File: pick(), Line: rng.IntN(4) - 1, Seq: rng.Int64N(3), Subject: pick(), Fingerprint: pick(),
		Also: rng.IntN(3) * (rng.IntN(3) - 1), Existing: rng.IntN(2) == 0}
	f.Related = someList(rng, func() JSONLocation { return JSONLocation{File: pick(), Line: rng.IntN(9), Message: pick()} })
	if rng.IntN(2) == 0 {
		f.Suppressed = &JSONSuppressed{Reason: pick()}
		if rng.IntN(2) == 0 {
			expires := pick()
			f.Suppressed.Expires = &expires
		}
	}
	if rng.IntN(2) == 0 {
		f.CausedBy = &JSONCause{Rule: pick(), File: pick(), Line: rng.IntN(9), Message: pick()}
	}
	return f
}

func someDrift(rng *rand.Rand, pick func() string) *JSONDrift {
	provenance := func() *JSONProvenance {
		if rng.IntN(2) == 0 {
			return nil
		}
		return &JSONProvenance{Reason: pick(), Time: pick(), Capture: pick(), Session: pick()}
	}
	d := &JSONDrift{Label: pick(), Status: pick(), Baseline: pick(), Format: pick(), Recorded: provenance(), Accepted: provenance(),
		NotKept: pick(), NotCompared: someList(rng, pick), Problem: pick(),
		Counts: JSONDriftCounts{Added: rng.IntN(3), Removed: rng.IntN(3), Changed: rng.IntN(3), Breaking: rng.IntN(3), Review: rng.IntN(3), Info: rng.IntN(3)}}
	if rng.IntN(2) == 0 {
		d.RecordedInRun = &JSONOrigin{File: pick(), Session: pick(), Line: rng.IntN(9)}
	}
	raw := func() json.RawMessage {
		if rng.IntN(3) == 0 {
			return nil
		}
		return someRaw(rng, pick)
	}
	d.Tools = someList(rng, func() JSONToolDrift {
		return JSONToolDrift{Tool: pick(), Change: pick(), Tier: pick(), Fields: someList(rng, func() JSONFieldDrift {
			return JSONFieldDrift{Field: pick(), Tier: pick(), Diffs: someList(rng, func() JSONDriftDiff {
				return JSONDriftDiff{Pointer: pick(), Old: raw(), New: raw(), Tier: pick(), Reason: pick()}
			})}
		})}
	})
	return d
}

// someRaw is a JSON value as a baseline holds one: loosely spaced, nested,
// with strings of pick's and HTML characters encoding/json keeps raw.
func someRaw(rng *rand.Rand, pick func() string) json.RawMessage {
	s, _ := json.Marshal(pick())
	switch rng.IntN(4) {
	case 0:
		return s
	case 1:
		return json.RawMessage(` { "a" : [ 1 , 2.50 , { } , [ ] ] , "b":` + string(s) + `, "<&>": null }`)
	case 2:
		return json.RawMessage(`[true,false,"\u003c\u2028\ud83d\ude00",-0.1e3]`)
	}
	return json.RawMessage(`{}`)
}

// TestJSONWriterIsEncodingJSON: every session the json report writes by
// hand is, byte for byte, what encoding/json wrote: the sessions of the
// test results, and sessions of awkward strings with every member set or
// not, lists nil and empty among them.
func TestJSONWriterIsEncodingJSON(t *testing.T) {
	var sessions []JSONSession
	for _, r := range []*result.Result{sampleResult(t), emptyResult(t), escapeResult(t), hostileResult(t), driftResult(t, checks.DefaultGate)} {
		for s := range r.AllSessions() {
			sessions = append(sessions, jsonSession(s, r.Gate))
		}
	}
	sessions = append(sessions, JSONSession{}, JSONSession{Counts: JSONCounts{"<&>": 1, "zz": 2, "pending": 3, "\u2028\xff": 4}})
	rng := rand.New(rand.NewPCG(26, 1))
	pick := func() string {
		if rng.IntN(5) == 0 {
			return ""
		}
		return junitAwkward[rng.IntN(len(junitAwkward))] + junitAwkward[rng.IntN(len(junitAwkward))]
	}
	for range 500 {
		sessions = append(sessions, someSession(rng, pick))
	}
	for i := range sessions {
		for _, prefix := range []string{"", "    "} {
			want := encodeJSON(t, prefix, sessions[i])
			if got := writeSessionJSON(prefix, &sessions[i]); !bytes.Equal(got, want) {
				t.Fatalf("session %d:\nwritten       %s\nencoding/json %s", i, got, want)
			}
		}
	}
}

// TestJSONReportIsEncodingNewJSONReport: the report as a whole is
// NewJSONReport encoded, run-wide members and usage included.
func TestJSONReportIsEncodingNewJSONReport(t *testing.T) {
	busy := sampleResult(t)
	busy.Notes = []string{"drift was not checked: <no baseline directory>"}
	busy.NewFrom = "old\u202e.json"
	busy.RunAssertions = []result.Assertion{{Name: "min-tool-coverage", Arg: "80%", Message: "server filesystem: 1 of 2 tools called"}}
	busy.Usage = &usage.Summary{Captures: 2, Servers: []usage.Server{{Label: "filesystem", Sessions: 1,
		Tools:     usage.Coverage{Listed: true, Advertised: 2, Called: 1, Succeeded: 1, NeverCalled: []string{"rm"}},
		ToolStats: []usage.Tool{{Name: "echo", Advertised: true, Calls: 3, OK: 2, Errors: map[string]int64{"tool-error": 1}, ErrorRate: 1.0 / 3}}}}}
	for name, r := range map[string]*result.Result{"sample": sampleResult(t), "busy": busy, "empty": emptyResult(t),
		"escape": escapeResult(t), "hostile": hostileResult(t), "drift": driftResult(t, checks.DefaultGate), "nothing": {}} {
		t.Run(name, func(t *testing.T) {
			want := append(encodeJSON(t, "", NewJSONReport(r)), '\n')
			if got := render(t, "json", testOptions(), r); !bytes.Equal(got, want) {
				t.Errorf("written:\n%s\nencoding/json:\n%s", got, want)
			}
		})
	}
}

// FuzzJSONSession: a session made of any strings is written as
// encoding/json writes it.
func FuzzJSONSession(f *testing.F) {
	for i, s := range junitAwkward {
		f.Add(s, junitAwkward[(i+1)%len(junitAwkward)], `{"k": [1, "v"]}`, uint64(i))
	}
	f.Fuzz(func(t *testing.T, a, b, c string, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 0))
		strs := []string{a, b, c, ""}
		js := someSession(rng, func() string { return strs[rng.IntN(len(strs))] })
		if json.Valid([]byte(c)) && js.Drift != nil {
			js.Drift.Tools = append(js.Drift.Tools, JSONToolDrift{Fields: []JSONFieldDrift{{Diffs: []JSONDriftDiff{{Old: json.RawMessage(c)}}}}})
		}
		for _, prefix := range []string{"", "    "} {
			want := encodeJSON(t, prefix, js)
			if got := writeSessionJSON(prefix, &js); !bytes.Equal(got, want) {
				t.Fatalf("written       %s\nencoding/json %s", got, want)
			}
		}
	})
}
