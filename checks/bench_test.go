package checks

import (
	"bytes"
	"io"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
	"github.com/mcpcheck/mcpcheck/session/sessiontest"
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
	gate, _ := ParseGate(DefaultGate, rules)
	cfg := Config{Rules: rules, Catalogue: rules, Gate: gate}
	data, err := io.ReadAll(sessiontest.Capture(size, 4<<20))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		src := session.Source{Name: "generated.jsonl", Open: func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(data)), nil
		}}
		res, err := Run([]session.Source{src}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Sessions) == 0 {
			b.Fatal("no sessions")
		}
	}
}
