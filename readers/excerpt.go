package readers

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// notJSONReason says in plain words that data, a piece of the capture
// (what names it: "a line"), is not JSON, where the decoder gave up and
// what the piece starts with: "invalid character 'I' looking for a value
// at byte 2" tells a reader less than the text itself.
func notJSONReason(what string, data []byte, err error) string {
	at := ""
	if err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, " at byte "); i >= 0 {
			if n, convErr := strconv.Atoi(msg[i+len(" at byte "):]); convErr == nil && n > 16 { // near the start, the excerpt shows it
				at = fmt.Sprintf(" from byte %d on", n)
			}
		}
	}
	return fmt.Sprintf("%s that is not JSON%s: %s", what, at, excerpt(data, 60))
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
