package checks

import (
	"slices"
	"strconv"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleCancel = &Rule{
	ID:       "cancel",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A cancellation naming no request or one its sender never sent, or (2026-07-28) a server cancelling anything but subscriptions/listen",
		Why: `notifications/cancelled names, in requestId, a request its sender issued earlier
in the same direction: a party can only cancel its own requests. A
cancellation without a requestId cancels nothing (2025-11-25 made the field
optional only because tasks are cancelled with tasks/cancel instead, never with
this notification), and one naming an id the sender never used reveals a client
or server that confused the two directions' ids, or cancels from stale state.
Under 2026-07-28 a server sends no requests, and it may cancel only a
subscriptions/listen stream the client opened, to tear it down.

A recorder may write a cancellation sent on another HTTP connection before the
request it cancels: an unknown id waits for the reorder window, and the rule is
silent about unknown ids when the capture lost frames.`,
		Fix: `Cancel only requests you sent and are still waiting for, naming their exact
id (7 and "7" are different ids).`,
		Bad:   `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}} when the client never sent id 42`,
		Good:  `{"jsonrpc":"2.0","id":42,"method":"tools/call",…} then {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}`,
		Since: "0.2.0",
	},
	Facts: []facts.Fact{facts.Negotiation},
	New:   func() Checker { return &cancel{held: newWindow[heldCancel](maxHeldCancels)} },
}

// maxHeldCancels bounds the cancellations that wait for their request.
const maxHeldCancels = 64

type cancel struct {
	Base
	loss    lossWatch
	sent    [2]idSet // the ids each side sent requests with: [0] client, [1] server
	listens idSet    // ids of the client's subscriptions/listen requests
	held    window[heldCancel]
}

// heldCancel is a cancellation of an id its sender had not used yet.
type heldCancel struct {
	id  session.ID
	dir session.Direction
	at  Location
	seq int64
}

func sideOf(d session.Direction) int {
	if d == session.ServerToClient {
		return 1
	}
	return 0
}

func (c *cancel) Damage(*Pass, session.Damage) { c.loss.damage() }

func (c *cancel) Frame(p *Pass, f *session.Frame) {
	c.loss.see(f)
	c.held.expire(p, c.judge)
	if !judgeable(f) || f.Redacted {
		return
	}
	m := &f.Msg
	if m.Kind == session.Request && !m.ID.IsZero() {
		c.sent[sideOf(f.Direction)].add(m.ID)
		if m.Method == "subscriptions/listen" && f.Direction == session.ClientToServer {
			c.listens.add(m.ID)
		}
		// the request explains a cancellation recorded before it
		c.held.drop(func(h heldCancel) bool { return h.dir == f.Direction && h.id == m.ID })
		return
	}
	if m.Kind != session.Notification || m.Method != "notifications/cancelled" {
		return
	}
	r := f.View().ParamFields()
	if r == nil || len(r.RequestID) == 0 {
		p.Report(f, "notifications/cancelled", "%s sent notifications/cancelled without a requestId, so it cancels nothing", f.Direction.Sender())
		return
	}
	id := session.MakeID(r.RequestID)
	if k := id.Kind(); k != session.IDString && k != session.IDInteger {
		p.Report(f, "notifications/cancelled", "%s sent notifications/cancelled for requestId %s, which is not a string or an integer",
			f.Direction.Sender(), Token(id.String(), 40))
		return
	}
	rev := f.Revision(p.Session)
	modern := modernFrame(rev) || (rev == "" && facts.Negotiation.Of(p).Modern())
	if f.Direction == session.ServerToClient && modern {
		if !c.listens.has(id) && !c.listens.full {
			p.Report(f, "notifications/cancelled", "server cancelled request %s, but under %s a server may cancel only the client's subscriptions/listen streams",
				Token(id.String(), 40), underRevision(session.ModernRevision))
		}
		return
	}
	if f.Call != nil || c.sent[sideOf(f.Direction)].has(id) {
		return // correlation or the sender's own ids know the request
	}
	c.held.hold(p, heldCancel{id: id, dir: f.Direction, at: Location{File: f.File, Line: f.Line}, seq: f.Seq}, c.judge)
}

func (c *cancel) judge(p *Pass, h heldCancel) {
	if c.loss.lost || c.sent[sideOf(h.dir)].full || c.sent[sideOf(h.dir)].has(h.id) {
		return
	}
	p.ReportAt(h.at, h.seq, "notifications/cancelled", "%s cancelled request %s, which it never sent", h.dir.Sender(), h.id)
}

func (c *cancel) End(p *Pass) { c.held.flush(p, c.judge) }

// idSet is a bounded set of request ids (exact tokens). Past its bound it
// stops growing and says so: a rule must then not conclude that an id is
// absent.
//
// Most peers number requests with a counter, so integer ids are kept as
// runs (1 to 100,000 is one run): a session's ids cost almost nothing
// however many requests it sends, and 256 live sessions may keep a set
// each. Other ids (strings, 1.0, 1e3) are kept one by one.
type idSet struct {
	runs  []idRun // disjoint, sorted, not adjacent
	other map[string]struct{}
	full  bool
}

// idRun is the integer ids lo to hi.
type idRun struct{ lo, hi int64 }

const (
	maxIDRuns  = 4096
	maxIDOther = 4096
)

func (s *idSet) add(id session.ID) {
	if n, ok := plainInteger(id.String()); ok {
		s.addInt(n)
		return
	}
	if s.other == nil {
		s.other = map[string]struct{}{}
	}
	if _, ok := s.other[id.String()]; !ok && len(s.other) >= maxIDOther {
		s.full = true
		return
	}
	s.other[id.String()] = struct{}{}
}

func (s *idSet) addInt(n int64) {
	// the run n falls in or follows (the common case: the last one)
	i, found := slices.BinarySearchFunc(s.runs, n, func(r idRun, n int64) int {
		switch {
		case r.hi < n:
			return -1
		case r.lo > n:
			return 1
		}
		return 0
	})
	if found {
		return
	}
	joinsBefore := i > 0 && s.runs[i-1].hi == n-1
	joinsAfter := i < len(s.runs) && s.runs[i].lo == n+1
	switch {
	case joinsBefore && joinsAfter:
		s.runs[i-1].hi = s.runs[i].hi
		s.runs = slices.Delete(s.runs, i, i+1)
	case joinsBefore:
		s.runs[i-1].hi = n
	case joinsAfter:
		s.runs[i].lo = n
	case len(s.runs) >= maxIDRuns:
		s.full = true
	default:
		s.runs = slices.Insert(s.runs, i, idRun{n, n})
	}
}

func (s *idSet) has(id session.ID) bool {
	if n, ok := plainInteger(id.String()); ok {
		_, found := slices.BinarySearchFunc(s.runs, n, func(r idRun, n int64) int {
			switch {
			case r.hi < n:
				return -1
			case r.lo > n:
				return 1
			}
			return 0
		})
		return found
	}
	_, ok := s.other[id.String()]
	return ok
}

// plainInteger reads an id token written as a plain decimal integer (no
// fraction, exponent, plus sign or leading zero), the one spelling for
// which a number and its token are the same id.
func plainInteger(tok string) (int64, bool) {
	if tok == "" || tok == "-0" || (len(tok) > 1 && tok[0] == '0') || (len(tok) > 2 && tok[0] == '-' && tok[1] == '0') {
		return 0, false
	}
	for i, c := range []byte(tok) {
		if !(c >= '0' && c <= '9' || (i == 0 && c == '-' && len(tok) > 1)) {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(tok, 10, 64)
	return n, err == nil
}
