//go:build unix

package safefile

import (
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
