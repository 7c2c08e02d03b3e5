package readers

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// FuzzRead: any byte sequence gives frames, damage or a clean error; never a
// panic or a hang. Seeds are the project's captures and known damage shapes.
func FuzzRead(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "*.jsonl"))
	fixtures, _ := filepath.Glob(filepath.Join("..", "checks", "testdata", "*", "*.jsonl"))
	paths = append(paths, fixtures...) // every rule's damage and envelope problems
	formats, _ := filepath.Glob(filepath.Join("..", "testdata", "formats", "*", "*"))
	paths = append(paths, formats...) // the other capture formats (directories are skipped)
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`) + "\n" + `{"session_id":"s1","seq":2,"raw":{"a":"`))
	f.Add([]byte("{\n\"session_id\":\"s\",\n\"raw\":[1,{\"id\":null}]}\n{}{}[]\"x\"\n"))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		rec := &recorder{}
		err := Read("fuzz.jsonl", bytes.NewReader(data), rec, Options{})
		if err != nil {
			return
		}
		seen := map[*session.Frame]bool{}
		for _, fr := range rec.frames {
			if fr.Line < 1 || fr.SessionID == "" {
				t.Fatalf("frame without a location or session: %+v", fr)
			}
			if seen[fr] {
				t.Fatalf("frame delivered twice: %+v", fr)
			}
			seen[fr] = true
		}
		var added int64
		for _, s := range rec.sessions {
			added += s.Frames
		}
		if added != int64(len(rec.frames)) {
			t.Fatalf("%d frames read, %d delivered: held frames must never be dropped", added, len(rec.frames))
		}
		for _, d := range rec.damage {
			if d.Line < 1 || d.Reason == "" {
				t.Fatalf("damage without a location or reason: %+v", d)
			}
		}
		for _, s := range rec.sessions {
			for _, c := range s.Unfinished() {
				if c.State == session.Completed || c.State == session.Superseded {
					t.Fatalf("finished call listed as unfinished: %+v", c)
				}
			}
		}
	})
}
