package checks

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/session"
)

var ruleJSONRPCError = &Rule{
	ID:       "jsonrpc-error",
	Signal:   SignalError,
	Severity: SeverityError,
	Sees:     Kinds(session.Response),
	Doc: Doc{
		Summary: "A request was answered with a JSON-RPC error",
		Why: `A JSON-RPC error answer means the peer refused or failed a request: an unknown
method (-32601), bad parameters (-32602), an internal failure (-32603) or an
application error. Error answers that match no request and error answers that
arrive after a cancellation count too.

A dual-era client that probes with server/discover and falls back to
initialize when a legacy server answers -32601, -32602, -32022 or an HTTP 4xx
is negotiating as designed; that rejected probe is not reported.`,
		Fix: `Read the code and message; correct the request (method name, params) or
the server's handler.`,
		Bad:   `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Internal error"}}`,
		Good:  `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		Since: "0.1.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		e := f.Msg.Error
		if e == nil || f.Msg.Kind != session.Response {
			return
		}
		what := fmt.Sprintf("JSON-RPC error %d %s", e.Code, Evidence(e.Message, 160))
		switch f.Pairing {
		case session.Answered:
			p.FollowsCause(f, p.Report(f, callSubject(f.Call), "%s failed with %s", f.Call.Label(), what).
				Relate(f.Call.File, f.Call.Line, "request sent here"))
		case session.Late:
			p.FollowsCause(f, p.Report(f, callSubject(f.Call), "%s was answered after its cancellation with %s", f.Call.Label(), what).
				Relate(f.Call.File, f.Call.Line, "request sent here"))
		case session.Unmatched, session.Absorbed:
			switch {
			case f.Msg.ID.Kind() == session.IDAbsent || f.Msg.ID.Kind() == session.IDNull:
				p.Report(f, fmt.Sprintf("error %d", e.Code), "%s sent %s with no request id", f.Direction.Sender(), what)
			case f.Pairing == session.Absorbed:
				p.Report(f, fmt.Sprintf("%s error %d to a truncated request", f.Direction, e.Code), "%s sent %s for id %s, whose request the capture did not record whole", f.Direction.Sender(), what, f.Msg.ID)
			default:
				p.Report(f, fmt.Sprintf("%s unmatched error %d", f.Direction, e.Code), "%s sent %s for id %s, which no request used", f.Direction.Sender(), what, f.Msg.ID)
			}
		}
	}),
}
