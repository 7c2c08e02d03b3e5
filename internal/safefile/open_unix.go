//go:build unix

package safefile

import (
	"errors"
	"os"
	"syscall"
)

// openNonBlocking opens path for reading with O_NONBLOCK: a named pipe
// opens at once, writer or not, and a terminal or device does not wait
// for a carrier, so the descriptor can be checked before anything is read.
// On a regular file the flag changes nothing.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// OpenWrite opens path for writing with flag, never waiting: a named pipe
// that no process reads is an error at once (ENXIO), not a hang, and one
// that has a reader is written as usual (Go waits for it in its poller,
// not in open).
func OpenWrite(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
	if errors.Is(err, syscall.ENXIO) {
		return nil, &Error{Path: path, Problem: "is a named pipe that no process reads; start its reader first, or write to a file"}
	}
	return f, err
}
