package readers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// maxJunk is how much of a non-JSON line is kept to report and sniff.
const maxJunk = 4 << 10

// notJSON is the torn reason of text that is not JSON at all (a line of
// junk), as opposed to JSON that breaks off.
const notJSON = "not a JSON object"

// chunk is one top-level piece of a capture: a complete JSON object or array,
// or something that is not (junk, a torn envelope).
type chunk struct {
	data []byte // valid until the next call of next
	line int    // 1-based line where it starts
	torn string // non-empty: why this chunk is not a complete JSON value
	// whole says the chunk is a whole line taken unscanned (the newline
	// fast path): it is what scanning would have cut only if it is one
	// valid JSON value, which the reader's decode finds out; when it is
	// not, the reader calls undoWhole and gets the line scanned.
	whole bool
	// over says the chunk is a value larger than the splitter's max: data
	// is its first max bytes (torn says so for a format that reads no
	// prefix).
	over bool
	// brokenOff, with torn, says the chunk is where a compressed stream
	// breaks off: the splitter's lost says what that lost.
	brokenOff bool
	// deep says the value nests deeper than jsonscan.MaxDepth (a format
	// may read it clipped, spec §2.1); never set on a whole line.
	deep bool
	// lasting says data is a buffer of its own that the splitter lets go
	// of and never writes again (a value too large for the reused one):
	// what keeps a slice of it need not copy it.
	lasting bool
}

// splitter cuts a stream into top-level JSON values: objects may share a
// line, span lines, or run to tens of MB. It reads the stream in pieces of
// at most its buffer size and assembles a value across pieces, so memory is
// bounded by the largest value kept (max), never by the length of a line.
// It does not decode; it only tracks strings and nesting.
type splitter struct {
	r    *bufio.Reader
	max  int
	wipe bool // overwrite the assembly buffer before each value (a test buffer size)
	// recordStart, when set, is how the format's writer starts every
	// record: at column 0 it always starts a new one.
	recordStart []byte

	lost        string // what the break of a compressed stream lost (chunk.brokenOff)
	piece       []byte // unconsumed bytes of the current piece
	err         error  // the error that ended reading, io.EOF included
	line        int    // line of the next unconsumed byte
	atLineStart bool   // the next unconsumed byte starts a line

	// the value being assembled
	depth     int
	arrays    []bool // for each open container, whether it is an array (up to maxDepth)
	prev      byte   // the last structural byte outside strings ('"' for a string)
	inString  bool
	escaped   bool     // a backslash ended the previous piece inside a string
	start     int      // line where the value starts
	buf       valueBuf // its bytes from earlier pieces
	oversized bool     // it outgrew max; its bytes are dropped
	deep      bool     // it nests deeper than jsonscan.MaxDepth

	// The prelude: an input that shows no record of the format in its
	// first preludeLimit bytes is given up on (spec §2.1), whether it is
	// junk, a stream of non-records or one endless value.
	preludeLimit int64                  // 0: no limit (any longer)
	preludeOK    func(open []byte) bool // whether to read on; open is the value under way
	// firstOver, when set, says whether a value that outgrew max ends the
	// read (errFirstOver): a reader that has seen no record of its format
	// yet cannot tell an endless first value from a capture.
	firstOver func() bool
	consumed  int64 // bytes read so far

	// text that is skipped to the end of its line
	junk     bool // non-JSON text, reported when its line ends
	junkLine int
	junkBuf  []byte
	skipLine bool // the rest of a line after a damaged piece, dropped silently

	// wholeLines turns the newline fast path on: set by a reader that
	// decodes each chunk and calls undoWhole when a whole one is not one
	// JSON value.
	wholeLines   bool
	noWholeLines bool   // Options.NoWholeLines: the fast path stays off
	wholeLine    []byte // the line the last whole chunk came from
	scanLine     bool   // undoWhole was called: scan the current piece
}

// errPrelude is what next returns when the prelude ran out.
var errPrelude = errors.New("no record in the prelude")

// errFirstOver is what next returns when a first value outgrew max.
var errFirstOver = errors.New("the first value is too large")

// newSplitter reads r through a buffer of o.ReadBuffer bytes, keeping
// values of up to o.MaxEnvelope; when r already is a bufio.Reader at least
// that large, that one buffer is the only one.
func newSplitter(r io.Reader, o Options) *splitter {
	return &splitter{r: bufio.NewReaderSize(r, o.ReadBuffer), max: o.MaxEnvelope, wipe: o.wipes(), noWholeLines: o.NoWholeLines, line: 1, atLineStart: true}
}

