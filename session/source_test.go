package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A directory contributes the files every registered format declares.
func TestDirectoryPatternsComeFromFormats(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.arrows", "b.jsonl", "c.ndjson.gz", "d.txt", "e.arrows.gz", ".hidden.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := func(srcs []Source) string {
		var out []string
		for _, s := range srcs {
			out = append(out, filepath.Base(s.Name))
		}
		return strings.Join(out, " ")
	}
	srcs, err := Resolve([]string{dir}, nil, os.Getenv)
	if err != nil || base(srcs) != "b.jsonl c.ndjson.gz" {
		t.Errorf("mcpsnoop only: %s, %v", base(srcs), err)
	}
	withFormat(t, arrows{})
	srcs, err = Resolve([]string{dir}, nil, os.Getenv)
	if err != nil || base(srcs) != "a.arrows b.jsonl c.ndjson.gz e.arrows.gz" {
		t.Errorf("with arrows: %s, %v", base(srcs), err)
	}
	_, err = Resolve([]string{t.TempDir()}, nil, os.Getenv)
	if err == nil || !strings.Contains(err.Error(), "(looked for *.jsonl, *.ndjson, ") || !strings.HasSuffix(err.Error(), ", *.arrows.gz)") {
		t.Errorf("empty directory: %v", err)
	}
}
