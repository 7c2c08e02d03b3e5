package readers

import (
	"bytes"
)

// Server-sent event bodies, as HAR writers and mcp-rewind store the
// text/event-stream answers of Streamable HTTP.

// sseEvent is one event of a text/event-stream body that carries data.
type sseEvent struct {
	Type string // the event field; "" for the default "message"
	Data []byte // the data lines joined by "\n": one line aliases the body
	Line int    // 0-based line of the body where the event starts
	// Complete is false for an event the stream broke off in: no blank
	// line ended it.
	Complete bool
}

// eachSSEEvent calls fn with every event of body that carries data. Events
// without data (the priming event a server sends with only an id, a retry,
// comments) dispatch nothing, as in a browser.
func eachSSEEvent(body []byte, fn func(ev sseEvent)) {
	var (
		ev      sseEvent
		lines   int  // data lines in the event under way
		started bool // a field of the event under way was read
	)
	dispatch := func(complete bool) {
		if lines > 0 && len(ev.Data) > 0 { // an empty data buffer dispatches nothing
			ev.Complete = complete
			fn(ev)
		}
		ev, lines, started = sseEvent{}, 0, false
	}
	line := 0
	for len(body) > 0 {
		i := bytes.IndexAny(body, "\r\n")
		text, rest := body, body[len(body):]
		if i >= 0 {
			text, rest = body[:i], body[i+1:]
			if body[i] == '\r' && len(rest) > 0 && rest[0] == '\n' {
				rest = rest[1:]
			}
		}
		body = rest
		cur := line
		line++
		if len(text) == 0 {
			if i >= 0 {
				dispatch(true)
			}
			continue
		}
		if !started {
			ev.Line, started = cur, true
		}
		field, value := text, []byte(nil)
		if c := bytes.IndexByte(text, ':'); c >= 0 {
			field, value = text[:c], text[c+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			switch lines {
			case 0:
				ev.Data = value
			case 1: // an event of several data lines gets its own bytes
				ev.Data = append(append(append([]byte(nil), ev.Data...), '\n'), value...)
			default:
				ev.Data = append(append(ev.Data, '\n'), value...)
			}
			lines++
		case "event":
			ev.Type = string(value)
		}
		if i < 0 {
			break // the body ends inside this line
		}
	}
	dispatch(false) // the stream broke off inside an event
}

// looksLikeSSE reports a body that starts as an event stream does.
func looksLikeSSE(body []byte) bool {
	body = bytes.TrimLeft(body, "\r\n")
	for _, p := range [...]string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(body, []byte(p)) {
			return true
		}
	}
	return false
}
