package session_test

import (
	"errors"
	"fmt"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
	"io"
	"strings"
	"testing"
)

// pipelineCapture has damage between frames, a message too large for a
// batch (borrowed from the reader), an answer held back until its request,
// and a JSON-RPC batch array: everything the pipeline must keep in order.
func pipelineCapture() string {
	big := strings.Repeat("x", 100<<10)
	return lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		`{"session_id":"s1","seq":2,"direction":"s2c","raw":{"jsonrpc":"2.0",`, // torn
		env(3, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`),
		env(4, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"early"}]}}`),
		env(5, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a"}}}`),
		env(6, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"b"}}}`),
		env(7, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"`+big+`"}]}}`),
		"not json at all",
		env(9, "c2s", `[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`),
		env(10, "s2c", `{"jsonrpc":"2.0","id":4,"result":{}}`),
		env(11, "s2c", `{"jsonrpc":"2.0","id":3,"result":{}}`),
		env(12, "stderr", "", `"text":"bye"`),
	)
}

// trace is a FrameReleaser that writes down everything it is given, copying
// what it keeps.
type trace struct{ events []string }

func (t *trace) Frame(s *session.Session, f *session.Frame) {
	t.events = append(t.events, fmt.Sprintf("frame %s:%d %s %s id=%s pairing=%s raw=%d bytes, ends %q res=%v",
		s.ID, f.Line, f.Direction, f.Msg.Kind, f.Msg.ID, f.Pairing, len(f.Raw), tail(f.Raw), f.View().ResultFields() != nil))
}
func (t *trace) Damage(s *session.Session, d session.Damage) {
	t.events = append(t.events, fmt.Sprintf("damage %s:%d %s", s.ID, d.Line, d.Reason))
}
func (t *trace) End(s *session.Session) {
	t.events = append(t.events, fmt.Sprintf("end %s frames=%d", s.ID, s.Frames))
}
func (*trace) ReleasesFrames() {}

func tail(b []byte) string { return string(b[max(0, len(b)-12):]) }

func readTrace(t *testing.T, mode session.PipelineMode, buf int, capture string) []string {
	t.Helper()
	tr := &trace{}
	o := readers.Options{ReadBuffer: buf, Limits: session.Limits{Pipeline: mode}}
	if err := readers.Read("t.jsonl", strings.NewReader(capture), tr, o); err != nil {
		t.Fatal(err)
	}
	return tr.events
}

// TestPipelineKeepsOrder: frames, damage and session ends reach the handler
// in the same order with the same contents whichever way the capture is
// read, and the second goroutine has ended when Read returns.
func TestPipelineKeepsOrder(t *testing.T) {
	capture := pipelineCapture()
	want := readTrace(t, session.PipelineNever, 0, capture)
	t.Logf("sequential:\n%s", strings.Join(want, "\n"))
	if len(want) != 14 {
		t.Fatalf("sequential read gave %d events, want 14:\n%s", len(want), strings.Join(want, "\n"))
	}
	for _, mode := range []session.PipelineMode{session.PipelineAlways, session.PipelineTiny} {
		for _, buf := range []int{0, 64} {
			got := readTrace(t, mode, buf, capture)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("mode %d, buffer %d:\n%s\nwant\n%s", mode, buf, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
	if n := session.LivePipelines(); n != 0 {
		t.Errorf("%d pipeline goroutines still running after Read returned", n)
	}
}

// failingReader gives r, then fails.
type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

// TestPipelineStopsOnReadError: a read that fails after frames were queued
// returns the error, with what was queued correlated and the second
// goroutine ended.
func TestPipelineStopsOnReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	tr := &trace{}
	capture := pipelineCapture()
	err := readers.Read("t.jsonl", &failingReader{r: strings.NewReader(capture), err: boom}, tr, readers.Options{Limits: session.Limits{Pipeline: session.PipelineTiny}})
	if !errors.Is(err, boom) {
		t.Fatalf("Read returned %v, want the read error", err)
	}
	if len(tr.events) == 0 {
		t.Error("nothing queued before the error reached the handler")
	}
	if n := session.LivePipelines(); n != 0 {
		t.Errorf("%d pipeline goroutines still running after Read failed", n)
	}
}

// TestPipelineNeedsAReleaser: a handler that may keep frames gets fresh
// ones on the reader's goroutine, whatever the mode.
func TestPipelineNeedsAReleaser(t *testing.T) {
	if session.Overlaps(&recorder{}, session.PipelineAlways) {
		t.Error("a handler that keeps frames would be given the pipeline's reused ones")
	}
	if !session.Overlaps(&trace{}, session.PipelineAlways) {
		t.Error("PipelineAlways does not overlap a releasing handler")
	}
}

// prescanTrace is a trace whose Prescan marks each frame with a hash of
// its bytes and the length of its message's params and result, and which
// writes down, for each frame it is given, whether it came marked and
// whether the mark is that frame's.
type prescanTrace struct {
	trace
	marked, stale int
}

func prescanMark(f *session.Frame) session.Marks {
	m := session.Marks(len(f.Raw))<<40 | session.Marks(len(f.Msg.Params))<<20 | session.Marks(len(f.Msg.Result))
	for _, c := range f.Raw {
		m = m*31 + session.Marks(c)
	}
	return m
}

func (t *prescanTrace) Prescan(f *session.Frame) session.Marks { return prescanMark(f) }

func (t *prescanTrace) Frame(s *session.Session, f *session.Frame) {
	t.trace.Frame(s, f)
	if m, ok := f.Marks(); ok {
		t.marked++
		if m != prescanMark(f) {
			t.stale++
		}
	}
}

// TestPrescanRunsOnTheReaderSide: a read by two goroutines hands every
// frame it decoded on the reader's side to the handler's Prescan there, and
// the frame reaches the handler with that answer; the elements of a batch
// array, which correlation splits, come unmarked, as does every frame of a
// sequential read. Order and contents are the sequential read's.
func TestPrescanRunsOnTheReaderSide(t *testing.T) {
	capture := pipelineCapture()
	read := func(mode session.PipelineMode, buf int) *prescanTrace {
		tr := &prescanTrace{}
		o := readers.Options{ReadBuffer: buf, Limits: session.Limits{Pipeline: mode}}
		if err := readers.Read("t.jsonl", strings.NewReader(capture), tr, o); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	seq := read(session.PipelineNever, 0)
	if seq.marked != 0 {
		t.Errorf("a sequential read marked %d frames", seq.marked)
	}
	for _, mode := range []session.PipelineMode{session.PipelineAlways, session.PipelineTiny} {
		for _, buf := range []int{0, 64} {
			got := read(mode, buf)
			if strings.Join(got.events, "\n") != strings.Join(seq.events, "\n") {
				t.Errorf("mode %d, buffer %d: the events change with a Prescanner:\n%s\nwant\n%s", mode, buf, strings.Join(got.events, "\n"), strings.Join(seq.events, "\n"))
			}
			// 11 frames: all but the two elements of the batch array.
			if got.marked != 9 || got.stale != 0 {
				t.Errorf("mode %d, buffer %d: %d frames marked (want 9), %d with another frame's mark", mode, buf, got.marked, got.stale)
			}
		}
	}
}
