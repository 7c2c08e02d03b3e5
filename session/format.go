package session

import (
	"io"
	"slices"
	"strings"
	"sync"
)

// Format is one capture format: it recognises its files and turns them into
// frames and damage for a Correlator. Decompression and byte order marks are
// handled before a format sees a byte.
type Format interface {
	// Name is how users and messages name the format.
	Name() string
	// Patterns are the file names a directory argument contributes, as
	// filepath.Match patterns ("*.jsonl"); their .gz forms count too.
	Patterns() []string
	// Detect reports whether a capture that starts with head is of this
	// format. head is the first 64 KiB or so, less when the file is
	// shorter; it may end inside a value.
	Detect(head []byte) bool
	// Read feeds every frame and every damaged piece of r to c, then calls
	// c.Finish. It returns a *NotCaptureError when r turns out not to be a
	// capture, or the read error that stopped it.
	Read(name string, r io.Reader, c *Correlator) error
}

var registry struct {
	sync.RWMutex
	formats []Format // in detection order
}

func init() { Register(mcpsnoop{}) }

// Register adds a format after the registered ones; Read asks them in that
// order. It panics on a name already registered: that is a programming
// error, made at start-up.
func Register(f Format) {
	registry.Lock()
	defer registry.Unlock()
	for _, g := range registry.formats {
		if g.Name() == f.Name() {
			panic("session: format " + f.Name() + " registered twice")
		}
	}
	registry.formats = append(registry.formats, f)
}

// Formats returns the registered formats in detection order.
func Formats() []Format {
	registry.RLock()
	defer registry.RUnlock()
	return slices.Clone(registry.formats)
}

// Lookup returns the registered format named name (case-insensitive), or
// nil when there is none.
func Lookup(name string) Format {
	for _, f := range Formats() {
		if strings.EqualFold(f.Name(), strings.TrimSpace(name)) {
			return f
		}
	}
	return nil
}
