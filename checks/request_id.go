package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleRequestID = &Rule{
	ID:       "request-id",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Request),
	Doc: Doc{
		Summary: "A request id that is null, fractional, too large, boolean, array or object",
		Why: `MCP request ids are strings or integers. A null id makes the request
unanswerable (an answer cannot name it); a fractional number, a boolean, an
array or an object is rejected by the MCP schema and mishandled by peers that
key pending requests by id. An integer beyond 64 bits (1e400) is one no
peer's integer type holds: it is rounded or rejected, and the answer may name
another request.`,
		Fix: `Use a counter or a string for ids; use a notification (no id) when no
answer is wanted.`,
		Bad:   `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`,
		Good:  `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
		Since: "0.1.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		m := &f.Msg
		if !judgeable(f) || m.Kind != session.Request {
			return
		}
		var what, kind string // kind, not the id itself, names the subject
		switch m.ID.Kind() {
		case session.IDNull:
			what, kind = "a null id, so it can never be answered", "null"
		case session.IDFraction:
			what, kind = "the fractional id "+cut(m.ID.String(), 40), "fractional"
		case session.IDInteger:
			if m.ID.IntegerFits64() {
				return
			}
			what, kind = "the id "+cut(m.ID.String(), 40)+", an integer too large for any peer's integer type", "oversized"
		case session.IDOther:
			what, kind = "an id that is not a string or an integer: "+Token(m.ID.String(), 40), "non-scalar"
		default:
			return
		}
		p.Report(f, m.Method+" "+kind+" id", "%s request %s has %s", f.Direction.Sender(), m.Method, what)
	}),
}
