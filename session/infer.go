package session

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
)

// inferDirection gives a frame whose capture recorded no usable direction
// the one its message shows, when that is unambiguous: from the method, or,
// for what can travel both ways, from the call it answers, cancels or
// reports on. The elements of an array must agree. A frame left unknown is
// not correlated (rules report it, they do not judge it).
func (s *Session) inferDirection(f *Frame) {
	var dir Direction
	var from Inference
	if jsonscan.FirstByte(f.Raw) == '[' {
		for _, el := range jsonscan.Elements(f.Raw) {
			m := decodeMessage(el)
			switch d, why := s.directionOf(&m, f.ConnID); {
			case d == DirUnknown:
			case dir == DirUnknown:
				dir, from = d, why
			case d != dir:
				return // its messages disagree
			}
		}
	} else {
		m := decodeMessage(f.Raw)
		dir, from = s.directionOf(&m, f.ConnID)
	}
	if dir != DirUnknown {
		f.Direction, f.Inferred = dir, from
	}
}

// directionOf is the direction m must have travelled in, and why; DirUnknown
// when it cannot be told.
func (s *Session) directionOf(m *Message, conn string) (Direction, Inference) {
	switch m.Shape() {
	case Request, Notification:
		if d := methodDirection(m.Method); d != DirUnknown {
			return d, FromMethod
		}
		r := m.req
		if r == nil {
			return DirUnknown, NotInferred
		}
		switch {
		case m.Method == "notifications/cancelled":
			if len(r.RequestID) > 0 {
				if c := s.onlyCall(MakeID(r.RequestID), conn, true); c != nil {
					return c.Dir, FromCancelledCall // the requester cancels
				}
			}
		case m.Method == "notifications/tasks/status" || m.Method == "notifications/tasks":
			id := r.TaskID
			if t := mcp.DecodeTask(r.Task); t.TaskID != "" {
				id = t.TaskID
			}
			if t := s.tasks[id]; t != nil {
				return t.Call.Dir.Opposite(), FromTask // the task's runner reports
			}
		case strings.HasPrefix(m.Method, "tasks/"):
			if t := s.tasks[r.TaskID]; t != nil {
				return t.Call.Dir, FromTask // the task's requester asks
			}
		}
	case Response:
		if k := m.ID.Kind(); k == IDAbsent || k == IDNull {
			return DirUnknown, NotInferred
		}
		if c := s.onlyCall(m.ID, conn, false); c != nil {
			return c.Dir.Opposite(), FromAnsweredCall
		}
	}
	return DirUnknown, NotInferred
}

// onlyCall is the call with id when only one direction has one open (or,
// with recent, recently finished).
func (s *Session) onlyCall(id ID, conn string, recent bool) *Call {
	c2s := s.find(ClientToServer, id, conn, recent)
	s2c := s.find(ServerToClient, id, conn, recent)
	switch {
	case c2s != nil && s2c == nil:
		return c2s
	case s2c != nil && c2s == nil:
		return s2c
	}
	return nil
}

// methodDirection is who sends method: the client, the server, or either
// (DirUnknown, as for methods it does not know).
func methodDirection(method string) Direction {
	switch method {
	case "initialize", "completion/complete", "logging/setLevel", "server/discover", "subscriptions/listen",
		"notifications/initialized", "notifications/roots/list_changed":
		return ClientToServer
	case "sampling/createMessage", "elicitation/create", "roots/list",
		"notifications/message", "notifications/resources/updated", "notifications/elicitation/complete",
		"notifications/subscriptions/acknowledged",
		"notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		return ServerToClient
	}
	for _, p := range [...]string{"tools/", "resources/", "prompts/"} {
		if strings.HasPrefix(method, p) {
			return ClientToServer
		}
	}
	return DirUnknown // ping, notifications/cancelled, notifications/progress, tasks/*, and unknown methods
}
