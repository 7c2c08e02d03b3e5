package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleUnmatchedResponse = &Rule{
	ID:       "unmatched-response",
	Signal:   SignalWarn,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "A response to an id that no request used",
		Why: `Every response answers a request sent the other way with the same id (1, 1.0
and "1" are different ids). A response that matches no request is a peer
answering something it invented, answering a notification, or rewriting ids.

mcpcheck tolerates what recorders do: an answer written just before its
request pairs silently, answers on another HTTP connection pair when exactly
one request matches, and a truncated request explains one unmatched answer.`,
		Fix:   `echo the request's id exactly, with its JSON type.`,
		Bad:   `request {"id":"7",…} answered by {"id":7,"result":{}}`,
		Good:  `request {"id":"7",…} answered by {"id":"7","result":{}}`,
		Since: "0.1.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if f.Pairing != session.Unmatched || !judgeable(f) {
			return
		}
		if k := f.Msg.ID.Kind(); k == session.IDAbsent || k == session.IDNull {
			return // nothing to match by; jsonrpc-error or response-shape speak for it
		}
		p.Report(f, f.Direction.String()+" unmatched response", "%s answered id %s, which no %s request used",
			f.Direction.Sender(), f.Msg.ID, f.Direction.Opposite().Sender())
	}),
}
