package jsonscan

import (
	"strings"
	"testing"
)

// A tool call and its result as the generated benchmark capture has them:
// the walk with duplicate detection should cost about what the plain one does.
var benchMessages = [][]byte{
	[]byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/srv/sandbox/notes/file-17.md"}}}`),
	[]byte(`{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"` + strings.Repeat("A line of the file's contents. ", 20) + `"}],"structuredContent":{"content":"` + strings.Repeat("A line of the file's contents. ", 20) + `"}}}`),
	[]byte(`{"session_id":"bench-1","server_label":"filesystem","seq":35,"ts":"2026-09-01T10:00:00.0525Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/srv/sandbox/notes/file-17.md"}}}}`),
}

func BenchmarkEachMember(b *testing.B) {
	for _, m := range benchMessages {
		b.Run("", func(b *testing.B) {
			b.SetBytes(int64(len(m)))
			for b.Loop() {
				_ = EachMember(m, func(_, _ []byte) {})
			}
		})
	}
}

func BenchmarkEachMemberStrict(b *testing.B) {
	for _, m := range benchMessages {
		b.Run("", func(b *testing.B) {
			b.SetBytes(int64(len(m)))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = EachMemberStrict(m, true, func(_, _ []byte) {})
			}
		})
	}
}
