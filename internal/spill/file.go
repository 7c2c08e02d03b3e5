package spill

import (
	"errors"
	"io"
	"os"
)

// File is a temporary file made on first write. Where the system allows
// it, the file leaves its directory at once, so nothing is left behind
// however the process ends; it lives while open.
type File struct {
	Pattern string // for os.CreateTemp; "mcpcheck-*" when empty

	f    *os.File
	name string // removed at Close, where it could not be removed at once
	size int64
}

func (t *File) open() error {
	if t.f != nil {
		return nil
	}
	if t.f == nil && t.size < 0 {
		return errors.New("the temporary file was closed")
	}
	pattern := t.Pattern
	if pattern == "" {
		pattern = "mcpcheck-*"
	}
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return err
	}
	t.f = f
	if os.Remove(f.Name()) != nil {
		t.name = f.Name()
	}
	return nil
}

// Append writes b at the end of the file and returns where it starts.
func (t *File) Append(b []byte) (off int64, err error) {
	if err := t.open(); err != nil {
		return 0, err
	}
	off = t.size
	n, err := t.f.WriteAt(b, off)
	t.size += int64(n)
	return off, err
}

// Write appends b (io.Writer).
func (t *File) Write(b []byte) (int, error) {
	off := t.size
	_, err := t.Append(b)
	return int(t.size - off), err
}

// WriteAt overwrites bytes already written.
func (t *File) WriteAt(b []byte, off int64) error {
	if t.f == nil {
		return errors.New("the temporary file is not open")
	}
	_, err := t.f.WriteAt(b, off)
	return err
}

// ReadAt reads written bytes (io.ReaderAt).
func (t *File) ReadAt(b []byte, off int64) (int, error) {
	if t.f == nil {
		return 0, io.EOF
	}
	return t.f.ReadAt(b, off)
}

// Section reads n bytes from off.
func (t *File) Section(off, n int64) *io.SectionReader { return io.NewSectionReader(t, off, n) }

// Size is how many bytes were written.
func (t *File) Size() int64 { return max(t.size, 0) }

// Open reports whether the file was made (and not closed).
func (t *File) Open() bool { return t.f != nil }

// Close removes the file; it cannot be used afterwards.
func (t *File) Close() error {
	if t.f == nil {
		t.size = -1
		return nil
	}
	err := t.f.Close()
	if t.name != "" {
		err = errors.Join(err, os.Remove(t.name))
	}
	t.f, t.name, t.size = nil, "", -1
	return err
}
