//go:build !unix

package safefile

import "os"

// openNonBlocking opens path for reading. Outside unix there is no
// O_NONBLOCK open; ReadFile's Stat before it refuses a pipe or device
// (on Windows, named pipes live outside the file system's name space).
func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}

// OpenWrite opens path for writing with flag.
func OpenWrite(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}
