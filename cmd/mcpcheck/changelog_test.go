package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Done when: CHANGELOG.md has an Unreleased section and one for every
// release the rules name as Doc.Since (the coming one: in Unreleased).
func TestChangelogNamesEveryRelease(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.Contains(text, "\n## [Unreleased]\n") {
		t.Error("CHANGELOG.md has no ## [Unreleased] section")
	}
	// A rule added since the last release names the release it will ship
	// in, which the Unreleased section announces.
	_, unreleased, _ := strings.Cut(text, "\n## [Unreleased]\n")
	unreleased, _, _ = strings.Cut(unreleased, "\n## [")
	for _, r := range defaultCommand().catalogue() {
		if strings.Contains(unreleased, "These changes will ship as "+r.Doc.Since+".") {
			continue
		}
		if !strings.Contains(text, "\n## ["+r.Doc.Since+"]") {
			t.Errorf("rule %s is since %s, which CHANGELOG.md has no section for", r.ID, r.Doc.Since)
		}
	}
}
