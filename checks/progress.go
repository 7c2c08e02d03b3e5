package checks

import (
	"fmt"
	"strconv"

	"github.com/mcpcheck/mcpcheck/session"
)

var ruleProgress = &Rule{
	ID:       "progress",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "Progress that does not increase per token, or progress after the request's final result",
		Why: `The progress value of a request must increase with every notifications/progress
for its token, even when the total is unknown; a receiver draws a progress bar
from it. And progress stops with the request: once the final result was sent,
a notification for its token refers to nothing the receiver still tracks.

A server may keep sending progress after the client cancelled the request (it
may not have seen the cancellation yet, and the spec does not forbid it); that
is not reported, but progress after a result (a late one included) is. Progress
for a task-augmented request may continue until the task ends, and a multi
round-trip request is not over while it waits for input. Over HTTP, progress
that arrives on another connection than the request's may race its result and
is not judged against it.`,
		Fix: `Send progress only while the request runs, with a value that grows each time,
and stop before sending the result.`,
		Bad:   `{"method":"notifications/progress","params":{"progressToken":7,"progress":3}} then … "progress":2`,
		Good:  `{"method":"notifications/progress","params":{"progressToken":7,"progress":3}} then … "progress":4`,
		Since: "0.2.0",
	},
	New: func() Checker { return &progressRule{} },
}

type progressRule struct {
	Base
	tokens tokenTable[*tokenUse]
	once   repeats
}

func (r *progressRule) Frame(p *Pass, f *session.Frame) {
	if !judgeable(f) || f.Redacted {
		return
	}
	m := &f.Msg
	if key, ok := requestToken(f); ok {
		r.register(key, f.Call)
		return
	}
	if m.Kind != session.Notification || m.Method != "notifications/progress" {
		return
	}
	pp := progressView.Of(f.View())
	if pp.token == nil {
		return
	}
	use := r.tokens.uses[tokenKey{f.Direction.Opposite(), session.MakeID(pp.token).String()}]
	if use == nil || use.shared {
		return // progress-token judges tokens no request carried, and shared ones
	}
	if use.finished() {
		c := use.request()
		if f.ConnID == c.conn || !httpSession(p.Session, f) {
			r.once.report("after "+c.ref(), func() *Finding {
				return p.Report(f, c.subject()+" progress", "progress for %s arrived after the request's final result", c.name()).
					Relate(c.file, c.endLine, "final result here")
			})
			return
		}
	}
	if !pp.hasProgress {
		return
	}
	if use.has && pp.progress <= use.last {
		from, to := use.last, pp.progress
		c := use.request()
		r.once.report("decrease "+c.ref(), func() *Finding {
			moved := fmt.Sprintf("went from %s down to %s", formatNumber(from), formatNumber(to))
			if from == to {
				moved = "stayed at " + formatNumber(to)
			}
			return p.Report(f, c.subject()+" progress", "progress for %s %s; it must increase with every notification",
				c.name(), moved).
				Relate(c.file, c.line, "request sent here")
		})
	}
	use.last, use.has = pp.progress, true
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// tokenUse is the request that carried a token last, and the progress
// reported for it.
type tokenUse struct {
	// call is the request while what becomes of it may still change; once
	// it cannot, done keeps what a report names of it and call is nil, so
	// that thousands of remembered tokens do not keep their calls.
	call *session.Call
	done requestBrief
	last float64
	has  bool
	// shared: an earlier request with the token had not finished, so which
	// of the two a notification reports on is unknown
	shared bool
}

// finished reports whether the request's final result was recorded.
func (u *tokenUse) finished() bool { return u.call == nil || u.call.Finished() }

// request is what a report names of the request.
func (u *tokenUse) request() requestBrief {
	if u.call == nil {
		return u.done
	}
	return briefOf(u.call)
}

// requestBrief is what the progress rule names of a request.
type requestBrief struct {
	dir                     session.Direction
	id, method, named, file string // named: the tool, prompt or URI
	conn                    string
	line, endLine           int
}

func briefOf(c *session.Call) requestBrief {
	return requestBrief{dir: c.Dir, id: c.ID.String(), method: c.Method, named: c.Name, file: c.File,
		conn: c.Conn, line: c.Line, endLine: c.EndLine}
}

// ref tells one request from another within a session, for folding the
// repeats of a problem of that request (never shown).
func (b *requestBrief) ref() string {
	return b.dir.String() + " " + b.id + " " + strconv.Itoa(b.line)
}

// subject and name are callSubject and callName.
func (b *requestBrief) subject() string { return methodSubject(b.method, b.named) }

func (b *requestBrief) name() string {
	if b.named != "" {
		return b.method + " " + quoteName(b.named)
	}
	return b.method
}

// register makes c the request of key for the progress rule.
func (r *progressRule) register(key tokenKey, c *session.Call) {
	prev := r.tokens.uses[key]
	r.tokens.settle(func(u *tokenUse) (*tokenUse, bool) {
		if !u.call.Settled() {
			return u, false
		}
		u.call, u.done = nil, briefOf(u.call)
		return u, true
	})
	r.tokens.put(key, &tokenUse{call: c, shared: prev != nil && prev.call != c && (prev.shared || !prev.finished())})
}
