package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// printable escapes control characters and replaces invalid UTF-8, so
// that capture text inside a message (a session id, a file name, a tool's
// error) cannot move the cursor, recolour a terminal or forge a line.
// Rules already quote capture text; reporters do not rely on it.
func printable(s string) string {
	if strings.IndexFunc(s, isControl) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r) // an invalid byte arrives as utf8.RuneError, U+FFFD
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }
