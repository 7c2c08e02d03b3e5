//go:build unix

package safefile

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func mkfifo(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	return p
}

// The open itself never waits for a writer, so a name replaced by a pipe
// after the Stat is still refused at once (by the descriptor's Stat).
func TestOpenDoesNotBlockOnFIFO(t *testing.T) {
	fifo := mkfifo(t, t.TempDir())
	done := make(chan error, 1)
	go func() {
		f, err := openNonBlocking(fifo)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a FIFO without a writer blocked")
	}
}
