package readers

import (
	"bytes"
	"io"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
	"github.com/mcpcheck/mcpcheck/session/sessiontest"
)

// discard is a FrameReleaser that keeps nothing: reading and correlation
// alone, as the engine's driver sees them, without rules.
type discard struct{}

func (discard) Frame(*session.Session, *session.Frame)  {}
func (discard) Damage(*session.Session, session.Damage) {}
func (discard) End(*session.Session)                    {}
func (discard) ReleasesFrames()                         {}

// BenchmarkRead reads and correlates a generated 64 MiB mcpsnoop capture.
func BenchmarkRead(b *testing.B) {
	data, err := io.ReadAll(sessiontest.Capture(64<<20, 4<<20))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Read("generated.jsonl", bytes.NewReader(data), discard{}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
