package readers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// jsonStream walks one large JSON document read from a stream (a HAR, a
// LogRocket batch): it descends into the containers that hold the records
// and hands out each record's bytes with the line it starts on, so memory
// is bounded by the largest record kept, never by the document. It checks
// only the structure it walks; a record is validated when it is decoded.
type jsonStream struct {
	r    *bufio.Reader
	line int // line of the next unread byte
	max  int // the largest value capture keeps
	wipe bool

	val valueBuf // the last captured value; reused by the next capture

	// Where the byte the last peek stopped at stands: whether only white
	// space after a newline came before it, and its column then.
	atLineStart bool
	col         int

	// records: the first member (name, then a short string value) of the
	// record being walked, and of the last one walked whole (goodName is
	// the length of its name)
	recordStart, goodStart []byte
	goodName               int
}

func newJSONStream(r io.Reader, o Options) *jsonStream {
	return &jsonStream{r: bufio.NewReaderSize(r, o.ReadBuffer), line: 1, max: o.MaxEnvelope, wipe: o.wipes(), atLineStart: true}
}

// streamError is a document that is not the JSON it should be, or that
// ends inside a value.
type streamError struct {
	line int
	msg  string
}

func (e *streamError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// errValueTooLarge is what capture returns for a value of more than max
// bytes, after skipping it.
var errValueTooLarge = errors.New("value too large")

// errTooDeep is what capture returns for a value nested deeper than
// jsonscan.MaxDepth, where it stopped reading it: the rest of the value is
// not consumed (resync finds the next record).
var errTooDeep = fmt.Errorf("a value nested deeper than the %d levels mcpcheck reads", jsonscan.MaxDepth)

func (s *jsonStream) fail(format string, args ...any) error {
	return &streamError{line: s.line, msg: fmt.Sprintf(format, args...)}
}

// eof turns the end of the input inside a structure into a streamError;
// other read errors pass unchanged.
func (s *jsonStream) eof(err error, what string) error {
	if errors.Is(err, io.EOF) {
		return s.fail("the document ends inside %s", what)
	}
	return err
}

// peek returns the next byte that is not white space, without consuming
// it. At the end of the input it returns io.EOF.
func (s *jsonStream) peek() (byte, error) {
	consumed, newline, col := false, false, 0
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case '\n':
			s.line++
			newline, col = true, 0
		case ' ', '\t', '\r':
			col++
		default:
			s.r.UnreadByte()
			if consumed { // else the same byte as the last peek's
				s.atLineStart, s.col = newline, col
			}
			return c, nil
		}
		consumed = true
	}
}

// expect consumes the next byte that is not white space, which must be c.
func (s *jsonStream) expect(c byte, what string) error {
	got, err := s.peek()
	if err != nil {
		return s.eof(err, what)
	}
	if got != c {
		return s.fail("%q where %s should continue with %q", got, what, c)
	}
	s.r.ReadByte()
	return nil
}

// maxName bounds a member name read while walking.
const maxName = 64 << 10

// object walks an object's members: fn is called with each member's name
// and must consume its value (skip, capture, object or array).
func (s *jsonStream) object(fn func(name string) error) error {
	if err := s.expect('{', "an object"); err != nil {
		return err
	}
	first := true
	for {
		c, err := s.peek()
		if err != nil {
			return s.eof(err, "an object")
		}
		switch {
		case c == '}':
			s.r.ReadByte()
			return nil
		case !first && c == ',':
			s.r.ReadByte()
			if c, err = s.peek(); err != nil {
				return s.eof(err, "an object")
			}
		case !first:
			return s.fail("%q after an object member", c)
		}
		if c != '"' {
			return s.fail("%q where a member name should start", c)
		}
		name, err := s.capture(maxName)
		if err != nil {
			return s.eof(err, "a member name")
		}
		key, ok := unquoteName(name)
		if !ok {
			return s.fail("a member name that is not a JSON string")
		}
		if err := s.expect(':', "an object member"); err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
		first = false
	}
}

// array walks an array's elements: fn is called at each element and must
// consume it.
func (s *jsonStream) array(fn func() error) error {
	if err := s.expect('[', "an array"); err != nil {
		return err
	}
	first := true
	for {
		c, err := s.peek()
		if err != nil {
			return s.eof(err, "an array")
		}
		switch {
		case c == ']':
			s.r.ReadByte()
			return nil
		case !first && c == ',':
			s.r.ReadByte()
		case !first:
			return s.fail("%q after an array element", c)
		}
		if err := fn(); err != nil {
			return err
		}
		first = false
	}
}

