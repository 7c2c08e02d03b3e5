package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Done when: read-modify-write under Lock loses no update. Each of 8
// goroutines (each with its own descriptor, as 8 processes would have)
// appends its own line; all 8 lines survive, in every round.
func TestLockLosesNoUpdate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Lock serialises nothing on Windows")
	}
	for round := range 5 {
		path := filepath.Join(t.TempDir(), "list.txt")
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				unlock, err := Lock(path)
				if err != nil {
					errs <- err
					return
				}
				defer unlock()
				old, _ := os.ReadFile(path)
				time.Sleep(time.Millisecond) // widen the window a lost update needs
				errs <- Write(path, append(old, strconv.Itoa(i)+"\n"...), 0o644)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		data, _ := os.ReadFile(path)
		if n := strings.Count(string(data), "\n"); n != 8 {
			t.Fatalf("round %d: %d of 8 updates kept:\n%s", round, n, data)
		}
		if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
			t.Errorf("round %d: left %v beside the file", round, entries)
		}
	}
}

// A lock held longer than LockWait is an error naming the file, not a
// hang; once released it is taken again.
func TestLockGivesUp(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Lock serialises nothing on Windows")
	}
	old := LockWait
	LockWait = 50 * time.Millisecond
	defer func() { LockWait = old }()
	path := filepath.Join(t.TempDir(), "s.json")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Lock(path)
	if err == nil || !strings.Contains(err.Error(), path+": another process has been updating it") {
		t.Errorf("err = %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("gave up after %v", took)
	}
	unlock()
	again, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	again()
	if _, err := Lock(filepath.Join(t.TempDir(), "missing", "s.json")); !os.IsNotExist(err) {
		t.Errorf("missing directory: %v", err)
	}
}
