package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleResponseShape = &Rule{
	ID:       "response-shape",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Response),
	Doc: Doc{
		Summary: "A response with both or neither of result and error, or a result with a null id",
		Why: `A JSON-RPC response carries exactly one of "result" and "error". A result must
name the request it answers, so its id cannot be null or missing (only an
error about an unreadable request may have a null id).`,
		Fix:   `send either result or error, and echo the request's id.`,
		Bad:   `{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":-32603,"message":"x"}}`,
		Good:  `{"jsonrpc":"2.0","id":3,"result":{}}`,
		Since: "0.1.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		m := &f.Msg
		if !judgeable(f) || m.Kind != session.Response {
			return
		}
		switch {
		case m.Result != nil && m.Error != nil:
			p.Report(f, f.Direction.String()+" response with result and error", "%s response for id %s has both result and error", f.Direction.Sender(), m.ID)
		case m.Result == nil && m.Error == nil:
			p.Report(f, f.Direction.String()+" response without result or error", "%s response for id %s has neither result nor error", f.Direction.Sender(), m.ID)
		case m.Result != nil && (m.ID.Kind() == session.IDAbsent || m.ID.Kind() == session.IDNull):
			p.Report(f, "result without id", "%s sent a result with a null or missing id", f.Direction.Sender())
		}
	}),
}