// skip consumes one value of any size without keeping it.
func (s *jsonStream) skip() error {
	_, err := s.scan(false, 0)
	return err
}

// capture consumes one value and returns its bytes, valid until the next
// capture. A value of more than max bytes is consumed and dropped
// (errValueTooLarge); prefix then has its first max bytes.
func (s *jsonStream) capture(max int) ([]byte, error) {
	if err := s.gather(max); err != nil {
		return nil, err
	}
	return s.val.bytes(), nil
}

// captureOwn is capture for a value kept past the next capture: its bytes
// in a buffer of their own, after room spare bytes and before spare more,
// joined there once (capture's would be joined into the reused buffer,
// then copied).
func (s *jsonStream) captureOwn(max, room, spare int) ([]byte, error) {
	if err := s.gather(max); err != nil {
		return nil, err
	}
	return s.val.take(room, spare), nil
}

// gather consumes one value into s.val, for capture and captureOwn.
func (s *jsonStream) gather(max int) error {
	if s.wipe {
		// Overwrite what the previous value left, so that a test run with a
		// tiny buffer catches anyone keeping those bytes.
		s.val.wipe('x')
	}
	s.val.start()
	over, err := s.scan(true, max)
	if err != nil {
		return err
	}
	if over {
		return errValueTooLarge
	}
	return nil
}

// prefix returns the first max bytes of the value the last capture found
// too large, valid until the next capture: what a reader may still read
// of it (spec §2.1, fail closed).
func (s *jsonStream) prefix() []byte { return s.val.bytes() }

// prefixOwn is prefix in a buffer of its own, between room and spare
// bytes, as captureOwn hands out a value.
func (s *jsonStream) prefixOwn(room, spare int) []byte { return s.val.take(room, spare) }

// scan consumes the next value, tracking strings and nesting only, and,
// with keep, appends its bytes to s.val up to max.
func (s *jsonStream) scan(keep bool, max int) (oversized bool, err error) {
	c, err := s.peek()
	if err != nil {
		return false, s.eof(err, "a value")
	}
	depth, inString, escaped := 0, false, false
	tooDeep := false
	scalar := false
	switch c {
	case '{', '[':
	case '"':
	case '}', ']', ',', ':':
		return false, s.fail("%q where a value should start", c)
	default:
		scalar = true // a number or a literal: it ends at the next delimiter
	}
	started := false
	for {
		buf, rerr := s.r.Peek(1)
		if len(buf) == 0 {
			if rerr == nil {
				rerr = io.ErrNoProgress
			}
			if scalar && started && errors.Is(rerr, io.EOF) {
				return oversized, nil // a scalar that ends the input
			}
			return false, s.eof(rerr, "a value")
		}
		buf, _ = s.r.Peek(s.r.Buffered())
		end, done := -1, false
		for i, b := range buf {
			if !started {
				started = true
				switch b {
				case '{', '[':
					depth = 1
				case '"':
					inString = true
				}
				continue
			}
			if b == '\n' {
				s.line++
			}
			if inString {
				switch {
				case escaped:
					escaped = false
				case b == '\\':
					escaped = true
				case b == '"':
					inString = false
					if depth == 0 {
						end, done = i+1, true
					}
				}
			} else if scalar {
				switch b {
				case ',', '}', ']', ' ', '\t', '\r', '\n', ':':
					if b == '\n' {
						s.line-- // not consumed: counted when read again
					}
					end, done = i, true
				}
			} else {
				switch b {
				case '"':
					inString = true
				case '{', '[':
					depth++
					if keep && depth > jsonscan.MaxDepth {
						end, done, tooDeep = i, true, true
					}
				case '}', ']':
					depth--
					if depth == 0 {
						end, done = i+1, true
					}
				}
			}
			if done {
				break
			}
		}
		if !done {
			end = len(buf)
		}
		if keep && !oversized {
			if s.val.len()+end > max {
				s.val.add(buf[:max-s.val.len()]) // the first max bytes: prefix
				oversized = true
			} else {
				s.val.add(buf[:end])
			}
		}
		s.r.Discard(end)
		if tooDeep {
			return false, errTooDeep
		}
		if done {
			return oversized, nil
		}
	}
}

