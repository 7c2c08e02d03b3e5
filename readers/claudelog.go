package readers

import (
	"bytes"
	"strings"
	"time"
)

// Claude Desktop's log lines, which the claude-desktop format reads and
// the jsonrpc format must not mistake for its own (detection of both looks
// at the first line that is JSON or a log line, so no file is both).

// logLevels are the levels the app's logger writes.
var logLevels = map[string]bool{"error": true, "warn": true, "warning": true, "info": true, "debug": true,
	"verbose": true, "silly": true, "trace": true, "fatal": true, "notice": true, "http": true}

// claudeLine is a line that starts a log entry.
type claudeLine struct {
	time   time.Time
	level  string
	server string // "" for a line of the app itself
	text   []byte
}

// parseClaudeLine reads "TIME [a] [b] text" where one of a and b is a
// level and the other the server name, or "TIME [level] text".
func parseClaudeLine(b []byte) (claudeLine, bool) {
	var l claudeLine
	n := timestampLen(b)
	if n == 0 || n+1 >= len(b) || b[n] != ' ' || b[n+1] != '[' {
		return l, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(b[:n]))
	if err != nil {
		return l, false
	}
	l.time = t
	first, rest, ok := bracketed(b[n+1:])
	if !ok {
		return l, false
	}
	second, after, two := []byte(nil), rest, false
	if len(rest) > 1 && rest[0] == ' ' && rest[1] == '[' {
		second, after, two = bracketed(rest[1:])
	}
	switch {
	case logLevels[strings.ToLower(string(first))]:
		l.level = strings.ToLower(string(first))
		if two {
			l.server, rest = string(second), after
		}
	case two && logLevels[strings.ToLower(string(second))]:
		l.level, l.server, rest = strings.ToLower(string(second)), string(first), after
	default:
		return l, false
	}
	l.text = bytes.TrimRight(bytes.TrimPrefix(rest, []byte(" ")), "\r")
	return l, true
}

// timestampLen is the length of the RFC 3339 timestamp b starts with
// (2025-06-13T14:44:29.945Z), 0 when it starts with none.
func timestampLen(b []byte) int {
	const shape = "dddd-dd-ddTdd:dd:dd"
	if len(b) < len(shape) {
		return 0
	}
	for i := 0; i < len(shape); i++ {
		if c := b[i]; shape[i] == 'd' && (c < '0' || c > '9') || shape[i] != 'd' && c != shape[i] {
			return 0
		}
	}
	i := len(shape)
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	switch {
	case i < len(b) && b[i] == 'Z':
		return i + 1
	case i+6 <= len(b) && (b[i] == '+' || b[i] == '-') && b[i+3] == ':':
		return i + 6
	}
	return 0
}

// bracketed reads "[x]" at the start of b: x, what follows, and whether
// there was one. x ends at the first "]" that ends the bracket (followed by
// a space or the end of the line).
func bracketed(b []byte) (inner, rest []byte, ok bool) {
	if len(b) < 2 || b[0] != '[' {
		return nil, b, false
	}
	for i := 1; i < len(b) && i <= 201; i++ {
		if b[i] == ']' && (i+1 == len(b) || b[i+1] == ' ' || b[i+1] == '\r') {
			if i == 1 {
				return nil, b, false
			}
			return b[1:i], b[i+1:], true
		}
	}
	return nil, b, false
}

// lineAt returns the line of b that starts at i, without its newline, and
// where the next one starts.
func lineAt(b []byte, i int) (line []byte, next int) {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return b[i : i+j], i + j + 1
	}
	return b[i:], len(b)
}

type lineKind uint8

const (
	blankLine     lineKind = iota
	jsonLine               // starts a JSON object, or an array of objects
	claudeLogLine          // a Claude Desktop log line (timestamp, level, server)
	textLine               // anything else
)

// lineKindOf classifies a line for detection; the plain JSON-RPC and the
// Claude Desktop formats both decide on the first line that is JSON or a
// log line, so that no file is both.
func lineKindOf(line []byte) lineKind {
	t := bytes.TrimLeft(line, " \t\r")
	switch {
	case len(t) == 0:
		return blankLine
	case t[0] == '{':
		return jsonLine
	case t[0] == '[':
		if r := bytes.TrimLeft(t[1:], " \t\r"); len(r) > 0 && r[0] == '{' {
			return jsonLine
		}
	}
	if _, ok := parseClaudeLine(line); ok {
		return claudeLogLine
	}
	return textLine
}
