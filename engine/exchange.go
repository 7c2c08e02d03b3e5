package engine

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
)

func newExchange(c *session.Call) *result.Exchange {
	return &result.Exchange{From: c.Dir, Method: c.Method, Name: c.Name, ID: c.ID.String(), Line: c.Line, Sent: c.Start}
}

// exchangeAt is the exchange of a finding reported at frame f: the answer
// is f itself when f answers the call.
func exchangeAt(f *session.Frame) *result.Exchange {
	ex := newExchange(f.Call)
	switch f.Pairing {
	case session.Answered, session.Late, session.Duplicate:
		ex.Answered = f.Time
		ex.Answer = answerText(f)
		switch f.Pairing {
		case session.Late:
			ex.Note = "after its cancellation"
		case session.Duplicate:
			ex.Note = "a further answer"
		}
	}
	return ex
}

func answerText(f *session.Frame) string {
	switch {
	case f.Msg.Error != nil:
		return fmt.Sprintf("error %d", f.Msg.Error.Code)
	case f.View().ResultFields() != nil && f.View().ResultFields().IsError:
		return "isError result"
	case f.Status >= 400:
		return fmt.Sprintf("HTTP %d", f.Status)
	case f.Msg.Kind == session.Response:
		return "result"
	}
	return "answer"
}

// finish fills in, at the end of the session, what became of call c of a
// finding reported before its answer (or without one). It reads only the
// call's State and End: of a call that settled earlier, a session's log
// keeps only those (live.go).
func finish(ex *result.Exchange, c *session.Call) {
	if c == nil || ex == nil || ex.Answer != "" {
		return
	}
	switch c.State {
	case session.Completed:
		ex.Answer = "result"
	case session.Failed:
		ex.Answer = "failed"
	case session.Cancelled:
		ex.Note = "cancelled before an answer"
	case session.Superseded:
		ex.Note = "its id was reused before an answer"
	case session.Parked:
		ex.Answer, ex.Note = "input_required", "never retried"
	case session.TaskRunning:
		ex.Answer, ex.Note = "task", "never reached a terminal status"
	case session.Streaming:
		ex.Note = "a stream, open by design"
	default:
		ex.Note = "never answered"
	}
	if ex.Answer != "" {
		ex.Answered = c.End
	}
}
