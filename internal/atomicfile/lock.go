package atomicfile

import (
	"fmt"
	"path/filepath"
	"time"
)

// LockWait is how long Lock waits for another process's update before it
// gives up: an update holds the lock for the time of one read and one
// write.
var LockWait = 30 * time.Second

// Lock takes the update lock of target, for a read-modify-write that must
// not lose another process's update (two `mcpcheck suppress` runs adding
// different entries to one file): take the lock, read the file again,
// change it, write it with Write, then unlock. Every update of a file in
// the same directory is serialised; readers take no lock (Write replaces
// a file whole), and neither does WriteNew, which never replaces one.
//
// On unix the lock is flock(2) on the directory that holds target (the
// target itself is replaced by every write, so a lock on it would guard
// nothing), which leaves no file behind and is released by the kernel when
// the process dies. Where a directory cannot be locked (flock on some
// network file systems), a lock file .NAME.lock beside the target is
// locked instead and left there. Elsewhere (Windows) Lock serialises
// nothing across processes and returns at once.
//
// It waits at most LockWait, then returns an error naming the target.
func Lock(target string) (unlock func(), err error) {
	dir := filepath.Dir(target)
	deadline := time.Now().Add(LockWait)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		unlock, busy, err := tryLock(dir, target)
		if err != nil || !busy {
			return unlock, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: another process has been updating it for %v (its lock on %s is held); try again when it is done", target, LockWait, dir)
		}
		time.Sleep(pause)
	}
}