// next returns the next chunk, io.EOF at the end, or a read error.
func (s *splitter) next() (chunk, error) {
	for {
		if len(s.piece) == 0 {
			if s.err != nil {
				return s.endOfInput()
			}
			p, err := s.r.ReadSlice('\n')
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				s.err = err
			}
			if s.oversized && s.firstOver != nil && s.firstOver() {
				return chunk{}, errFirstOver
			}
			s.piece, s.scanLine = p, false
			s.consumed += int64(len(p))
			if s.preludeLimit > 0 && s.consumed >= s.preludeLimit {
				s.preludeLimit = 0
				var open []byte
				if s.depth > 0 {
					open = s.buf.head // its first bytes
				}
				if !s.preludeOK(open) {
					return chunk{}, errPrelude
				}
			}
			continue
		}
		if c, ok := s.whole(); ok {
			return c, nil
		}
		if c, ok := s.scan(); ok {
			return c, nil
		}
	}
}

func (s *splitter) endOfInput() (chunk, error) {
	// A compressed capture that breaks off mid-value is one fault: the value
	// is torn because the file is, and nothing follows.
	var gz gzipError
	brokenOff := errors.As(s.err, &gz)
	switch {
	case s.depth > 0:
		c := chunk{data: s.buf.bytes(), line: s.start, torn: "the file ends inside an envelope"}
		if brokenOff {
			c.torn = "the compressed capture breaks off inside an envelope: " + gz.err.Error()
			c.brokenOff, s.lost = true, lostToBreak(gz)
			s.err = io.EOF
		}
		s.reset()
		return c, nil
	case s.junk:
		s.junk = false
		c := chunk{data: s.junkBuf, line: s.junkLine, torn: notJSON}
		if brokenOff {
			c.torn = "the compressed capture breaks off inside a line: " + gz.err.Error()
			c.brokenOff, s.lost = true, lostToBreak(gz)
			s.err = io.EOF
		}
		return c, nil
	case errors.Is(s.err, io.EOF):
		return chunk{}, io.EOF
	}
	return chunk{}, s.err
}

// whole is the newline fast path: a line that starts with '{' at column 0
// and ends with '}' (and white space) is taken whole, without scanning it
// for where its value ends; the reader's decode walks it anyway. Only when
// nothing is under way, so that scanning would start at the same byte.
func (s *splitter) whole() (chunk, bool) {
	b := s.piece
	if !s.wholeLines || s.noWholeLines || s.scanLine || s.depth != 0 || s.junk || s.skipLine || !s.atLineStart || len(b) < 3 || b[0] != '{' || b[len(b)-1] != '\n' {
		return chunk{}, false
	}
	k := len(b) - 2
	for k > 0 && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r') {
		k--
	}
	if b[k] != '}' || k+1 > s.max {
		return chunk{}, false
	}
	s.startValue()
	s.wholeLine, s.piece, s.prev = b, nil, '}'
	s.newline()
	return chunk{data: b[:k+1], line: s.start, whole: true}, true
}

// undoWhole puts back the line of the last whole chunk, to be scanned: it
// was not one valid JSON value.
func (s *splitter) undoWhole() {
	s.piece, s.scanLine = s.wholeLine, true
	s.line--
}

// startValue prepares for a value starting at the current line.
func (s *splitter) startValue() {
	if s.wipe {
		// Under a test buffer size, overwrite what the last value left,
		// all of it: appending the next one would overwrite only as much
		// as it is long, or move to a new array when it is longer, and a
		// handler that kept bytes of an earlier envelope would go on
		// reading them intact.
		s.buf.wipe('#')
	}
	s.buf.start()
	s.start, s.oversized, s.deep = s.line, false, false
}

// dropLine discards the rest of the current line: after a piece that is not
// an envelope, reading resumes at the next line.
func (s *splitter) dropLine() {
	if s.depth == 0 && !s.atLineStart {
		s.skipLine = true
	}
}

func (s *splitter) reset() {
	s.buf.empty()
	s.depth, s.inString, s.escaped, s.oversized = 0, false, false, false
	s.arrays, s.prev = s.arrays[:0], 0
}

// continues reports whether a '{' could continue the open value here: as a
// member's value, or as an element of an array. A '{' at the start of a
// line that could not is the next envelope, and the open one was torn.
func (s *splitter) continues() bool {
	switch s.prev {
	case ':', '[':
		return true
	case ',':
		return len(s.arrays) > 0 && s.arrays[len(s.arrays)-1]
	}
	return false
}

func (s *splitter) startsRecord(b []byte) bool {
	return len(s.recordStart) > 0 && bytes.HasPrefix(b, s.recordStart)
}

func (s *splitter) newline() {
	s.line++
	s.atLineStart = true
}

