package jsonscan

import (
	"math/rand/v2"
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

// skipStringInputs are JSON strings as captures have them, each followed by
// what comes next in an object: the member names of envelopes and
// messages, and tool-result texts of 200–2000 bytes with an occasional
// escaped newline, quote or \u escape and some multi-byte UTF-8.
func skipStringInputs() (names, texts [][]byte) {
	for _, n := range []string{"jsonrpc", "id", "method", "params", "name", "arguments", "result", "content",
		"type", "text", "structuredContent", "isError", "session_id", "server_label", "seq", "ts", "direction",
		"transport", "raw", "path", "progressToken", "_meta"} {
		names = append(names, []byte(`"`+n+`":1}`))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"the", "file", "contains", "a", "line", "of", "résumé", "naïve", "données", "—", "日本語",
		"ENOENT:", "/srv/sandbox/notes", "value", "0x7f", "ok", "tool", "returned", "→", "emoji 🙂"}
	for len(texts) < 64 {
		var s strings.Builder
		s.WriteByte('"')
		size := 200 + rng.IntN(1801)
		for s.Len() < size {
			switch r := rng.IntN(100); {
			case r < 4:
				s.WriteString(`\n`)
			case r < 5:
				s.WriteString(`\"`)
			case r < 6:
				s.WriteString(`\u00e9`)
			default:
				s.WriteString(words[rng.IntN(len(words))])
				s.WriteByte(' ')
			}
		}
		s.WriteString(`","type":"text"}`)
		texts = append(texts, []byte(s.String()))
	}
	return names, texts
}

// BenchmarkSkipString measures the string scan every skip and walk rests on.
func BenchmarkSkipString(b *testing.B) {
	names, texts := skipStringInputs()
	for _, in := range []struct {
		name string
		strs [][]byte
	}{{"names", names}, {"texts", texts}} {
		b.Run(in.name, func(b *testing.B) {
			var n int64
			for _, s := range in.strs {
				end, err := SkipString(s, 0)
				if err != nil {
					b.Fatal(err)
				}
				n += int64(end)
			}
			b.SetBytes(n) // per op: every string once
			for b.Loop() {
				for _, s := range in.strs {
					if _, err := SkipString(s, 0); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
