package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// RemoveTemporaries removes what is not in place yet and nothing else: a
// committed file stays, a discarded one is gone already. Not parallel:
// RemoveTemporaries empties the package's registry, which other tests'
// pending files are in.
func TestRemoveTemporaries(t *testing.T) {
	t.Cleanup(unseal)
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
	if f, err := Create(filepath.Join(dir, "late.json"), 0o644); !errors.Is(err, errExiting) {
		t.Errorf("Create after RemoveTemporaries: %v, %v", f, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left after a late Create: %v", entries)
	}
}

// unseal lets Create work again after a test's RemoveTemporaries.
func unseal() {
	temporaries.mu.Lock()
	temporaries.sealed = false
	temporaries.mu.Unlock()
}

// A signal that lands while a report's temporary file is being made (on
// disk, not yet registered, as CI once caught) still removes it: Create
// registers the name under the lock RemoveTemporaries takes. The file is
// removed once it is seen on disk, the moment the race was lost in.
func TestRemoveTemporariesDuringCreate(t *testing.T) {
	t.Cleanup(unseal)
	for round := 0; round < 200; round++ {
		dir := t.TempDir()
		created := make(chan error, 1)
		go func() {
			f, err := Create(filepath.Join(dir, "out.xml"), 0o644)
			if err == nil {
				f.Write([]byte("<"))
			}
			created <- err
		}()
		for {
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				break
			}
			runtime.Gosched()
		}
		RemoveTemporaries()
		if err := <-created; err != nil {
			t.Fatalf("round %d: Create: %v", round, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("round %d: left %v", round, entries)
		}
		unseal()
	}
}

// Done when: a temporary file a killed process left beside a target
// (kill -9 runs no cleanup) is removed at the next write of that target,
// once it is older than StaleAfter; a recent one (a writer still at work),
// another target's, a user's file of another pattern and a link stay.
func TestCreateRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * StaleAfter)
	file := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("half a report"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, mtime, mtime)
		return p
	}
	staleOnes := []string{file(".report.json.1234567.tmp", old), file(".report.json.9.tmp", old)}
	keep := []string{
		file(".report.json.7654321.tmp", time.Now()), // a writer at work
		file(".other.json.1234567.tmp", old),         // another target's
		file(".report.json.x1.tmp", old),             // not Create's pattern
		file(".report.json.1.tmp.bak", old),
		file("report.json.1234567.tmp", old),
		file(".report.json.1234567.tmp.json.5.tmp", old), // the temporary of another target
	}
	link := filepath.Join(dir, ".report.json.42.tmp")
	os.Symlink(keep[1], link)
	keep = append(keep, link)
	if err := Write(filepath.Join(dir, "report.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range staleOnes {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was left", filepath.Base(p))
		}
	}
	for _, p := range keep {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
}

// A process killed halfway through a write (the temporary file is there,
// the target not replaced) leaves nothing for long: the next process to
// write the target removes it once stale.
func TestKilledWriterTemporaryIsRemovedByTheNextRun(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "baseline.json")
	f, err := Create(target, 0o644) // as a process killed before Commit leaves it
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	f.tmp.Close()
	temporaries.remove(f.Name()) // forgotten, as by a process that died
	then := time.Now().Add(-StaleAfter - time.Minute)
	os.Chtimes(f.Name(), then, then)
	stale.Lock()
	delete(stale.dirs, dir) // a new process has read no directory yet
	stale.Unlock()
	if err := Write(target, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "baseline.json" {
		t.Errorf("left: %v", entries)
	}
}
