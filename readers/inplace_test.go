package readers

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

// The message an envelope's walk decodes in place is the message decoded
// from the raw value alone, for every envelope line of every fixture and
// shipped capture (rule fixtures break messages in every way rules judge).
func TestEnvelopeDecodesItsMessageInPlace(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob(filepath.Join("..", "checks", "testdata", "*", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "*.jsonl"))
	paths = append(paths, more...)
	if len(paths) < 100 {
		t.Fatalf("only %d captures found", len(paths))
	}
	compared := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<26)
		for n := 1; sc.Scan(); n++ {
			line := sc.Bytes()
			if jsonscan.FirstByte(line) != '{' {
				continue
			}
			var e envelope
			var strs jsonscan.Interner
			var inPlace session.MessageStore
			if e.decode(line, &strs, &inPlace) != nil || jsonscan.FirstByte(e.Raw) != '{' {
				continue
			}
			if !e.HasMsg {
				t.Errorf("%s:%d: raw is an object but no message was decoded", path, n)
				continue
			}
			want := session.DecodeMessage(e.Raw)
			if !reflect.DeepEqual(e.Msg, want) { // pointers compared by what they hold
				t.Errorf("%s:%d: decoded in place:\n%s\nalone:\n%s", path, n, describeMessage(e.Msg), describeMessage(want))
			}
			compared++
		}
	}
	if compared < 500 {
		t.Errorf("only %d messages compared", compared)
	}
}

// describeMessage prints m with what its pointers hold.
func describeMessage(m session.Message) string {
	bare := m
	bare.Req, bare.Res, bare.Error = nil, nil, nil // compared by what they hold
	s := fmt.Sprintf("%+v", bare)
	if m.Req != nil {
		s += fmt.Sprintf("\nreq %+v", *m.Req)
	}
	if m.Res != nil {
		s += fmt.Sprintf("\nres %+v", *m.Res)
	}
	if m.Error != nil {
		s += fmt.Sprintf("\nerror %+v", *m.Error)
	}
	return s
}
