package checks

import (
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleCursor = &Rule{
	ID:        "cursor",
	Signal:    SignalWarn,
	Severity:  SeverityWarning,
	Revisions: Revisions{Until: "2025-11-25"},
	Doc: Doc{
		Summary: "A list request with a cursor that no result of that list issued in the session",
		Why: `Pagination cursors are opaque tokens: a client may only send back, with the
same list method, a nextCursor the server gave it in this session. It must not
make one up, modify or parse one, carry one over from another session, or use
one list's cursor with another list. A server handed a cursor it never issued
answers with an error, or worse, with a page of something else.

Judged only in sessions whose initialize handshake was recorded (so the capture
shows every cursor the session issued), and only until 2026-07-28, which has no
sessions. A recorder may write the next page's request before the result that
issued its cursor: an unknown cursor waits for the reorder window. The rule is
silent when the capture lost frames or the recorder redacted a list result.`,
		Fix:   `Send back exactly the nextCursor of the previous page of the same list, and stop when there is none.`,
		Bad:   `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"page-2"}} when no tools/list result carried "nextCursor":"page-2"`,
		Good:  `a tools/list result with "nextCursor":"eyJvZmZzZXQiOjEwfQ==", then {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"eyJvZmZzZXQiOjEwfQ=="}}`,
		Since: "0.2.0",
	},
	Facts: []facts.Fact{facts.Negotiation},
	New:   func() Checker { return &cursorRule{held: newWindow[heldCursor](maxHeldCursors)} },
}

var listOrder = []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list", "tasks/list"}

var listMethods = map[string]bool{}

func init() {
	for _, m := range listOrder {
		listMethods[m] = true
	}
}

// maxCursors bounds the cursors remembered per list; past it the list's
// unknown cursors are not judged.
const maxCursors = 4096

// maxHeldCursors bounds the unknown cursors that wait for the result that
// issued them.
const maxHeldCursors = 64

// listKey is one list as one side reads it.
type listKey struct {
	dir    session.Direction // who sends the list requests
	method string
}

type cursorRule struct {
	Base
	loss   lossWatch
	blind  bool // a list result was redacted: a cursor it issued is unknown
	issued map[listKey]map[string]bool
	full   map[listKey]bool
	held   window[heldCursor]
}

// heldCursor is a request with a cursor no result had issued yet.
type heldCursor struct {
	list   listKey
	cursor string
	at     Location
	seq    int64
}

func (r *cursorRule) Damage(*Pass, session.Damage) { r.loss.damage() }

func (r *cursorRule) Frame(p *Pass, f *session.Frame) {
	r.loss.see(f)
	r.held.expire(p, r.judge)
	m := &f.Msg
	if !judgeable(f) {
		return
	}
	switch {
	case m.Kind == session.Request && listMethods[m.Method]:
		r.request(p, f)
	case m.Kind == session.Response && f.Call != nil && listMethods[f.Call.Method] && m.Error == nil &&
		(f.Pairing == session.Answered || f.Pairing == session.Late):
		if f.Redacted {
			r.blind = true
			return
		}
		next, ok := jsonscan.String(mcp.Member(m.Result, "nextCursor"))
		if !ok {
			return
		}
		r.issue(listKey{f.Call.Dir, f.Call.Method}, next)
	}
}

func (r *cursorRule) request(p *Pass, f *session.Frame) {
	if f.Redacted {
		return
	}
	cur, ok := jsonscan.String(mcp.Member(f.Msg.Params, "cursor"))
	if !ok {
		return
	}
	n := facts.Negotiation.Of(p)
	if n.InitializeLine == 0 || f.Line < n.InitializeLine {
		return // the capture may not show the session from its start
	}
	list := listKey{f.Direction, f.Msg.Method}
	if r.issued[list][cur] {
		return
	}
	r.held.hold(p, heldCursor{list: list, cursor: cur, at: Location{File: f.File, Line: f.Line}, seq: f.Seq}, r.judge)
}

func (r *cursorRule) issue(list listKey, cursor string) {
	if r.issued == nil {
		r.issued, r.full = map[listKey]map[string]bool{}, map[listKey]bool{}
	}
	set := r.issued[list]
	if set == nil {
		set = map[string]bool{}
		r.issued[list] = set
	}
	if len(set) >= maxCursors {
		r.full[list] = true
	} else {
		set[cursor] = true
	}
	// a result recorded after the request that used its cursor
	r.held.drop(func(h heldCursor) bool { return h.list == list && h.cursor == cursor })
}

func (r *cursorRule) judge(p *Pass, h heldCursor) {
	if r.loss.lost || r.blind || r.full[h.list] || r.issued[h.list][h.cursor] {
		return
	}
	sender := h.list.dir.Sender()
	for _, other := range listOrder {
		if r.issued[listKey{h.list.dir, other}][h.cursor] {
			p.ReportAt(h.at, h.seq, h.list.method+" cursor", "%s sent %s with cursor %s, which %s issued: a cursor belongs to the list that issued it",
				sender, h.list.method, Quote(h.cursor, 80), other)
			return
		}
	}
	p.ReportAt(h.at, h.seq, h.list.method+" cursor", "%s sent %s with cursor %s, which no %s result of this session issued",
		sender, h.list.method, Quote(h.cursor, 80), h.list.method)
}

func (r *cursorRule) End(p *Pass) { r.held.flush(p, r.judge) }
