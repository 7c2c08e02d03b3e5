package checks

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/secrets"
)

// Quote renders capture text for a message: runs of white space (line
// breaks included) folded into one space, control and invisible characters
// escaped, at most max runes, in double quotes. Error texts often carry
// pretty-printed JSON; a finding is one line. Credential-shaped values are
// masked before the text is cut, so that no cut leaves part of a secret.
func Quote(s string, max int) string {
	s = strings.TrimSpace(s)
	end, _ := quoteRunes(nil, s, max)
	shown, more := maskShown(s, end)
	var b strings.Builder
	b.WriteByte('"')
	if _, cut := quoteRunes(&b, shown, max); cut || more {
		b.WriteString("…")
	}
	b.WriteByte('"')
	return b.String()
}

// quoteRunes writes (when b is set) the quoted form of at most max runes of
// s, and returns the offset in s after the last rune shown and whether s
// was cut there.
func quoteRunes(b *strings.Builder, s string, max int) (end int, cut bool) {
	n := 0
	space := false
	for i, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			space = true
			continue
		}
		if space {
			space = false
			if n++; n > max {
				return i, true
			}
			if b != nil {
				b.WriteByte(' ')
			}
		}
		if n++; n > max {
			return i, true
		}
		if b != nil {
			writeQuotedRune(b, r)
		}
	}
	return len(s), false
}

func writeQuotedRune(b *strings.Builder, r rune) {
	switch {
	case r == utf8.RuneError:
		b.WriteRune(utf8.RuneError) // invalid UTF-8 in the capture
	case r == '"' || r == '\\':
		b.WriteByte('\\')
		b.WriteRune(r)
	case r > 0xffff && invisible(r):
		fmt.Fprintf(b, `\U%08x`, r)
	case invisible(r):
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		b.WriteRune(r)
	}
}

// invisible reports the characters a message shows escaped: controls,
// format characters (zero-width, bidirectional, tag characters), private
// use, line and paragraph separators, and variation selectors.
func invisible(r rune) bool {
	return r < 0x20 || r == 0x7f || unicode.In(r, unicode.Cf, unicode.Cc, unicode.Co, unicode.Zl, unicode.Zp, unicode.Variation_Selector)
}

// maskShown returns s[:end] with its credential-shaped values masked (one
// that starts before end is masked whole), and whether s goes on after
// what it shows. Only a window past end is searched: Quote is called with
// megabytes of capture text and shows a line of it.
func maskShown(s string, end int) (string, bool) {
	window := s[:min(len(s), end+maskWindow)]
	if !secrets.Suspect(window) {
		return s[:end], end < len(s)
	}
	var b strings.Builder
	last := 0
	for _, m := range secrets.Find(window) {
		if m.Start >= end {
			break
		}
		b.WriteString(s[last:m.Start])
		b.WriteString(secrets.Label(m.Kind, s[m.Start:m.End]))
		last = m.End
	}
	if last < end {
		b.WriteString(s[last:end])
		last = end
	}
	return b.String(), last < len(s)
}

// maskWindow is how far past the shown text Quote looks for the end of a
// secret that starts in it: longer than any credential Find recognises.
const maskWindow = 32 << 10

// OneLine keeps a message on one line whatever the capture put in it.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