// records walks an array of records (HAR entries, LogRocket events) as
// array does, but a record nested too deeply to read (errTooDeep) does not
// end the document: broken is told, with the line the record starts on,
// and reading resumes at the next record resync finds, or ends (nil) when
// it finds none (errBrokenOff). broken's next is the line reading resumed on, 0 when the
// document ended first.
func (s *jsonStream) records(fn func() error, broken func(line, next int)) error {
	if err := s.expect('[', "an array"); err != nil {
		return err
	}
	first := true
	for {
		s.atLineStart = false // a byte was consumed: only a newline peek consumes now puts a record at a line's start
		c, err := s.peek()
		if err != nil {
			return s.eof(err, "an array")
		}
		switch {
		case c == ']':
			s.r.ReadByte()
			return nil
		case !first && c == ',':
			s.r.ReadByte()
			s.atLineStart = false
			if c, err = s.peek(); err != nil {
				return s.eof(err, "an array")
			}
		case !first:
			return s.fail("%q after an array element", c)
		}
		line, atLineStart, col := s.line, s.atLineStart, s.col
		var name, value []byte // how this record starts, while it is in the buffer
		if c == '{' {
			ahead, _ := s.r.Peek(min(s.r.Size(), 512))
			name, value = firstMember(ahead)
			s.recordStart = append(append(s.recordStart[:0], name...), value...)
			name, value = s.recordStart[:len(name)], s.recordStart[len(name):]
		}
		err = fn()
		if !errors.Is(err, errTooDeep) {
			if err != nil {
				return err
			}
			if name != nil { // a good record's start is what the next ones look like
				s.goodStart, s.goodName = append(s.goodStart[:0], s.recordStart...), len(name)
			}
			first = false
			continue
		}
		if s.goodStart != nil { // the broken one's own first member may be what broke it
			name, value = s.goodStart[:s.goodName], s.goodStart[s.goodName:]
		}
		if len(value) == 0 {
			value = nil
		}
		found, err := s.resync(atLineStart, col, name, value)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if !found {
			broken(line, 0)
			return errBrokenOff
		}
		broken(line, s.line)
		first = true
	}
}

// errBrokenOff ends a document after a record past which resync found no
// other: the loss is reported, and nothing more is read.
var errBrokenOff = errors.New("the document breaks off")

// firstMember is the first member of the object val starts: its name,
// with its quotes, and its value when that is a short string (a record's
// type), else nil; both nil when val does not start so.
func firstMember(val []byte) (name, value []byte) {
	i := jsonscan.SkipSpace(val, 1)
	end, err := jsonscan.SkipString(val, i)
	if err != nil {
		return nil, nil
	}
	name = val[i:end]
	if j := jsonscan.SkipSpace(val, end); j < len(val) && val[j] == ':' {
		j = jsonscan.SkipSpace(val, j+1)
		if k, err := jsonscan.SkipString(val, j); err == nil && k-j <= 64 {
			value = val[j:k]
		}
	}
	return name, value
}

// resync skips to the start of the next record after one that could not
// be read, and reports whether it found one: in a document that starts
// each record on a line of its own (pretty-printed), an object that opens
// a line at the broken record's column; else an object whose first member
// is the broken record's first member (its name, and its value when that
// is a short string: a record's type).
func (s *jsonStream) resync(atLineStart bool, col int, name, value []byte) (bool, error) {
	if !atLineStart && name == nil {
		return false, nil
	}
	lineStart, c0 := false, 0
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			return false, err
		}
		switch b {
		case '\n':
			s.line++
			lineStart, c0 = true, 0
			continue
		case ' ', '\t', '\r':
			c0++
			continue
		case '{':
			s.r.UnreadByte() // before any Peek, which forbids it
			if atLineStart && lineStart && c0 == col {
				s.atLineStart, s.col = true, col
				return true, nil
			}
			if !atLineStart && s.startsWith(name, value) {
				s.atLineStart = false
				return true, nil
			}
			s.r.Discard(1)
		}
		lineStart = false
	}
}

// startsWith reports whether the next bytes are '{' and the member name
// (and, when value is not nil, its value), white space aside.
func (s *jsonStream) startsWith(name, value []byte) bool {
	ahead, _ := s.r.Peek(min(s.r.Size(), len(name)+len(value)+256))
	i := jsonscan.SkipSpace(ahead, 1)
	if !bytes.HasPrefix(ahead[i:], name) {
		return false
	}
	if value == nil {
		return true
	}
	i = jsonscan.SkipSpace(ahead, i+len(name))
	if i >= len(ahead) || ahead[i] != ':' {
		return false
	}
	i = jsonscan.SkipSpace(ahead, i+1)
	return bytes.HasPrefix(ahead[i:], value)
}

// unquoteName decodes a member name token.
func unquoteName(tok []byte) (string, bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return "", false
	}
	inner := tok[1 : len(tok)-1]
	for _, c := range inner {
		if c == '\\' {
			return jsonscan.String(tok)
		}
	}
	return string(inner), true
}

