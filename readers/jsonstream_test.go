package readers

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// The walker finds records across buffer boundaries, whatever their
// strings hold, and counts lines as it goes.
func TestJSONStreamWalk(t *testing.T) {
	t.Parallel()
	doc := "{\n \"skip\": {\"a\": [1, \"}]\\\"\", {\"b\": null}]},\n \"n\": -12.5e3,\n \"records\": [\n  {\"x\": \"{[\\\\\"},\n\n  true,\n  \"s\\\"]\" ,  7\n ],\n \"last\": false\n}"
	js := newJSONStream(strings.NewReader(doc), Options{MaxEnvelope: 1 << 20, ReadBuffer: 16}.orDefaults())
	var got []string
	var lines []int
	err := js.object(func(name string) error {
		switch name {
		case "records":
			return js.array(func() error {
				js.peek()
				line := js.line
				raw, err := js.capture(1 << 20)
				got, lines = append(got, string(raw)), append(lines, line)
				return err
			})
		case "n":
			raw, err := js.capture(64)
			got, lines = append(got, string(raw)), append(lines, js.line)
			return err
		}
		return js.skip()
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-12.5e3", `{"x": "{[\\"}`, "true", `"s\"]"`, "7"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("records %q", got)
	}
	if wl := []int{3, 5, 7, 8, 8}; len(lines) != len(wl) || lines[0] != wl[0] || lines[1] != wl[1] || lines[2] != wl[2] || lines[3] != wl[3] || lines[4] != wl[4] {
		t.Errorf("lines %v, want %v", lines, wl)
	}
	if _, err := js.peek(); err == nil || js.line != 11 {
		t.Errorf("after the document: line %d, %v", js.line, err)
	}
}

func TestJSONStreamErrors(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{`{"a": [1, 2`, `{"a" 1}`, `{"a": 1 "b": 2}`, `[1,]`, `{"a": "open`} {
		js := newJSONStream(strings.NewReader(doc), Options{MaxEnvelope: 1 << 20}.orDefaults())
		err := js.object(func(string) error { return js.skip() })
		var se *streamError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v", doc, err)
		}
	}
	js := newJSONStream(strings.NewReader(`["`+strings.Repeat("x", 100)+`", 1]`), Options{MaxEnvelope: 1 << 20}.orDefaults())
	var sizes []error
	js.array(func() error {
		_, err := js.capture(50)
		sizes = append(sizes, err)
		return nil
	})
	if len(sizes) != 2 || !errors.Is(sizes[0], errValueTooLarge) || sizes[1] != nil {
		t.Errorf("a value over the bound is skipped, the next one read: %v", sizes)
	}
}

func TestSSEEvents(t *testing.T) {
	t.Parallel()
	body := ": comment\r\nretry: 100\r\nid: 0\r\ndata:\r\n\r\nevent: message\rdata:{\"a\":1}\r\rdata: first\ndata:  second\nid: 7\n\ndata: cut"
	var got []string
	eachSSEEvent([]byte(body), func(ev sseEvent) {
		got = append(got, ev.Type+"|"+string(ev.Data)+"|"+strconv.Itoa(ev.Line)+"|"+map[bool]string{true: "complete", false: "cut"}[ev.Complete])
	})
	want := []string{`message|{"a":1}|5|complete`, "|first\n second|8|complete", "|cut|12|cut"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !looksLikeSSE([]byte("\n\nevent: x")) || looksLikeSSE([]byte(`{"data":1}`)) {
		t.Error("looksLikeSSE")
	}
}
