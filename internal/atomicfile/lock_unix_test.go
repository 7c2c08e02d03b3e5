//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A directory that cannot be opened for reading (write and search only)
// is locked through a .NAME.lock file beside the target instead, which
// serialises updates just the same.
func TestLockInAnUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "s.json")
	os.Chmod(dir, 0o300)
	defer os.Chmod(dir, 0o700)
	unlock, err := Lock(target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".s.json.lock")); err != nil {
		t.Errorf("no lock file: %v", err)
	}
	old := LockWait
	LockWait = 20 * time.Millisecond
	defer func() { LockWait = old }()
	if _, err := Lock(target); err == nil || !strings.Contains(err.Error(), "another process") {
		t.Errorf("a second lock: %v", err)
	}
	unlock()
}
