package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleRequestWithoutID = &Rule{
	ID:       "request-without-id",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Notification),
	Doc: Doc{
		Summary: "A request method sent without an id, as if it were a notification",
		Why: `Requests must include a string or integer id; without one a message is a
notification, which the receiver must not answer. A tools/call, tools/list,
initialize or any other method the specification defines as a request sent
without an id therefore never gets its result, and the sender waits for
nothing.`,
		Fix:   `Give every request an id, unique among the sender's requests.`,
		Bad:   `{"jsonrpc":"2.0","method":"tools/list"}`,
		Good:  `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		Since: "0.2.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		m := &f.Msg
		if m.Kind != session.Notification || !judgeable(f) || !requestMethods[m.Method] {
			return
		}
		p.Report(f, m.Method, "%s without an id, so it can never be answered", sent(f))
	}),
}

// requestMethods are the methods every revision defines as requests (they
// carry an id and get an answer); notifications are those under
// "notifications/".
var requestMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true,
	"prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/read": true, "resources/templates/list": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"logging/setLevel": true, "completion/complete": true,
	"sampling/createMessage": true, "roots/list": true, "elicitation/create": true,
	"tasks/get": true, "tasks/result": true, "tasks/list": true, "tasks/cancel": true, "tasks/update": true,
	"subscriptions/listen": true,
}
