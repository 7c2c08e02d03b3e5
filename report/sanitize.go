package report

import (
	"fmt"
	"strings"
)

// printable escapes control characters, so that capture text inside a
// message cannot move the cursor, recolour a terminal or end a line.
// Rules already quote capture text; reporters do not rely on it.
func printable(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }
