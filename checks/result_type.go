package checks

import (
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleResultType = &Rule{
	ID:       "result-type",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Response),
	Doc: Doc{
		Summary: "A 2026-07-28 result without a string resultType",
		Why: `From 2026-07-28 every result says what kind of result it is: resultType
"complete" for a final answer, "input_required" when the server asks for input
before it can finish (a multi round-trip request), or a value an extension the
request negotiated defines. A client reads the rest of the result by it, so a
result without it, or with a resultType that is not a string, cannot be
interpreted.

A result is judged by the revision of the request it answers; the answer to
a request that stated no revision of its own (no _meta, no header) should
have been an error, which meta-accepted reports instead. Results of
initialize are exempt (a legacy handshake has no resultType), and so is a
server that shows it speaks an earlier revision (it negotiated one through
initialize, or its server/discover result does not list the request's
revision): clients treat a legacy server's result without resultType as
complete.`,
		Fix: `Add "resultType":"complete" to every final result (and "input_required" to
interim ones); the 2026-07-28 SDKs do so when the result is built through them.`,
		Bad:   `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"Echo: hi"}]}}`,
		Good:  `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"Echo: hi"}],"resultType":"complete"}}`,
		Since: "0.2.0",
	},
	Revisions: Revisions{Since: session.ModernRevision},
	Facts:     []facts.Fact{facts.Negotiation},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if !serverResult(f) || f.Call.Method == "initialize" || legacyServer(p, f.Revision(p.Session)) {
			return
		}
		if f.Call.RevisionSource == session.RevisionFromSession {
			return // the request stated no revision: its answer should have been -32602 (meta-accepted)
		}
		r := f.View().ResultFields()
		if r == nil {
			return // not a result object at all: nothing to read a resultType from
		}
		rt := r.ResultType
		switch {
		case rt == nil:
			p.Report(f, methodSubject(f.Call.Method, f.Call.Name), "the result of %s has no resultType", callName(f.Call)).
				Relate(f.Call.File, f.Call.Line, "request sent here")
		case jsonscan.FirstByte(rt) != '"':
			p.Report(f, methodSubject(f.Call.Method, f.Call.Name), "the result of %s has a resultType that is a JSON %s, not a string", callName(f.Call), jsonscan.Kind(rt)).
				Relate(f.Call.File, f.Call.Line, "request sent here")
		}
	}),
}
