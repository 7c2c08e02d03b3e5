package readers

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mcpcheck/mcpcheck/session"
)

// arrows is a test-only capture format, to prove that a format outside
// mcpsnoop feeds the correlator: a "# arrows" header line, then one
// JSON-RPC message per line, "> " for client to server, "< " for server
// to client. The whole file is one session named after the file.
type arrows struct{}

func (arrows) Name() string            { return "arrows" }
func (arrows) Patterns() []string      { return []string{"*.arrows"} }
func (arrows) Detect(head []byte) bool { return bytes.HasPrefix(head, []byte("# arrows\n")) }

func (arrows) Read(name string, r io.Reader, c *session.Correlator, _ Options) error {
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		text, err := br.ReadString('\n')
		text = strings.TrimSuffix(text, "\n")
		dir := session.DirUnknown
		switch {
		case strings.HasPrefix(text, "> "):
			dir = session.ClientToServer
		case strings.HasPrefix(text, "< "):
			dir = session.ServerToClient
		}
		if dir != session.DirUnknown {
			raw := []byte(text[2:])
			if json := bytes.TrimSpace(raw); len(json) > 0 && (json[len(json)-1] == '}' || json[len(json)-1] == ']') {
				c.Add(&session.Frame{File: name, Line: line, SessionID: name, Direction: dir, Raw: raw})
			} else {
				c.Damage(session.Damage{File: name, Line: line, Reason: "a message cut short"}, session.Survived{SessionID: name, Direction: dir})
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	return c.Finish()
}

// withArrows is the formats with arrows after them.
func withArrows() []Format { return append(All(), arrows{}) }

func TestAnotherFormatFeedsTheCorrelator(t *testing.T) {
	t.Parallel()
	var names []string
	for _, f := range withArrows() {
		names = append(names, f.Name())
	}
	if !slices.Contains(names, "mcpsnoop") || names[len(names)-1] != "arrows" {
		t.Fatalf("formats in detection order: %s", names)
	}

	capture := lines(
		"# arrows",
		`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ec`,
		`< {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`< {"jsonrpc":"2.0","id":2,"result":{"content":[]}}`,
		`< [{"jsonrpc":"2.0","id":7,"result":{}}]`,
	)
	rec := &recorder{}
	if err := readAs(withArrows(), "calls.arrows", strings.NewReader(capture), rec, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	if len(rec.sessions) != 1 || rec.sessions[0].ID != "calls.arrows" {
		t.Fatalf("sessions %v", rec.sessions)
	}
	// The answer pairs with its request; the answer whose request was cut
	// is excused by the damage; the batch is split and its answer is
	// unmatched once the reorder window closes.
	if got, want := pairings(rec), "2:opened 4:answered 5:absorbed 6:unmatched"; got != want {
		t.Errorf("pairings %s, want %s", got, want)
	}
	if req, res := byLine(rec, 2), byLine(rec, 4); res.Call == nil || res.Call != req.Call || res.Call.Name != "echo" {
		t.Errorf("the answer is not paired with its request: %+v", res.Call)
	}
	if f := byLine(rec, 6); f.Element != 1 || f.Elements != 1 {
		t.Errorf("batch element %d of %d", f.Element, f.Elements)
	}
	if len(rec.damage) != 1 || rec.damage[0].Line != 3 {
		t.Errorf("damage %+v", rec.damage)
	}

	// mcpsnoop captures are still read as such, and a file of neither
	// format names both.
	readString(t, lines(env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	err := readAs(withArrows(), "notes.txt", strings.NewReader("hello\n"), &recorder{}, nil, Options{})
	if err == nil || err.Error() != "notes.txt:1: not a capture: the first line is not a JSON envelope (formats tried: "+strings.Join(names, ", ")+")" {
		t.Errorf("err = %v", err)
	}
}

// Formats see the first content however much white space comes before it,
// and line numbers still count from the start of the file.
func TestDetectionPastLeadingWhiteSpace(t *testing.T) {
	t.Parallel()
	blank := strings.Repeat("\n", 70<<10) + strings.Repeat(" ", 70<<10)
	rec := readString(t, blank+"\n"+lines(env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	if len(rec.frames) != 1 || rec.frames[0].Line != 70<<10+2 {
		t.Fatalf("frames %d, line %d", len(rec.frames), rec.frames[0].Line)
	}
	var nc *NotCaptureError
	err := Read("x.jsonl", strings.NewReader(blank+"\nhello\n"), &recorder{}, Options{})
	if !errors.As(err, &nc) || nc.Line != 70<<10+2 {
		t.Errorf("err = %v", err)
	}
	err = Read("x.jsonl", io.MultiReader(strings.NewReader("\n\n"), iotest.ErrReader(errors.New("disk on fire"))), &recorder{}, Options{})
	if err == nil || errors.As(err, &nc) || !strings.Contains(err.Error(), "x.jsonl:3: disk on fire") {
		t.Errorf("a read error before any content: %v", err)
	}
}

// Detection asks the formats in the order All lists them, which is the
// order they were detected in when each registered itself from an init
// function (file names' order, mcpsnoop's from format.go): the order
// "formats tried" and --input-format's list name them in.
func TestDetectionOrder(t *testing.T) {
	t.Parallel()
	var names []string
	for _, f := range All() {
		names = append(names, f.Name())
	}
	if got, want := strings.Join(names, " "), "claude-desktop mcpsnoop har jsonrpc logrocket mcp-rewind"; got != want {
		t.Errorf("detection order %s, want %s", got, want)
	}
}
