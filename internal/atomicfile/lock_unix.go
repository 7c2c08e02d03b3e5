//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// tryLock takes an exclusive flock on dir without waiting; busy reports
// that another process holds it.
func tryLock(dir, target string) (unlock func(), busy bool, err error) {
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	if err == nil {
		switch err := flock(d); {
		case err == nil:
			return func() { d.Close() }, false, nil // closing the last descriptor releases it
		case errors.Is(err, syscall.EWOULDBLOCK):
			d.Close()
			return nil, true, nil
		}
		d.Close()
	}
	// The directory cannot be opened (no read permission) or locked (some
	// network file systems) here: lock a file beside the target.
	f, err := os.OpenFile(filepath.Join(dir, "."+filepath.Base(target)+".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, err
	}
	switch err := flock(f); {
	case err == nil:
		return func() { f.Close() }, false, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		f.Close()
		return nil, true, nil
	default:
		f.Close()
		return nil, false, &os.PathError{Op: "lock", Path: f.Name(), Err: err}
	}
}

func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}
