package readers

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// notJSONReason says in plain words that data, a piece of the capture
// (what names it: "a line"), is not JSON, and shows it: its beginning, or
// the text around the byte where the decoder gave up. "invalid character
// 'I' looking for a value at byte 2" tells a reader less than the text.
func notJSONReason(what string, data []byte, err error) string {
	if err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, " at byte "); i >= 0 {
			if n, convErr := strconv.Atoi(msg[i+len(" at byte "):]); convErr == nil && n > 16 && n <= len(data) {
				return fmt.Sprintf("%s that is not valid JSON at byte %d: %s", what, n, around(data, n-1))
			}
		} else {
			return fmt.Sprintf("%s that is not valid JSON (%s): %s", what, msg, excerpt(data, 60))
		}
	}
	return fmt.Sprintf("%s that is not valid JSON: %s", what, excerpt(data, 60))
}

// around is the text of data near offset off, for a message: "…" marks
// what is left out on either side.
func around(data []byte, off int) string {
	const before, after = 24, 16
	start, end := max(0, off-before), min(len(data), off+after)
	for start > 0 && !utf8.RuneStart(data[start]) {
		start--
	}
	for end < len(data) && !utf8.RuneStart(data[end]) {
		end++
	}
	s := excerpt(data[start:end], before+after)
	if start > 0 {
		s = `"…` + s[1:]
	}
	if end < len(data) && !strings.HasSuffix(s, `…"`) {
		s = s[:len(s)-1] + `…"`
	}
	return s
}

// excerpt is the beginning of data for a message: at most max runes, white
// space runs folded, controls and invisible characters escaped, in double
// quotes, with "…" when there is more.
func excerpt(data []byte, max int) string {
	var b strings.Builder
	b.WriteByte('"')
	n, space := 0, false
	rest := strings.TrimSpace(string(data[:min(len(data), 4*max+8)]))
	cut := len(data) > 4*max+8
	for i, r := range rest {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
			n++
		}
		if n >= max {
			cut, rest = true, rest[i:]
			break
		}
		switch {
		case r == utf8.RuneError:
			b.WriteRune(utf8.RuneError)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || unicode.In(r, unicode.Cf, unicode.Co, unicode.Zl, unicode.Zp):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		n++
	}
	if cut {
		b.WriteString("…")
	}
	b.WriteByte('"')
	return b.String()
}
