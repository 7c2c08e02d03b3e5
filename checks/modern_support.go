package checks

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
)

// Helpers the 2026-07-28 and HTTP rules share.

// redactedPlaceholder is what the mcpsnoop proxy writes for a value it
// redacted (spec §3.11).
const redactedPlaceholder = "[REDACTED]"

// redacted reports a value the recorder redacted: the frame says so and
// the value holds the placeholder. Such a value is never compared.
func redacted(f *session.Frame, value string) bool {
	return f.Redacted && strings.Contains(value, redactedPlaceholder)
}

// overHTTP reports a frame of the HTTP transport (old logs may omit the
// transport but still name the connection).
func overHTTP(f *session.Frame) bool {
	return f.Transport == "http" || (f.Transport == "" && f.ConnID != "")
}

// clientRequest is a request the client sent whose message can be judged.
func clientRequest(f *session.Frame) bool {
	return f.Direction == session.ClientToServer && f.Msg.Kind == session.Request && !f.Truncated
}

// serverResult is a result the server sent for a request of the client
// (the answer, a late or a duplicate one), whole and decoded.
func serverResult(f *session.Frame) bool {
	return f.Direction == session.ServerToClient && f.Msg.Kind == session.Response && f.Call != nil &&
		f.Msg.Error == nil && f.View().Result() != nil && !f.Truncated &&
		(f.Pairing == session.Answered || f.Pairing == session.Late || f.Pairing == session.Duplicate)
}

// callMemo remembers a little about open calls, for the answer to judge:
// at most max calls, the oldest forgotten first, so unanswered requests
// cannot grow it.
type callMemo[T any] struct {
	max   int
	byKey map[*session.Call]T
	order []*session.Call // insertion order; entries already taken are skipped
}

func newCallMemo[T any](max int) *callMemo[T] {
	return &callMemo[T]{max: max, byKey: map[*session.Call]T{}}
}

func (m *callMemo[T]) put(c *session.Call, v T) {
	if _, ok := m.byKey[c]; !ok {
		m.order = append(m.order, c)
	}
	m.byKey[c] = v
	for len(m.byKey) > m.max {
		old := m.order[0]
		m.order = m.order[1:]
		delete(m.byKey, old)
	}
	if len(m.order) > 2*m.max { // drop the taken ones from the order
		kept := m.order[:0]
		for _, c := range m.order {
			if _, ok := m.byKey[c]; ok {
				kept = append(kept, c)
			}
		}
		clear(m.order[len(kept):])
		m.order = kept
	}
}

// take returns what was remembered of c and forgets it.
func (m *callMemo[T]) take(c *session.Call) (T, bool) {
	v, ok := m.byKey[c]
	delete(m.byKey, c)
	return v, ok
}

// callName renders the method and, when it has one, the tool, prompt or
// resource a call names: `tools/call "echo"`.
func callName(c *session.Call) string {
	if c.Name != "" {
		return c.Method + " " + quoteName(c.Name)
	}
	return c.Method
}

// methodSubject names a request stably: method, and the tool, prompt or
// URI it names.
func methodSubject(method, name string) string {
	if name != "" {
		return method + " " + name
	}
	return method
}

// callNameOf is the tool, prompt or resource a request names ("" when none).
func callNameOf(f *session.Frame) string {
	if f.Call != nil {
		return f.Call.Name
	}
	return ""
}

// requestName renders a request for messages: its method and the tool,
// prompt or resource it names.
func requestName(f *session.Frame) string {
	if f.Call != nil {
		return callName(f.Call)
	}
	return f.Msg.Method
}
