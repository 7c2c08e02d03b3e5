// Package readers reads capture files: it resolves the command line's
// captures into sources, undoes compression, byte order marks and lone-CR
// line ends, detects each capture's format (All, in order) and has that
// format feed the frames and damage it reads to a session.Correlator.
//
// Each format is one file (mcpsnoop.go, claudedesktop.go, jsonrpc.go,
// har.go, mcprewind.go, logrocket.go) plus its line in formats.go; what
// several formats share lives in files of its own (split.go, jsonstream.go,
// sse.go, headers.go, endpoints.go, labels.go, claudelog.go, jsonvalue.go,
// httpcapture.go, dirformat.go), so that deleting a format's file breaks no
// other (TestEachFormatFileStandsAlone).
package readers

import (
	"io"
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
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
	Read(name string, r io.Reader, c *session.Correlator, o Options) error
}

// formats is All, made once: the list every read asks (never changed).
var formats = All()

// Lookup returns the format named name (case-insensitive), or
// nil when there is none.
func Lookup(name string) Format {
	for _, f := range formats {
		if strings.EqualFold(f.Name(), strings.TrimSpace(name)) {
			return f
		}
	}
	return nil
}
