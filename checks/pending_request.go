package checks

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/session"
)

var rulePendingRequest = &Rule{
	ID:       "pending-request",
	Signal:   SignalPending,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "A request with no answer by the end of the capture",
		Why: `A request that never got an answer is a hang: a server that crashed or
deadlocked, a client that stopped waiting without cancelling, or a capture that
ended too early. Multi round-trip operations still waiting for their retry and
tasks that never reached a terminal status count as unanswered too. Cancelled
requests and subscriptions/listen streams are not pending.`,
		Fix: `Make sure every request is answered, or cancelled with
notifications/cancelled; end captures after the last answer.`,
		Bad:   `{"id":0,"method":"initialize",…} and nothing answers id 0`,
		Good:  `{"id":0,"method":"initialize",…} then {"id":0,"result":{…}}`,
		Since: "0.1.0",
	},
	New: func() Checker { return pendingRequests{} },
}

type pendingRequests struct{ Base }

func (pendingRequests) End(p *Pass) {
	s := p.Session
	// first, so that the folding of many findings never hides it
	if n, c := s.DroppedCalls, s.FirstDropped; n > 0 {
		p.ReportAt(Location{File: c.File, Line: c.Line}, c.Seq, "dropped requests",
			"%d %s still open when more than %d were, and mcpcheck stopped following %s, oldest first (the oldest: %s %s); an answer to %s was not paired",
			n, plural(n, "request was", "requests were"), session.MaxOpenCalls, plural(n, "it", "them"), c.Dir.Sender(), c.Label(), plural(n, "it", "them")).About(c)
	}
	for _, c := range s.Unfinished() {
		var msg string
		switch {
		case c.State == session.Parked && c.Op != nil && c.Op.Requests > 1:
			// the last round of a chain: "never retried" would deny the retries
			msg = fmt.Sprintf("%s answered input_required and was not retried again; its operation stopped after %d rounds",
				c.Label(), c.Op.Requests)
		case c.State == session.Parked:
			msg = fmt.Sprintf("%s answered input_required and was never retried", c.Label())
		case c.State == session.TaskRunning && c.Task != nil:
			msg = fmt.Sprintf("task %s of %s never reached a terminal status (last status %s)",
				Quote(c.Task.ID, 80), c.Label(), Quote(c.Task.Status, 40))
		default:
			msg = fmt.Sprintf("%s %s was never answered", c.Dir.Sender(), c.Label())
		}
		p.ReportAt(Location{File: c.File, Line: c.Line}, c.Seq, callSubject(c), "%s", msg).About(c)
	}
	if n := s.RetiredOperations; n > 0 {
		p.ReportAt(Location{File: s.File, Line: s.FirstLine}, 0, "retired operations",
			"%d multi round-trip %s waited for a retry beyond the %d mcpcheck follows at once and %s not checked further",
			n, plural(n, "operation", "operations"), session.MaxParkedOperations, plural(n, "was", "were"))
	}
}
