// Package safefile reads the files mcpcheck keeps its own state in — the
// suppressions file, tool baselines, a configuration file — so that a
// hostile or mistaken path cannot hang or exhaust a run: only a regular
// file is read (a link is followed, and its target must be one), it is
// opened without blocking (a named pipe with no writer, a device, a
// directory, a socket are refused before anything is read from them),
// and at most a stated number of bytes is read.
//
// Captures are not read here: they may well be pipes (standard input,
// process substitution); the readers package bounds what it reads of them.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Limits of the files mcpcheck reads for its own state. A suppressions
// file of 64 MiB holds some 200,000 entries; a baseline file is one
// server's tool listing; a configuration file is written by hand.
const (
	MaxSuppressions = 64 << 20
	MaxBaseline     = 64 << 20
	MaxConfig       = 4 << 20
)

// Error is a file that is not read: Path as the caller named it and
// Problem what is wrong with it ("is a named pipe (FIFO), not a regular
// file"). Error() is "PATH: PROBLEM".
type Error struct {
	Path    string
	Problem string
}

func (e *Error) Error() string { return e.Path + ": " + e.Problem }

// ReadFile reads the regular file at path, or what a link there points to,
// if it holds at most limit bytes. A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist); a file that is not regular, or larger
// than limit, is an *Error; so is a file that cannot be opened or read,
// with the system's reason.
func ReadFile(path string, limit int64) ([]byte, error) {
	// Stat first, so a pipe or device is refused before it is even opened
	// (opening some devices has effects); the open below cannot block
	// either, and the descriptor is checked again in case the name was
	// replaced in between.
	info, err := os.Stat(path)
	if err != nil {
		return nil, statError(path, err)
	}
	if err := regular(path, info); err != nil {
		return nil, err
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, statError(path, err)
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, &Error{Path: path, Problem: "cannot be read: " + reason(err)}
	}
	if err := regular(path, info); err != nil {
		return nil, err
	}
	if info.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	// The size may grow while it is read: never read past the limit.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &Error{Path: path, Problem: "cannot be read: " + reason(err)}
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, limit)
	}
	return data, nil
}

// regular refuses what is not a regular file, naming what it is and,
// for a link, where it leads.
func regular(path string, info fs.FileInfo) error {
	if info.Mode().IsRegular() {
		return nil
	}
	what := Describe(info.Mode())
	if l, err := os.Lstat(path); err == nil && l.Mode()&fs.ModeSymlink != 0 {
		if dest, err := filepath.EvalSymlinks(path); err == nil {
			return &Error{Path: path, Problem: fmt.Sprintf("is a link to %s, %s, not a regular file", dest, what)}
		}
	}
	return &Error{Path: path, Problem: fmt.Sprintf("is %s, not a regular file", what)}
}

// Describe names a kind of file for an error: "a directory", "a named
// pipe (FIFO)", "a device", "a socket".
func Describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

func tooLarge(path string, limit int64) error {
	return &Error{Path: path, Problem: fmt.Sprintf("is larger than %s, the most mcpcheck reads of such a file", size(limit))}
}

// size is a limit for people: 64 MiB, 512 KiB, 100 bytes.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// statError keeps a missing file recognisable and names the rest.
func statError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return &Error{Path: path, Problem: "cannot be read: " + reason(err)}
}

// reason is the system's reason without the operation and path a
// *fs.PathError repeats.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