// scan consumes s.piece; ok is true when a chunk is complete.
func (s *splitter) scan() (chunk, bool) {
	b := s.piece
	i := 0
	for i < len(b) {
		if s.junk || s.skipLine {
			j := bytes.IndexByte(b[i:], '\n')
			end := len(b)
			if j >= 0 {
				end = i + j
			}
			if s.junk && len(s.junkBuf) < maxJunk {
				s.junkBuf = append(s.junkBuf, b[i:min(end, i+maxJunk-len(s.junkBuf))]...)
			}
			if j < 0 {
				break
			}
			i = end + 1
			s.newline()
			if s.skipLine {
				s.skipLine = false
				continue
			}
			s.junk = false
			s.piece = b[i:]
			return chunk{data: bytes.TrimRight(s.junkBuf, "\r"), line: s.junkLine, torn: notJSON}, true
		}
		if s.depth == 0 {
			c := b[i]
			switch {
			case c == '\n':
				i++
				s.newline()
				continue
			case isSpace(c):
				i++
				s.atLineStart = false
				continue
			case c != '{' && c != '[':
				s.junk, s.junkLine, s.junkBuf = true, s.line, s.junkBuf[:0]
				s.atLineStart = false
				continue
			}
			s.startValue()
		}
		if c, end, ok := s.value(b, i); ok {
			s.piece = b[end:]
			return c, true
		}
		break
	}
	s.piece = nil
	return chunk{}, false
}

// value scans the value under way from b[from]; ok is true when it ended
// (whole or torn), with end the offset after what it consumed.
func (s *splitter) value(b []byte, from int) (c chunk, end int, ok bool) {
	startsHere := s.depth == 0 // the value begins in this piece: it may need no copy
	i := from
	for i < len(b) {
		if s.inString {
			if s.escaped && b[i] != '\n' {
				s.escaped = false
				i++ // the escaped byte cannot end the string
				continue
			}
			for i < len(b) && !stringStop[b[i]] {
				i++
			}
			if i == len(b) {
				break
			}
			switch b[i] {
			case '"':
				s.inString, s.prev = false, '"'
				i++
			case '\\':
				s.escaped = true
				i++
			case '\n':
				// JSON strings cannot hold a raw newline: the value is torn.
				s.keep(b[from:i])
				c := chunk{data: s.buf.bytes(), line: s.start, torn: "an envelope that breaks off inside a string"}
				s.reset()
				s.newline()
				return c, i + 1, true
			}
			continue
		}
		ch := b[i]
		if s.atLineStart && ch == '{' && s.depth > 0 && (!s.continues() || s.startsRecord(b[i:])) {
			// A new envelope at column 0 where the open one cannot go on,
			// or one that starts as the format's writer starts them: the
			// open one was torn.
			s.keep(b[from:i])
			c := chunk{data: s.buf.bytes(), line: s.start, torn: "an envelope that breaks off before it ends"}
			s.reset()
			return c, i, true
		}
		s.atLineStart = false
		i++
		switch ch {
		case '"':
			s.inString = true
		case '{', '[':
			s.depth++
			if len(s.arrays) < jsonscan.MaxDepth {
				s.arrays = append(s.arrays, ch == '[')
			} else {
				s.deep = true
			}
			s.prev = ch
		case ',', ':':
			s.prev = ch
		case '}', ']':
			s.depth--
			if len(s.arrays) > s.depth {
				s.arrays = s.arrays[:s.depth]
			}
			s.prev = ch
			if s.depth == 0 {
				if startsHere && s.buf.len() == 0 && !s.oversized && i-from <= s.max {
					return chunk{data: b[from:i], line: s.start, deep: s.deep}, i, true // the common case: no copy
				}
				s.keep(b[from:i])
				if s.oversized {
					c := chunk{data: s.buf.bytes(), line: s.start, torn: fmt.Sprintf("an envelope of more than %s was skipped", sizeText(s.max)), over: true}
					s.reset()
					return c, i, true
				}
				c := chunk{data: s.buf.bytes(), line: s.start, deep: s.deep}
				// start lets a buffer this large go; only a test's wipe
				// writes the last value's buffer again.
				c.lasting = cap(c.data) > firstPart && !s.wipe
				s.buf.empty()
				return c, i, true
			}
		case '\n':
			s.newline()
		case ' ', '\t', '\r':
		default:
			s.prev = 'v' // inside a number or a literal
		}
	}
	s.keep(b[from:])
	return chunk{}, len(b), false
}

// stringStop marks the bytes that end the fast path inside a string.
var stringStop = func() (t [256]bool) {
	t['"'], t['\\'], t['\n'] = true, true, true
	return t
}()

