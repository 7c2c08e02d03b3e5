package main

import (
	"bytes"
	"io"
	"os"
)

// consoleMemory is how much of stdout's report is held in memory before the
// rest goes to a temporary file.
const consoleMemory = 1 << 20

// console holds stdout's report until every output file is in place, so
// that a failure leaves nothing half-written: in memory while it is small,
// in a temporary file when a run of many sessions makes it large (spec
// §2.4: a report is never held whole in memory).
type console struct {
	mem bytes.Buffer
	f   *os.File
}

func (c *console) Write(p []byte) (int, error) {
	if c.f == nil && c.mem.Len()+len(p) <= consoleMemory {
		return c.mem.Write(p)
	}
	if c.f == nil {
		f, err := os.CreateTemp("", "mcpcheck-stdout-*")
		if err != nil {
			return 0, err
		}
		os.Remove(f.Name()) // it lives while open, and nothing is left behind
		c.f = f
		if _, err := c.f.Write(c.mem.Bytes()); err != nil {
			return 0, err
		}
		c.mem = bytes.Buffer{}
	}
	return c.f.Write(p)
}

// WriteTo copies what was written to w.
func (c *console) WriteTo(w io.Writer) (int64, error) {
	if c.f == nil {
		return c.mem.WriteTo(w)
	}
	if _, err := c.f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	return io.Copy(w, c.f)
}

func (c *console) Close() {
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
}
