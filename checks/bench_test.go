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
func BenchmarkCheck(b *testing.B) {
	const size = 64 << 20
	gate, _ := ParseGate(DefaultGate, All())
	cfg := Config{Rules: All(), Gate: gate}
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
