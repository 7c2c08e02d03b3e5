package atomicfile

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A test binary started with childEnv set writes half of a new file and
// waits to be killed; the parent checks what a killed writer leaves.
const childEnv = "ATOMICFILE_TEST_CHILD"

func TestMain(m *testing.M) {
	if target := os.Getenv(childEnv); target != "" {
		f, err := Create(target, 0o644)
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		f.Write(bytes.Repeat([]byte("new "), 1<<16)) // half of the new content
		os.Stdout.WriteString("half written\n")
		time.Sleep(time.Minute) // the parent kills us here
		os.Exit(4)
	}
	os.Exit(m.Run())
}

func TestKilledMidWriteLeavesTheOldFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "baseline.json")
	old := []byte(`{"old":true}` + "\n")
	if err := os.WriteFile(target, old, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+target)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "half written\n" {
		cmd.Process.Kill()
		t.Fatalf("child said %q, %v", line, err)
	}
	// The child has written part of the new content; a temporary file
	// holds it.
	tmps, _ := filepath.Glob(filepath.Join(dir, ".baseline.json.*.tmp"))
	if len(tmps) != 1 {
		t.Fatalf("temporary files while writing: %v", tmps)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	got, err := os.ReadFile(target)
	if err != nil || !bytes.Equal(got, old) {
		t.Fatalf("after the kill the target holds %d bytes (%v), want the old file intact", len(got), err)
	}
}

func TestCommitReplacesAndDiscardLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "r.json")
	os.WriteFile(target, []byte("old"), 0o600)

	f, err := Create(target, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new"))
	if got, _ := os.ReadFile(target); string(got) != "old" {
		t.Fatalf("target changed before Commit: %q", got)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Discard() // after a commit: nothing to do
	if got, _ := os.ReadFile(target); string(got) != "new" {
		t.Fatalf("target after Commit: %q", got)
	}
	if info, _ := os.Stat(target); info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", info.Mode().Perm())
	}

	g, err := Create(target, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("abandoned"))
	g.Discard()
	if got, _ := os.ReadFile(target); string(got) != "new" {
		t.Fatalf("target after Discard: %q", got)
	}
	assertOnly(t, dir, "r.json")
}

func TestCommitNewNeverReplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "b.json")
	if err := WriteNew(target, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteNew(target, []byte("second"), 0o644)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second WriteNew: %v, want ErrExist", err)
	}
	if got, _ := os.ReadFile(target); string(got) != "first" {
		t.Fatalf("target %q, want the first file", got)
	}
	assertOnly(t, dir, "b.json")
}

// Many writers racing to create one file: one wins, each other one is told
// the file exists, and the file is one writer's whole content.
func TestCommitNewRace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "race.json")
	const writers = 16
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = WriteNew(target, bytes.Repeat([]byte{byte('a' + i)}, 1<<15), 0o644)
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, fs.ErrExist):
			t.Errorf("unexpected error %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d writers won, want 1", wins)
	}
	got, _ := os.ReadFile(target)
	if len(got) != 1<<15 || strings.Trim(string(got), string(got[:1])) != "" {
		t.Fatalf("the file mixes writers or is partial (%d bytes)", len(got))
	}
	assertOnly(t, dir, "race.json")
}

func TestCreateInMissingDirectoryFails(t *testing.T) {
	t.Parallel()
	if _, err := Create(filepath.Join(t.TempDir(), "no", "such", "f"), 0o644); err == nil {
		t.Fatal("Create in a missing directory succeeded")
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("directory holds %v, want %v (temporary files left behind?)", got, names)
	}
}
