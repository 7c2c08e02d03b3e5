package checks

import (
	"strconv"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
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
	tokens progressTokens
	once   repeats
}

func (r *progressRule) Frame(p *Pass, f *session.Frame) {
	if !judgeable(f) || f.Redacted {
		return
	}
	m := &f.Msg
	if key, ok := requestToken(f); ok {
		r.tokens.register(key, f.Call)
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
	c := use.call
	if finished(c) && (f.ConnID == c.Conn || !httpSession(p.Session, f)) {
		r.once.report("after "+callRef(c), func() *Finding {
			return p.Report(f, callSubjectStable(c)+" progress", "progress for %s arrived after the request's final result", callName(c)).
				Relate(c.File, c.EndLine, "final result here")
		})
		return
	}
	if !pp.hasProgress {
		return
	}
	if use.has && pp.progress <= use.last {
		from, to := use.last, pp.progress
		r.once.report("decrease "+callRef(c), func() *Finding {
			return p.Report(f, callSubjectStable(c)+" progress", "progress for %s went from %s to %s; it must increase with every notification",
				callName(c), formatNumber(from), formatNumber(to)).
				Relate(c.File, c.Line, "request sent here")
		})
	}
	use.last, use.has = pp.progress, true
}

// finished reports a call whose final result was recorded: answered (a late
// answer after a cancellation included), not a task still running, not a
// multi round-trip hop waiting for (or followed by) a retry.
func finished(c *session.Call) bool {
	switch {
	case c.Answers == 0, c.State == session.Parked, c.State == session.TaskRunning:
		return false
	case c.Task != nil && !c.Task.Terminal:
		return false
	case c.Op != nil && c != c.Op.Last:
		return false // an input_required hop: the operation went on
	}
	return true
}

// callSubjectStable names a call for a finding's subject: its method and
// tool, prompt or resource, never its id.
func callSubjectStable(c *session.Call) string {
	if c.Name == "" {
		return c.Method
	}
	return c.Method + " " + c.Name
}

// callRef tells one call from another within a session, for folding the
// repeats of a problem of that call (never shown).
func callRef(c *session.Call) string {
	return c.Dir.String() + " " + c.ID.String() + " " + strconv.Itoa(c.Line)
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// progressParams is what a notifications/progress carries.
type progressParams struct {
	token       []byte // raw; nil when absent (aliases the frame)
	progress    float64
	hasProgress bool // progress is a number
}

var progressView = &mcp.Lazy[progressParams]{Decode: func(v *mcp.View) progressParams {
	var pp progressParams
	_ = jsonscan.EachMember(v.Params(), func(name, val []byte) {
		switch string(name) {
		case "progressToken":
			pp.token = val
		case "progress":
			if n, err := strconv.ParseFloat(string(val), 64); err == nil {
				pp.progress, pp.hasProgress = n, true
			}
		}
	})
	return pp
}}

// tokenKey is a progress token as the request that carried it: the
// requester's direction and the token's exact JSON text (7 and "7" differ).
type tokenKey struct {
	dir session.Direction
	tok string
}

// requestToken is the progress token a request carries in _meta.
func requestToken(f *session.Frame) (tokenKey, bool) {
	m := &f.Msg
	if m.Kind != session.Request || f.Call == nil || m.Req == nil || len(m.Req.Meta.ProgressToken) == 0 {
		return tokenKey{}, false
	}
	return tokenKey{f.Direction, session.MakeID(m.Req.Meta.ProgressToken).String()}, true
}

// tokenUse is the request that carried a token last, and the progress
// reported for it.
type tokenUse struct {
	call *session.Call
	last float64
	has  bool
	// shared: an earlier request with the token had not finished, so which
	// of the two a notification reports on is unknown
	shared bool
}

// maxProgressTokens bounds the tokens remembered per session.
const maxProgressTokens = 8192

// progressTokens remembers which request carried each progress token.
type progressTokens struct {
	uses   map[tokenKey]*tokenUse
	order  []tokenKey // first registration order, for eviction
	forgot bool       // a token was evicted: an unknown token may be a forgotten one
}

// register makes c the request of key and returns the previous one.
func (t *progressTokens) register(key tokenKey, c *session.Call) (prev *tokenUse) {
	if t.uses == nil {
		t.uses = map[tokenKey]*tokenUse{}
	}
	prev = t.uses[key]
	if prev == nil {
		if len(t.uses) >= maxProgressTokens {
			delete(t.uses, t.order[0])
			t.order, t.forgot = t.order[1:], true
		}
		t.order = append(t.order, key)
	}
	t.uses[key] = &tokenUse{call: c, shared: prev != nil && prev.call != c && (prev.shared || !finished(prev.call))}
	return prev
}
