package readers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/sharedtest"
	"github.com/mcpcheck/mcpcheck/session"
)

// transcript is a handler that writes down everything it is told, as it
// is told (frames' bytes are valid only then).
type transcript struct{ strings.Builder }

func (t *transcript) Frame(s *session.Session, f *session.Frame) {
	fmt.Fprintf(t, "frame %s %d %s %q %s %v %v\n", s.ID, f.Line, f.Direction, f.Raw, f.Pairing, f.Msg.Kind, f.EnvelopeProblems)
}
func (t *transcript) Damage(s *session.Session, d session.Damage) {
	fmt.Fprintf(t, "damage %s %d %s\n", s.ID, d.Line, d.Reason)
}
func (t *transcript) End(s *session.Session) { fmt.Fprintf(t, "end %s %d\n", s.ID, s.Frames) }

// readBothWays reads capture with and without the newline fast path.
func readBothWays(t *testing.T, capture string) (fast, scanned string) {
	t.Helper()
	read := func(o Options) string {
		var tr transcript
		err := Read("t.jsonl", strings.NewReader(capture), &tr, o)
		return fmt.Sprintf("%s%v\n", tr.String(), err)
	}
	return read(Options{}), read(Options{NoWholeLines: true})
}

var wholeLineSeeds = []string{
	env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`) + "\n" + env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`) + "\n",
	env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`) + env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`) + "\n", // two on a line
	env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`) + " \r\n" + `{"session_id":"s","seq":2,"direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{"a":"x}` + "\n" + env(3, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`) + "\n",
	env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`) + "\nnot json at all}\n{\"session_id\":\"s\"}}\n" + env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`) + "\n",
	env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping","id":2}`) + "\n{\"session_id\":\"s\",\"seq\":2,\n\"direction\":\"s2c\",\"raw\":{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}}\n",
	env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`) + "\n" + `{"session_id":"s","seq":2,"direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{}}} {"x":1}` + "\n[1,2]\n{}\n",
}

// TestWholeLinesAsScanned: the newline fast path reads every capture of the
// package's tests and the project's testdata exactly as scanning does.
func TestWholeLinesAsScanned(t *testing.T) {
	t.Parallel()
	captures := append([]string(nil), wholeLineSeeds...)
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "*.jsonl"))
	fixtures, _ := filepath.Glob(filepath.Join("..", "checks", "testdata", "*", "*.jsonl"))
	twins, _ := filepath.Glob(filepath.Join("..", "testdata", "formats", "mcpsnoop", "*.jsonl"))
	for _, p := range append(append(paths, fixtures...), twins...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		captures = append(captures, string(b))
	}
	if len(captures) < 50 {
		t.Fatalf("only %d captures found", len(captures))
	}
	for i, c := range captures {
		if fast, scanned := readBothWays(t, c); fast != scanned {
			t.Errorf("capture %d read differently\nfast path:\n%s\nscanned:\n%s", i, fast, scanned)
		}
	}
}

func FuzzWholeLines(f *testing.F) {
	for _, s := range wholeLineSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, capture string) {
		if fast, scanned := readBothWays(t, capture); fast != scanned {
			t.Errorf("read differently\nfast path:\n%s\nscanned:\n%s", fast, scanned)
		}
	})
}

// TestWholeLinesOnRealCaptures: the same on the shared real captures.
func TestWholeLinesOnRealCaptures(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Path(t, "captures")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(paths) == 0 {
		t.Fatalf("no captures in %s", dir)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if fast, scanned := readBothWays(t, string(b)); fast != scanned {
			t.Errorf("%s read differently\nfast path:\n%.3000s\nscanned:\n%.3000s", filepath.Base(p), fast, scanned)
		}
	}
}
