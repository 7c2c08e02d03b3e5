package checks

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
)

var ruleNotificationID = &Rule{
	ID:       "notification-id",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Request),
	Doc: Doc{
		Summary: "A notification sent with an id",
		Why: `Notifications must not carry an id: a message with an id is a request, and the
receiver must answer it, while the sender of a notification expects no answer.
Every method under notifications/ is a notification in every revision, so one
sent with an id is either answered with an error (its method is not a request)
or left hanging on the receiver's side.`,
		Fix:   `Drop the id member from notifications.`,
		Bad:   `{"jsonrpc":"2.0","id":3,"method":"notifications/initialized"}`,
		Good:  `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		Since: "0.2.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		m := &f.Msg
		if m.Kind != session.Request || !judgeable(f) || !strings.HasPrefix(m.Method, "notifications/") {
			return
		}
		p.Report(f, m.Method, "%s with id %s, but notifications never carry an id", sent(f), Token(m.ID.String(), 40))
	}),
}
