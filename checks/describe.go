package checks

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

// callSubject names a call stably across recordings of the same traffic:
// its method and tool, prompt or resource, never its request id, which
// shifts when earlier traffic changes. Calls with the same subject are told
// apart by their occurrence, which the fingerprint counts.
func callSubject(c *session.Call) string {
	if c.Name != "" {
		return c.Method + " " + c.Name
	}
	return c.Method
}

func quoteName(s string) string { return Quote(s, 80) }

// firstText is the first text content item of a result, quoted for a
// message; only its beginning is decoded: far more than a message shows,
// so that a secret the message could show is never cut before Quote
// masks it.
func firstText(content json.RawMessage) string {
	if text, ok := jsonscan.FirstText(content, 64<<10); ok && text != "" {
		return Quote(text, 200)
	}
	return "(no text content)"
}

// judgeable is a protocol frame whose JSON-RPC structure can be judged: not
// cut short by the recorder, whose truncation truncated-capture reports.
func judgeable(f *session.Frame) bool {
	return f.IsProtocol() && !f.Truncated && f.Msg.Kind != session.NoMessage
}

// describe names a message for messages: `request tools/list (id 3)`.
func describe(m *session.Message) string {
	switch m.Kind {
	case session.Request:
		return "request " + m.Method + " (id " + m.ID.String() + ")"
	case session.Notification:
		return "notification " + m.Method
	case session.Response:
		if m.ID.IsZero() {
			return "response"
		}
		return "response to id " + m.ID.String()
	}
	return "message"
}
