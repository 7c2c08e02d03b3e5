package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// RemoveTemporaries removes what is not in place yet and nothing else: a
// committed file stays, a discarded one is gone already. Not parallel:
// RemoveTemporaries empties the package's registry, which other tests'
// pending files are in.
func TestRemoveTemporaries(t *testing.T) {
	dir := t.TempDir()
	pending, err := Create(filepath.Join(dir, "report.json"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	pending.Write([]byte("half"))
	done, _ := Create(filepath.Join(dir, "done.json"), 0o644)
	done.Write([]byte("{}"))
	if err := done.Commit(); err != nil {
		t.Fatal(err)
	}
	RemoveTemporaries()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "done.json" {
		t.Errorf("left: %v", entries)
	}
	if len(temporaries.names) != 0 {
		t.Errorf("still tracked: %v", temporaries.names)
	}
	pending.Discard() // harmless afterwards
}
