package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxEnvelope is the largest envelope read into memory. Larger ones are
// skipped and reported, so one runaway frame cannot exhaust memory.
const MaxEnvelope = 256 << 20

// chunk is one top-level piece of a capture: a complete JSON object or array,
// or something that is not (junk, a torn envelope).
type chunk struct {
	data []byte // valid until the next call of next
	line int    // 1-based line where it starts
	torn string // non-empty: why this chunk is not a complete JSON value
}

// splitter cuts a stream into top-level JSON values without a size limit per
// line: objects may share a line, span lines, or run to tens of MB. It never
// decodes; it only tracks strings and nesting.
type splitter struct {
	r    *bufio.Reader
	max  int
	line int // lines fully consumed

	buf       []byte // the value being assembled
	start     int    // line where buf starts
	depth     int
	inString  bool
	rest      []byte // unconsumed part of the current line
	restLine  int
	oversized bool // buf overflowed max; discard until the value ends
	err       error
	lineBuf   []byte
}

func newSplitter(r io.Reader, max int) *splitter {
	return &splitter{r: bufio.NewReaderSize(r, 256<<10), max: max}
}

// readLine returns the next line without its newline, or io.EOF. A line
// longer than max is returned truncated with long set; the excess is read
// and dropped.
func (s *splitter) readLine() (line []byte, long bool, err error) {
	s.lineBuf = s.lineBuf[:0]
	for {
		part, err := s.r.ReadSlice('\n')
		if len(s.lineBuf)+len(part) <= s.max {
			s.lineBuf = append(s.lineBuf, part...)
		} else {
			long = true
		}
		switch {
		case err == nil:
			s.line++
			return bytes.TrimSuffix(s.lineBuf, []byte("\n")), long, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(s.lineBuf) == 0 && !long {
				return nil, false, io.EOF
			}
			s.line++
			return s.lineBuf, long, nil
		default:
			return nil, false, err
		}
	}
}

// next returns the next chunk, io.EOF at the end, or a read error.
func (s *splitter) next() (chunk, error) {
	for {
		if len(s.rest) == 0 {
			if s.err != nil {
				return s.endOfInput()
			}
			line, long, err := s.readLine()
			if err != nil {
				s.err = err
				continue
			}
			if long {
				if s.depth > 0 {
					s.reset()
				}
				return chunk{line: s.line, torn: fmt.Sprintf("a line of more than %s was skipped", sizeText(s.max))}, nil
			}
			if s.depth > 0 && !s.inString && len(line) > 0 && line[0] == '{' {
				// A new envelope at column 0 while one is open: the open one
				// was torn (pretty-printed objects indent their members).
				c := chunk{data: s.buf, line: s.start, torn: "an envelope that breaks off before it ends"}
				s.reset()
				s.rest, s.restLine = line, s.line
				return c, nil
			}
			s.rest, s.restLine = line, s.line
			if s.depth > 0 {
				s.buf = append(s.buf, '\n')
			}
		}
		if c, ok := s.scan(); ok {
			return c, nil
		}
		if len(s.rest) == 0 && s.depth > 0 && s.inString {
			// JSON strings cannot hold a raw newline: the value is torn.
			c := chunk{data: s.buf, line: s.start, torn: "an envelope that breaks off inside a string"}
			s.reset()
			return c, nil
		}
	}
}

func (s *splitter) endOfInput() (chunk, error) {
	if s.depth > 0 {
		c := chunk{data: s.buf, line: s.start, torn: "the file ends inside an envelope"}
		s.reset()
		return c, nil
	}
	if errors.Is(s.err, io.EOF) {
		return chunk{}, io.EOF
	}
	return chunk{}, s.err
}

// dropLine discards the rest of the current line: after a piece that is not
// an envelope, reading resumes at the next line.
func (s *splitter) dropLine() {
	if s.depth == 0 {
		s.rest = nil
	}
}

func (s *splitter) reset() {
	s.buf, s.depth, s.inString, s.oversized = s.buf[:0], 0, false, false
}

// scan consumes s.rest; ok is true when a chunk is complete.
func (s *splitter) scan() (chunk, bool) {
	b := s.rest
	i := 0
	if s.depth == 0 {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i == len(b) {
			s.rest = nil
			return chunk{}, false
		}
		if b[i] != '{' && b[i] != '[' {
			// Not JSON structure: the rest of the line is one piece of junk.
			c := chunk{data: b[i:], line: s.restLine, torn: "not a JSON object"}
			s.rest = nil
			return c, true
		}
		s.start = s.restLine
		s.buf = s.buf[:0]
		b = b[i:]
		i = 0
	}
	for i < len(b) {
		if s.inString {
			j := indexQuoteOrBackslash(b[i:])
			if j < 0 {
				i = len(b)
				break
			}
			i += j
			if b[i] == '\\' {
				i += 2 // the escaped byte cannot end the string
				continue
			}
			s.inString = false
			i++
			continue
		}
		switch b[i] {
		case '"':
			s.inString = true
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			if s.depth == 0 {
				i++
				s.rest = b[i:]
				if len(s.buf) == 0 && !s.oversized {
					return chunk{data: b[:i], line: s.start}, true // the common case: no copy
				}
				s.appendBuf(b[:i])
				if s.oversized {
					c := chunk{line: s.start, torn: fmt.Sprintf("an envelope of more than %s was skipped", sizeText(s.max))}
					s.reset()
					return c, true
				}
				c := chunk{data: s.buf, line: s.start}
				s.buf = s.buf[:0]
				return c, true
			}
		}
		i++
	}
	if i > len(b) {
		i = len(b)
	}
	s.appendBuf(b)
	s.rest = nil
	return chunk{}, false
}

func (s *splitter) appendBuf(b []byte) {
	if s.oversized {
		return
	}
	if len(s.buf)+len(b) > s.max {
		s.oversized = true
		s.buf = s.buf[:0]
		return
	}
	s.buf = append(s.buf, b...)
}

// indexQuoteOrBackslash finds the next '"' or '\\' in b.
func indexQuoteOrBackslash(b []byte) int {
	q := bytes.IndexByte(b, '"')
	if q < 0 {
		q = len(b)
	}
	if bs := bytes.IndexByte(b[:q], '\\'); bs >= 0 {
		return bs
	}
	if q == len(b) {
		return -1
	}
	return q
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func sizeText(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
