package readers

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
)

// NotCaptureError says a file is not a capture at all.
type NotCaptureError struct {
	File    string
	Line    int // 0 when the problem is the file as a whole
	Reason  string
	Formats []string // the formats tried, when none recognised the file
}

func (e *NotCaptureError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": not a capture: ")
	b.WriteString(e.Reason)
	if len(e.Formats) > 0 {
		b.WriteString(" (formats tried: " + strings.Join(e.Formats, ", ") + ")")
	}
	return b.String()
}

// Read reads one capture from r, calling h for every frame, damage and
// session end. name is how the capture is named in messages. The format is
// detected from the first bytes (after decompression) by asking each
// format of All in turn. o tunes the read (a zero field is its default).
// It returns a *NotCaptureError when r is not a capture, or the read error
// that stopped it; damage inside a capture is reported through h and is
// not an error.
func Read(name string, r io.Reader, h session.Handler, o Options) error {
	return ReadAs(name, r, h, nil, o)
}

// ReadAs is Read with the format forced: r is read as f, and a capture f
// does not recognise is a *NotCaptureError naming f. A nil f detects the
// format as Read does.
func ReadAs(name string, r io.Reader, h session.Handler, f Format, o Options) error {
	return readAs(formats, name, r, h, f, o)
}

// readAs is ReadAs detecting among the formats of list (All, or more in
// tests).
func readAs(list []Format, name string, r io.Reader, h session.Handler, f Format, o Options) error {
	o = o.orDefaults()
	br := bufio.NewReaderSize(r, 64<<10)
	var in io.Reader = br
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return &NotCaptureError{File: name, Reason: "gzip header: " + err.Error()}
		}
		defer zr.Close()
		in = &gzipErrors{zr}
	}
	in = &lineEnds{r: in}
	head, body, err := sniff(in)
	if f != nil {
		list = []Format{f}
	}
	for _, f := range list {
		if !f.Detect(head) {
			continue
		}
		c := session.NewCorrelator(name, h, o.Limits)
		err := f.Read(name, body, c, o)
		c.Stop()                             // a format that failed may not have finished
		if err == nil && c.Finish() != nil { // the format did not say why itself
			err = &NotCaptureError{File: name, Reason: "nothing in it belongs to a session"}
		}
		if cerr := c.Err(); cerr != nil {
			return fmt.Errorf("%s: %w", name, cerr) // not a verdict on the capture
		}
		return err
	}
	line, reason := notDetected(head)
	if err != nil { // unreadable before anything was recognised
		return fmt.Errorf("%s:%d: %w", name, max(line, 1+bytes.Count(head, []byte("\n"))), err)
	}
	names := make([]string, len(list))
	for i, f := range list {
		names[i] = f.Name()
	}
	if f != nil && line > 0 {
		reason = "it does not match the forced format " + f.Name()
	}
	return &NotCaptureError{File: name, Line: line, Reason: reason, Formats: names}
}

// headSize is how much of a capture formats see to recognise it (more when
// it starts with white space).
const headSize = 64 << 10

// maxLeadingSpace bounds the white space read before giving up on a head.
const maxLeadingSpace = 1 << 20

// sniff reads the head of r, without a byte order mark, and returns it with
// a reader of the whole stream (head included). A read error is kept for
// the body to return after the head, so that a format sees what arrived.
func sniff(r io.Reader) (head []byte, body io.Reader, err error) {
	buf := make([]byte, 0, headSize)
	content := -1 // offset of the first byte that is not white space
	for err == nil {
		if len(buf) == cap(buf) {
			if content >= 0 || len(buf) >= maxLeadingSpace {
				break
			}
			buf = slices.Grow(buf, headSize) // only white space so far
		}
		var n int
		n, err = r.Read(buf[len(buf):cap(buf)])
		from := len(buf)
		buf = buf[:from+n]
		for i := from; content < 0 && i < len(buf); i++ {
			if !isSpace(buf[i]) {
				content = i
			}
		}
	}
	buf = bytes.TrimPrefix(buf, []byte("\ufeff")) // some editors write a byte order mark
	var rest io.Reader = r
	switch {
	case errors.Is(err, io.EOF):
		rest, err = eofReader{}, nil
	case err != nil:
		rest = errReader{err}
	}
	return buf, io.MultiReader(bytes.NewReader(buf), rest), err
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// notDetected says why no format recognised head, and at which line.
func notDetected(head []byte) (line int, reason string) {
	i := 0
	for i < len(head) && isSpace(head[i]) {
		i++
	}
	if i == len(head) {
		if len(head) >= maxLeadingSpace {
			return 0, "it starts with more than 1 MiB of white space"
		}
		return 0, "the file is empty"
	}
	line = 1 + bytes.Count(head[:i], []byte("\n"))
	if head[i] == '{' {
		return line, "the first object is not an envelope"
	}
	return line, "the first line is not a JSON envelope"
}

// lineEnds lets a capture whose lines end in a lone CR (classic Mac OS,
// some Windows tools' exports) number its lines like any other: the first
// line ending decides, and in a file that ends lines with CR alone every CR
// reads as LF (CR and LF are the same white space to JSON, and neither may
// stand raw inside a JSON string). Files that end lines in LF or CRLF pass
// through untouched.
type lineEnds struct {
	r    io.Reader
	mode uint8 // lineEndsUndecided, lineEndsLF, lineEndsCR
	held bool  // a CR ended the last read: its next byte decides
}

const (
	lineEndsUndecided uint8 = iota
	lineEndsLF
	lineEndsCR
)

func (l *lineEnds) Read(p []byte) (int, error) {
	switch l.mode {
	case lineEndsLF:
		return l.r.Read(p)
	case lineEndsCR:
		n, err := l.r.Read(p)
		crToLF(p[:n])
		return n, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	off := 0
	if l.held {
		p[0], off, l.held = '\r', 1, false
	}
	n, err := l.r.Read(p[off:])
	n += off
	b := p[:n]
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		switch {
		case b[i] == '\n' || (i+1 < n && b[i+1] == '\n'):
			l.mode = lineEndsLF
		case i+1 < n || err != nil: // a lone CR, or the input's last byte
			l.mode = lineEndsCR
			crToLF(b[i:])
		default:
			l.held = true // hold it back until its next byte is known
			return n - 1, nil
		}
	}
	return n, err
}

func crToLF(b []byte) {
	for i := bytes.IndexByte(b, '\r'); i >= 0; i = bytes.IndexByte(b, '\r') {
		b[i] = '\n'
		b = b[i+1:]
	}
}

// gzipErrors marks decompression failures so that a truncated .gz reads as
// a damaged capture, not as an unreadable file.
type gzipErrors struct{ r io.Reader }

type gzipError struct{ err error }

func (e gzipError) Error() string { return "compressed data: " + e.err.Error() }

func (g *gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = gzipError{err}
	}
	return n, err
}