// unquoteInPlace decodes the JSON string token tok (validated, as
// jsonscan's walks leave a member's value) into tok's own bytes and
// returns the decoded text, aliasing tok: a large body decoded from a
// document costs no second copy. An escape is never shorter than what it
// stands for, so the write never overtakes the read. Text that is not
// valid UTF-8 would grow (each stray byte becomes U+FFFD, three bytes),
// so it is decoded into a copy, as jsonscan.String decodes it; ok is
// false where jsonscan.String's is.
func unquoteInPlace(tok []byte) (text []byte, ok bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return nil, false
	}
	inner := tok[1 : len(tok)-1]
	esc := bytes.IndexByte(inner, '\\')
	if esc < 0 && utf8.Valid(inner) {
		return inner, !hasStray(inner)
	}
	if !utf8.Valid(inner) {
		s, ok := jsonscan.String(tok)
		return []byte(s), ok
	}
	if hasStray(inner[:esc]) {
		return nil, false
	}
	w := copy(tok, inner[:esc]) // over the opening quote: the text starts at tok[0]
	for r := esc; r < len(inner); {
		c := inner[r]
		if c != '\\' {
			if c < ' ' || c == '"' {
				return nil, false
			}
			tok[w] = c
			w, r = w+1, r+1
			continue
		}
		n, used := unescape(tok[w:], inner[r:])
		if used == 0 {
			return nil, false
		}
		w, r = w+n, r+used
	}
	return tok[:w], true
}

// hasStray reports a raw control character or quote, which no JSON
// string holds.
func hasStray(b []byte) bool {
	for _, c := range b {
		if c < ' ' || c == '"' {
			return true
		}
	}
	return false
}

// unescape decodes the escape at the start of src into dst as
// encoding/json does (a pair of \u surrogates is one rune, a lone one
// U+FFFD) and returns the bytes written and read; read is 0 for an escape
// that is not JSON's. dst may be src's own bytes, before them: what is
// written is never longer than what is read.
func unescape(dst, src []byte) (written, read int) {
	if len(src) < 2 {
		return 0, 0
	}
	switch src[1] {
	case '"', '\\', '/':
		dst[0] = src[1]
	case 'b':
		dst[0] = '\b'
	case 'f':
		dst[0] = '\f'
	case 'n':
		dst[0] = '\n'
	case 'r':
		dst[0] = '\r'
	case 't':
		dst[0] = '\t'
	case 'u':
		r := hex4(src)
		if r < 0 {
			return 0, 0
		}
		read = 6
		if utf16.IsSurrogate(r) {
			if pair := utf16.DecodeRune(r, hex4(src[6:])); pair != unicode.ReplacementChar {
				r, read = pair, 12
			} else {
				r = unicode.ReplacementChar
			}
		}
		return utf8.EncodeRune(dst, r), read
	default:
		return 0, 0
	}
	return 1, 2
}

// hex4 is the code unit of a \uXXXX escape at the start of b, or -1.
func hex4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// wrapAnswer makes an answer's message, prefix + body + "}", for a record
// (a HAR entry of a call-level export, a LogRocket event) that keeps only
// the body. The caller has decoded every other byte of the record by now,
// so when body lies in the record with room for prefix before it and a
// byte after it, the message is written around body in place: a 200 MiB
// answer is not copied. Else it is made in a buffer of its size.
func wrapAnswer(entry, body, prefix []byte) []byte {
	return wrapOutside(entry, body, prefix, nil)
}

// wrapOutside is wrapAnswer for a record that makes two messages, the
// request and the answer of one call: the message is written in place
// only if it leaves keep, the bytes the other one is still to be made of
// (a slice of entry, or nil), as they are; else it is copied.
func wrapOutside(entry, body, prefix, keep []byte) []byte {
	if at, ok := offsetIn(entry, body); ok && at >= len(prefix) && at+len(body) < len(entry) {
		from, to := at-len(prefix), at+len(body)+1
		if k, inside := offsetIn(entry, keep); !inside || k+len(keep) <= from || k >= to {
			msg := entry[from:to]
			copy(msg, prefix)
			msg[len(msg)-1] = '}'
			return msg
		}
	}
	msg := make([]byte, 0, len(prefix)+len(body)+1)
	return append(append(append(msg, prefix...), body...), '}')
}

// offsetIn is where part starts in b, when part is a slice of b's bytes
// (made by slicing b, so that its capacity runs to the end of b's).
func offsetIn(b, part []byte) (int, bool) {
	at := cap(b) - cap(part)
	if len(part) == 0 || at < 0 || at >= len(b) || &b[at] != &part[0] {
		return 0, false
	}
	return at, true
}
