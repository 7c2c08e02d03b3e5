package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleLateResult = &Rule{
	ID:       "late-result",
	Signal:   SignalLateResult,
	Severity: SeverityNote,
	Doc: Doc{
		Summary: "An answer that arrived after the requester cancelled",
		Why: `After notifications/cancelled the receiver should stop work and not answer
(2026-07-28 makes it a MUST NOT). An answer after the cancellation wastes work
and can confuse a client that already reused the slot; a race of a few
milliseconds is normal, a consistent pattern is a server that ignores
cancellation.`,
		Fix: `Make the handler observe cancellation (an AbortSignal or a context) and
drop its answer once cancelled.`,
		Bad:   `{"method":"notifications/cancelled","params":{"requestId":5}} then {"id":5,"result":{…}}`,
		Good:  `{"method":"notifications/cancelled","params":{"requestId":5}} and no answer for id 5`,
		Since: "0.1.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if f.Pairing != session.Late {
			return
		}
		c := f.Call
		with := ""
		if r := f.View().ResultFields(); r != nil && r.IsError && f.Msg.Error == nil {
			// the tool's failure ("context canceled") is the cancellation
			// taking effect, not a tool error of its own
			with = ", with an isError result: " + firstText(r.Content)
		}
		p.Report(f, callSubject(c), "%s was answered after the %s cancelled it%s", c.Label(), c.Dir.Sender(), with).
			Relate(c.File, c.Line, "request sent here")
	}),
}
