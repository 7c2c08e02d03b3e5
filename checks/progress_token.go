package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleProgressToken = &Rule{
	ID:       "progress-token",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A progress token that is not a string or integer, that no request carried, or that two requests in flight share",
		Why: `A request asks for progress by carrying _meta.progressToken, a string or an
integer unique among the sender's requests in flight; every
notifications/progress names the token of an active request sent the other way.
A token of another type is not a token; progress for a token no request carried
cannot be shown to anyone; two requests in flight with one token make their
progress indistinguishable.

A recorder may write a fast progress notification before the request it
reports on, and a request reusing the token of one that had just been answered
before that answer: both wait for the reorder window before they are judged.
The rule is silent about unknown tokens when the capture lost frames.`,
		Fix: `Give each request its own progress token (its request id is a common choice)
and send progress only with the token of the request being worked on.`,
		Bad:   `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"job-9","progress":1}} when no request carried "job-9"`,
		Good:  `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"build","_meta":{"progressToken":"job-9"}}} first`,
		Since: "0.2.0",
	},
	New: func() Checker {
		return &progressToken{unknown: newWindow[heldToken](maxHeldProgress), reused: newWindow[heldToken](maxHeldProgress)}
	},
}

// maxHeldProgress bounds the notifications and requests held for the
// reorder window; past it the oldest is judged early.
const maxHeldProgress = 256

type progressToken struct {
	Base
	loss    lossWatch
	blind   bool                      // a frame was redacted: a token may have been rewritten
	tokens  tokenTable[*session.Call] // the request of each token while it may be pending; nil once settled
	unknown window[heldToken]
	reused  window[heldToken]
	once    repeats
}

// heldToken is a progress notification whose token no request carried yet,
// or a request that reused the token of one in flight.
type heldToken struct {
	key     tokenKey
	at      Location
	seq     int64
	method  string        // the notification or request
	sender  string        // who sent it
	old     *session.Call // the request in flight with the same token
	subject string
}

func (r *progressToken) Damage(*Pass, session.Damage) { r.loss.damage() }

func (r *progressToken) Frame(p *Pass, f *session.Frame) {
	r.loss.see(f)
	r.blind = r.blind || f.Redacted
	r.expire(p)
	if !judgeable(f) || f.Redacted {
		return
	}
	m := &f.Msg
	if m.Kind == session.Request && len(f.View().Meta().ProgressToken) > 0 {
		r.request(p, f)
		return
	}
	if m.Kind != session.Notification || m.Method != "notifications/progress" {
		return
	}
	pp := progressView.Of(f.View())
	if pp.token == nil {
		return
	}
	key := tokenKey{f.Direction.Opposite(), session.MakeID(pp.token).String()}
	if k := session.MakeID(pp.token).Kind(); k != session.IDString && k != session.IDInteger {
		// no request can carry such a token: say what is wrong with it, once
		r.once.report("type "+key.dir.String()+" "+key.tok, func() *Finding {
			return p.Report(f, m.Method+" progressToken", "%s sent %s with the progress token %s, which is not a string or an integer",
				f.Direction.Sender(), m.Method, Token(key.tok, 40))
		})
		return
	}
	if r.tokens.known(key) {
		return
	}
	r.unknown.hold(p, heldToken{key: key, at: Location{File: f.File, Line: f.Line}, seq: f.Seq,
		method: m.Method, sender: f.Direction.Sender()}, r.judgeUnknown)
}

func (r *progressToken) request(p *Pass, f *session.Frame) {
	m := &f.Msg
	tok := session.MakeID(f.View().Meta().ProgressToken)
	if k := tok.Kind(); k != session.IDString && k != session.IDInteger {
		p.Report(f, m.Method+" progressToken", "%s with the progress token %s, which is not a string or an integer",
			sent(f), Token(tok.String(), 40))
	}
	key, ok := requestToken(f)
	if !ok {
		r.blind = true // a request with a null id: its progress cannot be told from unknown progress
		return
	}
	// the request explains the notifications recorded before it
	r.unknown.drop(func(h heldToken) bool { return h.key == key })
	prev := r.tokens.uses[key]
	r.tokens.settle(func(c *session.Call) (*session.Call, bool) { return nil, c.Settled() })
	r.tokens.put(key, f.Call)
	if prev == nil || prev == f.Call || prev.State != session.Pending {
		return
	}
	r.reused.hold(p, heldToken{key: key, at: Location{File: f.File, Line: f.Line}, seq: f.Seq,
		method: callName(f.Call), sender: f.Direction.Sender(),
		old: prev, subject: callSubject(f.Call) + " progressToken"}, r.judgeReuse)
}

// expire judges what waited out the reorder window.
func (r *progressToken) expire(p *Pass) {
	r.unknown.expire(p, r.judgeUnknown)
	r.reused.expire(p, r.judgeReuse)
}

func (r *progressToken) judgeUnknown(p *Pass, h heldToken) {
	if r.loss.lost || r.blind || r.tokens.forgot || r.tokens.known(h.key) {
		return
	}
	r.once.report("unknown "+h.key.dir.String()+" "+h.key.tok, func() *Finding {
		return p.ReportAt(h.at, h.seq, h.method, "%s sent %s for progress token %s, which no request of the %s carried",
			h.sender, h.method, Token(h.key.tok, 40), h.key.dir.Sender())
	})
}

// judgeReuse reports a reuse when the earlier request was still unanswered
// a reorder window later: it was in flight when the token was reused.
func (r *progressToken) judgeReuse(p *Pass, h heldToken) {
	if h.old.State != session.Pending {
		return
	}
	p.ReportAt(h.at, h.seq, h.subject, "%s sent %s with progress token %s while %s, which carries the same token, was still in flight",
		h.sender, h.method, Token(h.key.tok, 40), callName(h.old)).
		Relate(h.old.File, h.old.Line, "request with this token sent here")
}

func (r *progressToken) End(p *Pass) {
	r.unknown.flush(p, r.judgeUnknown)
	r.reused.flush(p, r.judgeReuse)
}
