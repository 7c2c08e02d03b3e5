package readers

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// A record of a document format (a HAR entry) past the size limit is read
// as far as its first bytes go (spec §2.1, fail closed). Its bodies are
// JSON strings, and the cut nearly always falls in one of them: that body
// keeps what precedes the cut, so that an isError flag or an error code
// before it is still judged.

// bodyPath names a body string of a record by the member names leading to
// it from the record's top.
type bodyPath [3]string

// closeRecord makes b, the first bytes of a record cut at the size limit,
// valid JSON in b's own array: a body (one of bodies) the cut fell in is
// closed as a string where the cut allows (never inside an escape or a
// UTF-8 sequence); any other value cut in half is left out, as
// jsonscan.ClipPrefix leaves it. It returns nil when b holds no object's
// start or nests past the depth limit, and the index in bodies of the body
// the cut fell in, -1 for none.
func closeRecord(b []byte, bodies ...bodyPath) (closed []byte, body int) {
	at, path, depth, ok := openString(b)
	if !ok {
		return nil, -1
	}
	body = -1
	for i, p := range bodies {
		if at >= 0 && depth == len(p) && path == p {
			body = i
		}
	}
	switch {
	case body >= 0:
		// room after the string for its quote and the closers: the cut
		// moves back a few bytes rather than the record being copied
		end := stringEnd(b, at, min(len(b), cap(b)-1-depth))
		b = append(b[:end], '"')
	case at >= 0:
		b = b[:at] // left out either way; its bytes are the closers' room
	}
	return jsonscan.ClipPrefix(b), body
}

// openString finds the string value b ends inside: where its token
// starts (-1 when b does not end inside a string value), the names of the
// members leading to it from the top (the first three levels), and how
// many containers are open at the end. ok is false past jsonscan.MaxDepth.
func openString(b []byte) (at int, path bodyPath, depth int, ok bool) {
	var closers []byte // of the open containers
	expectName := false
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '{', '[':
			if len(closers) >= jsonscan.MaxDepth {
				return -1, path, 0, false
			}
			closers = append(closers, c+2) // '{'+2 is '}', '['+2 is ']'
			if len(closers) <= len(path) {
				path[len(closers)-1] = ""
			}
			expectName = c == '{'
			i++
		case '}', ']':
			if len(closers) > 0 {
				closers = closers[:len(closers)-1]
			}
			expectName = false
			i++
		case ',':
			expectName = len(closers) > 0 && closers[len(closers)-1] == '}'
			i++
		case '"':
			end := stringClose(b, i)
			switch {
			case end < 0 && expectName:
				return -1, path, len(closers), true // cut inside a member name
			case end < 0:
				return i, path, len(closers), true
			case expectName && len(closers) <= len(path):
				path[len(closers)-1] = string(b[i+1 : end-1])
			}
			expectName = false
			i = end
		default:
			i++
		}
	}
	return -1, path, len(closers), true
}

// stringClose is the end of the string token that starts at b[at], just
// past its closing quote, or -1 when b ends inside it.
func stringClose(b []byte, at int) int {
	for i := at + 1; i < len(b); {
		j := bytes.IndexAny(b[i:], `"\`)
		if j < 0 {
			return -1
		}
		i += j
		if b[i] == '"' {
			return i + 1
		}
		i += 2 // an escape: what follows the backslash is not a quote
	}
	return -1
}

// stringEnd is where the content of the string token that starts at b[at]
// may end when it is cut at limit: before an escape, a surrogate pair or
// a UTF-8 sequence the cut would split.
func stringEnd(b []byte, at, limit int) int {
	if limit <= at+1 {
		return at + 1
	}
	i := at + 1
	for {
		j := bytes.IndexByte(b[i:limit], '\\')
		if j < 0 {
			break
		}
		i += j
		n := 2
		if i+1 < limit && b[i+1] == 'u' {
			n = 6
			if r := hex4(b[i:limit]); utf16.IsSurrogate(r) && r < 0xDC00 {
				n = 12 // a high surrogate: its low half must fit too
			}
		}
		if i+n > limit {
			return i
		}
		i += 2 // the rest of a \u escape is hex digits, no backslash
	}
	// a UTF-8 sequence split at the end, after the last escape
	for k := limit - 1; k >= max(i, limit-utf8.UTFMax+1); k-- {
		if utf8.RuneStart(b[k]) {
			if !utf8.FullRune(b[k:limit]) {
				return k
			}
			break
		}
	}
	return limit
}
