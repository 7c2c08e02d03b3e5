package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

// manySessions is a run of n one-request sessions of one label, each
// with its request never answered (an ungated finding) and most rules
// not observed: the shape of a long agent log split into sessions, where
// the per-session cost of a report is all its cost.
func manySessions(b *testing.B, n int) *result.Result {
	rules := testCatalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		b.Fatal(err)
	}
	file := "/work/bench/p100k.jsonl"
	r := &result.Result{Files: []string{file}, Gate: gate, Rules: rules, Passed: true}
	notObserved := uint64(1)<<len(rules) - 1 // every rule …
	notObserved &^= 0b1111                   // … but the first four
	for i := range n {
		id := fmt.Sprintf("agent-%d", i+1)
		s := &result.SessionResult{ID: id, Label: "fs", File: file, FirstLine: i + 1, Transport: "stdio", Frames: 1,
			Unjudged: []uint64{notObserved}}
		f := finding(rules, gate, "fake-no-answer", file, i+1, "tools/list", "client tools/list (id 1) was never answered")
		f.Session, f.Gated = id, false
		s.Findings = []*result.Finding{f}
		s.Recount()
		r.Sessions = append(r.Sessions, s)
	}
	return r
}

func benchmarkFormat(b *testing.B, format string) {
	r := manySessions(b, 2000)
	f, err := Lookup(format)
	if err != nil {
		b.Fatal(err)
	}
	rep := f(testOptions())
	b.ReportAllocs()
	for b.Loop() {
		if err := rep.Report(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONManySessions(b *testing.B)  { benchmarkFormat(b, "json") }
func BenchmarkJUnitManySessions(b *testing.B) { benchmarkFormat(b, "junit") }
