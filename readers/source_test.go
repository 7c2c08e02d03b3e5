package readers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A directory contributes the files every format of the list declares.
func TestDirectoryPatternsComeFromFormats(t *testing.T) {
	t.Parallel()
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
	srcs, err = resolve(withArrows(), []string{dir}, nil, os.Getenv, nil, nil)
	if err != nil || base(srcs) != "a.arrows b.jsonl c.ndjson.gz e.arrows.gz" {
		t.Errorf("with arrows: %s, %v", base(srcs), err)
	}
	_, err = resolve(withArrows(), []string{t.TempDir()}, nil, os.Getenv, nil, nil)
	if want := "(looked for " + strings.Join(capturePatterns(withArrows()), ", ") + ")"; err == nil || !strings.HasSuffix(err.Error(), want) ||
		!strings.Contains(want, "*.jsonl, *.ndjson") || !strings.Contains(want, "*.arrows.gz") {
		t.Errorf("empty directory: %v", err)
	}
	// A forced format reads only its own files.
	srcs, err = ResolveFor([]string{dir}, nil, os.Getenv, arrows{})
	if err != nil || base(srcs) != "a.arrows e.arrows.gz" {
		t.Errorf("arrows forced: %s, %v", base(srcs), err)
	}
}
