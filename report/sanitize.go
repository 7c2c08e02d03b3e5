package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file is the one sanitizer of every reporter: isControl is the set
// of characters capture text must not carry raw into a report, and each
// format escapes exactly that set in its own syntax —
//
//   - text, github (annotations and the step summary), SARIF messages and
//     properties, the drift block: printable, as \uXXXX text;
//   - JUnit: junitText, printable after dropping what XML cannot carry;
//   - JSON (the json report, and SARIF as a whole): jsonSafe, as JSON
//     \uXXXX escapes, which a JSON reader decodes back to the same value.

// printable escapes control characters and replaces invalid UTF-8, so
// that capture text inside a message (a session id, a file name, a tool's
// error) cannot move the cursor, recolour a terminal or forge a line.
// Rules already quote capture text; reporters do not rely on it.
func printable(s string) string {
	if isPrintable(s) {
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

// isPrintable is printable's fast path: plain ASCII byte by byte, the
// rest by rune.
func isPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			rest := s[i:]
			return strings.IndexFunc(rest, isControl) < 0 && utf8.ValidString(rest)
		} else if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// isControl is a character that moves or reorders what a terminal, a log
// viewer or a browser shows: C0 and C1 controls, DEL, the line and paragraph
// separators (U+2028, U+2029: line breaks to JavaScript and to some
// viewers) and the bidirectional controls, which can make text read in
// another order than it is written (CVE-2021-42574, "Trojan Source").
func isControl(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f, // ALM, LRM, RLM
		r >= 0x202a && r <= 0x202e, // LRE, RLE, PDF, LRO, RLO
		r >= 0x2066 && r <= 0x2069: // LRI, RLI, FSI, PDI
		return true
	}
	return false
}

// jsonSafe escapes, in JSON that encoding/json wrote, the characters of
// isControl it leaves raw (DEL, C1 controls, the bidirectional controls;
// it escapes C0 controls and U+2028/U+2029 itself) as \uXXXX, so that a
// report shown raw — in a log, a diff, an editor — cannot be reordered,
// while a JSON reader decodes the very same strings. Outside strings JSON
// is ASCII, so every such character is inside one. data is returned as it
// is when there is nothing to escape.
func jsonSafe(data []byte) []byte {
	var out []byte
	done := 0
	for i := 0; i < len(data); {
		if data[i] < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if size > 1 || r == 0x7f {
			if isControl(r) {
				if out == nil {
					out = make([]byte, 0, len(data)+32)
				}
				out = append(out, data[done:i]...)
				out = fmt.Appendf(out, `\u%04x`, r)
				done = i + size
			}
		}
		i += size
	}
	if out == nil {
		return data
	}
	return append(out, data[done:]...)
}