// keep appends part of the value under way, up to max bytes.
func (s *splitter) keep(b []byte) {
	if s.oversized {
		return
	}
	if s.buf.len()+len(b) > s.max {
		// Keep its first max bytes: a format may read as much of it as
		// that holds (spec §2.1, fail closed), and the rest is dropped.
		s.oversized = true
		s.buf.add(b[:s.max-s.buf.len()])
		return
	}
	s.buf.add(b)
}

// A value's bytes are gathered in parts: its first firstPart bytes in one
// buffer that is reused from value to value, the rest of a larger value in
// parts that double up to bigValue and are joined when the value ends.
// One buffer grown by doubling would hold its old copy and its new one at
// once while it grows (up to twice the value), and append's gentler
// growth below that leaves dead copies for the collector (a 20 MiB value
// took 4 times its size).
const (
	firstPart = 1 << 20
	bigValue  = 16 << 20
)

// valueBuf holds the bytes of the value being read.
type valueBuf struct {
	head  []byte   // the first bytes: all of a value of up to firstPart
	parts [][]byte // the rest, each at most bigValue
	n     int      // bytes in head and parts
}

func (v *valueBuf) len() int { return v.n }

// add appends b to the value.
func (v *valueBuf) add(b []byte) {
	v.n += len(b)
	if len(v.parts) == 0 && len(v.head)+len(b) <= firstPart {
		v.head = append(v.head, b...)
		return
	}
	for len(b) > 0 {
		if k := len(v.parts); k == 0 || len(v.parts[k-1]) == cap(v.parts[k-1]) {
			v.parts = append(v.parts, make([]byte, 0, min(max(v.n-len(b), firstPart), bigValue)))
		}
		last := &v.parts[len(v.parts)-1]
		n := min(len(b), cap(*last)-len(*last))
		*last, b = append(*last, b[:n]...), b[n:]
	}
}

// bytes returns the value as one buffer of its exact size (join), valid
// until start.
func (v *valueBuf) bytes() []byte {
	if len(v.parts) == 0 {
		return v.head
	}
	whole := make([]byte, v.n)
	v.join(whole)
	v.head = whole
	return whole
}

// take returns the value in a buffer of its own, after room spare bytes
// and before spare more, and ends it: for a value kept past the next one,
// joined there once instead of joined by bytes and copied by the keeper.
func (v *valueBuf) take(room, spare int) []byte {
	own := make([]byte, room+v.n+spare)
	head := v.head // reused for the next value, as empty reuses it
	v.join(own[room : room+v.n])
	v.head = head
	v.empty()
	return own
}

// join copies the value into dst, of its size. The parts are let go as
// they are copied and, for a value of more than bigValue, their memory is
// returned every releaseStep: the value is held about once while it is
// joined, never twice.
func (v *valueBuf) join(dst []byte) {
	at, freed := copy(dst, v.head), 0
	v.head = nil
	for i := range v.parts {
		n := copy(dst[at:], v.parts[i])
		at, freed, v.parts[i] = at+n, freed+n, nil
		if v.n > bigValue && freed >= releaseStep {
			debug.FreeOSMemory()
			freed = 0
		}
	}
	v.parts = v.parts[:0]
}

// releaseStep is how much of a large value's parts is let go between
// returns of their memory: a step more than the value is held while it
// is joined, and a value of 200 MiB costs a dozen collections.
const releaseStep = 4 << 20

// truncate keeps the value's first n bytes.
func (v *valueBuf) truncate(n int) {
	if n >= v.n {
		return
	}
	if n > len(v.head) {
		v.bytes() // rare: a head shorter than n, with parts after it
	}
	clear(v.parts)
	v.head, v.parts, v.n = v.head[:n], v.parts[:0], n
}

// empty ends the value: its bytes stay valid until start.
func (v *valueBuf) empty() {
	clear(v.parts)
	v.parts, v.n, v.head = v.parts[:0], 0, v.head[:0]
}

// start readies the buffer for the next value. A large value's buffer is
// not kept for it, and the memory of a very large one is returned now,
// before the next one gathers its own.
func (v *valueBuf) start() {
	big := cap(v.head) > bigValue
	v.empty()
	if cap(v.head) > firstPart {
		v.head = nil
	}
	if big {
		debug.FreeOSMemory()
	}
}

// wipe overwrites what the last value left in the reused buffer, all of
// it (Options.ReadBuffer below ReadBufferSize, in tests): a reader that
// kept bytes of an earlier value would go on reading them intact.
func (v *valueBuf) wipe(c byte) {
	w := v.head[:cap(v.head)]
	for i := range w {
		w[i] = c
	}
}

func sizeText(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
