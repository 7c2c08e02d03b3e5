package checks

import (
	"fmt"
	"time"

	"github.com/mcpcheck/mcpcheck/session"
)

// Exchange is the request a finding is about and what became of it, for
// reports that draw the exchange (the job summary's sequence diagram). It
// is a copy: neither the call nor the frames are kept past the session.
type Exchange struct {
	From   session.Direction // who sent the request
	Method string
	Name   string // tool or prompt name, or resource URI; "" when none
	ID     string // the request id as written: for people, never for subjects
	Line   int    // the request's line
	Sent   time.Time

	// Answer is what came back ("result", "error -32603", "isError result",
	// "HTTP 502", …), or "" when nothing did; Note says why there was none
	// ("never answered", "cancelled", …) or adds to the answer.
	Answer   string
	Answered time.Time // zero when there was no answer or no timestamp
	Note     string
}

// Latency is the time from the request to its answer; ok is false when
// either end has no timestamp.
func (e *Exchange) Latency() (time.Duration, bool) {
	if e.Sent.IsZero() || e.Answered.IsZero() {
		return 0, false
	}
	return e.Answered.Sub(e.Sent), true
}

// About ties a finding reported away from any frame to the call it is
// about; a finding reported at a frame is tied to its call already.
func (fd *Finding) About(c *session.Call) *Finding {
	if c != nil && !fd.folded {
		fd.Exchange, fd.call = newExchange(c), c
	}
	return fd
}

func newExchange(c *session.Call) *Exchange {
	return &Exchange{From: c.Dir, Method: c.Method, Name: c.Name, ID: c.ID.String(), Line: c.Line, Sent: c.Start}
}

// exchangeAt is the exchange of a finding reported at frame f: the answer
// is f itself when f answers the call.
func exchangeAt(f *session.Frame) *Exchange {
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

// finish fills in, at the end of the session, what became of a call whose
// finding was reported before its answer (or without one), and lets the
// call go. It reads only the call's State and End: of a call that settled
// earlier, a session's log keeps only those (live.go).
func (fd *Finding) finish() {
	c, ex := fd.call, fd.Exchange
	fd.call = nil
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
