package checks_test

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session/sessiontest"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/result"
)

// BenchmarkCheck measures the whole check (read, correlate, every rule) on a
// generated 64 MiB capture; run with -bench Check -benchmem.
func BenchmarkCheck(b *testing.B) { benchmarkRules(b, All()) }

// foundationRules are the rules of the first release plus the two the rule
// platform added (unknown-tool, invalid-envelope): the platform's own cost
// is measured against the first release's BenchmarkCheck with them.
var foundationRules = []string{
	"jsonrpc-error", "tool-error", "http-error", "task-failed", "internal-error", "invalid-frame",
	"jsonrpc-version", "request-id", "response-shape", "id-reuse", "unmatched-response", "duplicate-response",
	"pending-request", "late-result", "missing-frames", "truncated-capture", "unknown-tool", "invalid-envelope",
}

// BenchmarkCheckFoundation is BenchmarkCheck with the foundation's rules.
func BenchmarkCheckFoundation(b *testing.B) {
	var rules []*Rule
	for _, id := range foundationRules {
		r := Lookup(All(), id)
		if r == nil {
			b.Fatalf("no rule %s", id)
		}
		rules = append(rules, r)
	}
	benchmarkRules(b, rules)
}

func benchmarkRules(b *testing.B, rules []*Rule) {
	const size = 64 << 20
	gate, _ := result.ParseGate(DefaultGate, rules)
	cfg := engine.Config{Rules: rules, Catalogue: rules, Gate: gate}
	data, err := io.ReadAll(sessiontest.Capture(size, 4<<20))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	frames := bytes.Count(data, []byte("\n")) // one envelope, one message a line
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	startCPU := cpuTime()
	for b.Loop() {
		src := readers.Source{Name: "generated.jsonl", Open: func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(data)), nil
		}}
		res, err := engine.Run([]readers.Source{src}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Sessions) == 0 {
			b.Fatal("no sessions")
		}
	}
	cpu := cpuTime() - startCPU
	runtime.ReadMemStats(&after)
	if cpu > 0 { // CPU time, steadier than wall time on a shared machine
		b.ReportMetric(float64(len(data))/1e6/(cpu.Seconds()/float64(b.N)), "cpu-MB/s")
	}
	b.ReportMetric(float64(frames), "frames/op")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/float64(frames), "allocs/frame")
}

// BenchmarkSecurityRulesCost measures what tool-poisoning and secret-leak
// add to the whole check of a generated capture of 100,000 tool calls: each
// iteration checks it with every rule and with both security rules
// disabled, in alternating order. It reports the mean time of each and the
// median of the per-iteration ratios, by wall clock and by the process's
// CPU time (steadier on a shared machine); the budget is 1.5. engine.Run with
// -bench SecurityRulesCost -benchtime 5x.
func BenchmarkSecurityRulesCost(b *testing.B) {
	data := generatedCalls(b, 100_000)
	all, without := All(), withoutRules("tool-poisoning", "secret-leak")
	check := func(rules []*Rule) (wall, cpu time.Duration) {
		runtime.GC() // each check starts from the same heap, not the other's garbage
		start, startCPU := time.Now(), cpuTime()
		checkBytes(b, data, rules)
		return time.Since(start), cpuTime() - startCPU
	}
	var wallAll, wallWithout time.Duration
	var ratios, cpuRatios []float64
	for b.Loop() {
		var a, w, aCPU, wCPU time.Duration
		if len(ratios)%2 == 0 {
			a, aCPU = check(all)
			w, wCPU = check(without)
		} else {
			w, wCPU = check(without)
			a, aCPU = check(all)
		}
		wallAll, wallWithout = wallAll+a, wallWithout+w
		ratios = append(ratios, float64(a)/float64(w))
		if wCPU > 0 {
			cpuRatios = append(cpuRatios, float64(aCPU)/float64(wCPU))
		}
	}
	n := float64(len(ratios))
	b.ReportMetric(float64(wallAll.Nanoseconds())/n, "all-ns/check")
	b.ReportMetric(float64(wallWithout.Nanoseconds())/n, "without-security-ns/check")
	b.ReportMetric(median(ratios), "ratio")
	if len(cpuRatios) > 0 {
		b.ReportMetric(median(cpuRatios), "cpu-ratio")
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// generatedCalls is a generated capture cut after its calls-th tools/call
// and the frames that follow it up to the next call.
func generatedCalls(b testing.TB, calls int) []byte {
	b.Helper()
	r := bufio.NewReaderSize(sessiontest.Capture(1<<40, 4<<20), 1<<20)
	var out bytes.Buffer
	n := 0
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		if bytes.Contains(line, []byte(`"direction":"c2s"`)) && bytes.Contains(line, []byte(`"method":"tools/call"`)) {
			if n == calls {
				return out.Bytes()
			}
			n++
		}
		out.Write(line)
	}
}

// BenchmarkGenerateCapture is the cost of making the benchmarks' capture
// alone, to subtract from instruction counts of a whole benchmark binary.
func BenchmarkGenerateCapture(b *testing.B) {
	for b.Loop() {
		if _, err := io.ReadAll(sessiontest.Capture(64<<20, 4<<20)); err != nil {
			b.Fatal(err)
		}
	}
}
