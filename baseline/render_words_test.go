package baseline

import (
	"strings"
	"testing"
)

// A long value is cut between words, and a long common beginning is elided
// from the start of a word: "…allowed to access. Use this" rather than
// "… to access. Use this to understand which directories are a…".
func TestExcerptsCutBetweenWords(t *testing.T) {
	t.Parallel()
	old := "Returns the list of directories that this server is allowed to access. Use this to understand which directories are available before trying to access files."
	cur := "Returns the list of directories that this server is allowed to access. Subdirectories within these allowed directories are also accessible."
	o, n := excerpts(old, cur)
	for _, s := range []string{o, n} {
		body := strings.TrimSuffix(strings.TrimPrefix(s, "…"), "…")
		words := strings.Fields(body)
		if !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || len(words) < 3 {
			t.Fatalf("excerpt %q", s)
		}
		for _, w := range []string{words[0], words[len(words)-1]} {
			if !strings.Contains(old+" "+cur, " "+w+" ") && !strings.Contains(old+" "+cur, " "+strings.TrimRight(w, ".,")+" ") {
				t.Errorf("excerpt %q starts or ends inside a word (%q)", s, w)
			}
		}
	}
	if o != "…allowed to access. Use this to understand which…" || n != "…allowed to access. Subdirectories within these allowed…" {
		t.Errorf("excerpts %q, %q", o, n)
	}
	// one long word has no boundary near the cut: it is cut where it must be
	if s := short(strings.Repeat("x", 100)); s != strings.Repeat("x", maxValue-1)+"…" {
		t.Errorf("short of one long word: %q", s)
	}
}
