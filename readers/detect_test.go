package readers

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// detectedAs lists the formats that recognise a capture's head.
func detectedAs(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head, _, err := sniff(f)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, format := range All() {
		if format.Detect(head) {
			names = append(names, format.Name())
		}
	}
	return names
}

// Detection is unambiguous: every registered format has fixtures in
// testdata/formats/NAME, and each of them is recognised by that format and
// no other (the project's mcpsnoop captures and every rule fixture too;
// rule fixtures in plain JSON-RPC, *.ndjson, are held to jsonrpc). A format
// whose captures are directories is proved by its own tests.
func TestDetectionIsUnambiguous(t *testing.T) {
	t.Parallel()
	for _, format := range All() {
		name := format.Name()
		entries, err := os.ReadDir(filepath.Join("..", "testdata", "formats", name))
		if err != nil || len(entries) == 0 {
			t.Errorf("format %s has no fixtures in testdata/formats/%s: %v", name, name, err)
			continue
		}
		paths := []string{}
		for _, e := range entries {
			if !e.IsDir() {
				paths = append(paths, filepath.Join("..", "testdata", "formats", name, e.Name()))
			}
		}
		if name == "jsonrpc" {
			plain, _ := filepath.Glob(filepath.Join("..", "checks", "testdata", "*", "*.ndjson"))
			paths = append(paths, plain...)
		}
		if name == "mcpsnoop" {
			more, _ := filepath.Glob(filepath.Join("..", "testdata", "*.jsonl"))
			rules, _ := filepath.Glob(filepath.Join("..", "checks", "testdata", "*", "*.jsonl"))
			paths = append(append(paths, more...), rules...)
		}
		for _, p := range paths {
			if got := detectedAs(t, p); len(got) != 1 || got[0] != name {
				t.Errorf("%s: detected as %v, want only %s", p, got, name)
			}
		}
	}
}

// The readers give the same frames whatever the size of the read buffer,
// and never keep bytes past a frame.
func TestFormatsWithATinyReadBuffer(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "formats", "*", "*"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // a directory
		}
		want := &frameLog{}
		if err := Read(p, bytes.NewReader(data), want, Options{}); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got := &frameLog{}
		err = Read(p, bytes.NewReader(data), got, Options{ReadBuffer: 64})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		sameLines(t, p, got.got, want.got)
		sameLines(t, p+" damage", got.damage, want.damage)

		// and a reader that streams through the splitter reuses its
		// buffers: a handler that kept a frame's bytes without copying them
		// would see them change (the HTTP recorders' readers build each
		// frame from a copy of its entry, so nothing changes there)
		if f := filepath.Base(filepath.Dir(p)); f == "har" || f == "logrocket" {
			continue
		}
		k := &keeper{}
		err = Read(p, bytes.NewReader(data), k, Options{ReadBuffer: 64})
		if err != nil || len(k.changed()) == 0 {
			t.Errorf("%s: no kept frame changed under a 64-byte buffer (%v)", p, err)
		}
	}
}
