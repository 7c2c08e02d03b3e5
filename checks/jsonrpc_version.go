package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleJSONRPCVersion = &Rule{
	ID:       "jsonrpc-version",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Request, session.Notification, session.Response),
	Doc: Doc{
		Summary: `The jsonrpc member is missing or not "2.0"`,
		Why: `Every MCP message is a JSON-RPC 2.0 message and must carry "jsonrpc": "2.0".
Strict peers reject a message without it.`,
		Fix:   `set "jsonrpc": "2.0" on every request, notification and response.`,
		Bad:   `{"id":1,"method":"ping"}`,
		Good:  `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		Since: "0.1.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		m := &f.Msg
		if !judgeable(f) || m.Kind == session.Invalid || m.Version == "2.0" {
			return
		}
		subject := m.Kind.String() + " " + m.Method
		switch {
		case !m.HasVersion:
			p.Report(f, subject, "%s %s has no jsonrpc member", f.Direction.Sender(), describe(m))
		case m.Version == "":
			p.Report(f, subject, `%s %s has a jsonrpc member that is not the string "2.0"`, f.Direction.Sender(), describe(m))
		default:
			p.Report(f, subject, `%s %s has jsonrpc %s, not "2.0"`, f.Direction.Sender(), describe(m), Quote(m.Version, 20))
		}
	}),
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
