package readers

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// DirFormat is a Format whose capture is a directory of files rather than
// one file (mcp-rewind's cache). Resolve reads such a directory as one
// capture instead of expanding it into capture files.
type DirFormat interface {
	Format
	// DirFiles returns those of the regular files named names that make
	// up a capture of this format in their directory, none when the
	// directory holds no such capture.
	DirFiles(names []string) []string
}

// A directory capture reaches its format as a stream like any capture: the
// Source opens a short manifest naming the format and the directory, which
// that format's Detect recognises and its Read follows. The manifest
// carries a token drawn at start-up, so no file (nor standard input) can
// pass for one and make a format read a directory nobody named.
var dirToken = func() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}()

const manifestPrefix = "mcpcheck directory capture "

func dirManifest(format, dir string) []byte {
	return []byte(manifestPrefix + dirToken + " " + format + "\n" + dir + "\n")
}

// manifestDir returns the directory a manifest of format names.
func manifestDir(format string, head []byte) (string, bool) {
	first, rest, ok := bytes.Cut(head, []byte("\n"))
	if !ok || string(first) != manifestPrefix+dirToken+" "+format {
		return "", false
	}
	dir, _, ok := bytes.Cut(rest, []byte("\n"))
	return string(dir), ok && len(dir) > 0
}

// readManifest reads the directory a format's capture stream names.
func readManifest(format, name string, r io.Reader) (string, error) {
	head, err := io.ReadAll(io.LimitReader(r, 64<<10))
	if err != nil {
		return "", err
	}
	dir, ok := manifestDir(format, head)
	if !ok {
		return "", &NotCaptureError{File: name, Reason: "an " + format + " capture is a directory, not a file"}
	}
	return dir, nil
}

// dirCapture returns the source of dir when a DirFormat of the list reads
// it as one capture, with the files that capture is made of.
func dirCapture(list []Format, dir string, entries []os.DirEntry) (Source, []string, bool) {
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if info, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && info.Mode().IsRegular() {
			names = append(names, e.Name())
		}
	}
	for _, f := range list {
		df, ok := f.(DirFormat)
		if !ok {
			continue
		}
		if files := df.DirFiles(names); len(files) > 0 {
			manifest := dirManifest(f.Name(), dir)
			return Source{Name: dir, Open: func() (io.ReadCloser, error) {
				return io.NopCloser(bytes.NewReader(manifest)), nil
			}}, files, true
		}
	}
	return Source{}, nil, false
}
