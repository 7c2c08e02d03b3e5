package checks

import "github.com/mcpcheck/mcpcheck/session"

var ruleMetaAccepted = &Rule{
	ID:       "meta-accepted",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A 2026-07-28 request lacking the required _meta answered with a result instead of -32602",
		Why: `A 2026-07-28 server must refuse a request whose params._meta lacks
io.modelcontextprotocol/protocolVersion or io.modelcontextprotocol/clientCapabilities:
it answers -32602 (with HTTP 400 over Streamable HTTP). A server that answers
such a request with a result guesses a revision and capabilities the client
never stated, so the same client may work against it and fail against every
server that follows the revision.

The request is judged by its revision as meta-required judges it (its _meta,
else its MCP-Protocol-Version header, else the session's), and the finding
links the request, which meta-required reports. An error answer of any code is
a refusal and is not reported.`,
		Fix: `Validate the per-request _meta before dispatching the method, and answer
-32602 (HTTP 400) when either member is missing or of the wrong type; the
2026-07-28 SDKs do so in their request handling.`,
		Bad:   `{"jsonrpc":"2.0","id":2,"method":"ping"}  →  {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete"}}`,
		Good:  `{"jsonrpc":"2.0","id":2,"method":"ping"}  →  {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"missing _meta"}}`,
		Since: "0.3.0",
	},
	Revisions: Revisions{Since: session.ModernRevision},
	New:       func() Checker { return &metaAccepted{} },
}

// metaAccepted remembers the requests that lacked their _meta until their
// answers arrive.
type metaAccepted struct {
	Base
	lacking map[*session.Call]bool
}

// maxLackingRequests bounds what is remembered of requests never answered;
// past it, the answers of later ones go unjudged.
const maxLackingRequests = 4096

func (c *metaAccepted) Frame(p *Pass, f *session.Frame) {
	switch {
	case needsMeta(f) && f.Call != nil:
		if len(c.lacking) < maxLackingRequests && metaProblem(f) != "" {
			if c.lacking == nil {
				c.lacking = map[*session.Call]bool{}
			}
			c.lacking[f.Call] = true
		}
	case f.Direction == session.ServerToClient && f.Msg.Kind == session.Response && f.Call != nil && c.lacking[f.Call]:
		delete(c.lacking, f.Call)
		if f.Msg.Error != nil || f.Pairing != session.Answered || f.Truncated || f.Redacted {
			return // refused, or not the request's own answer
		}
		req := f.Call
		fd := p.Report(f, "accepted "+methodSubject(req.Method, req.Name), "server answered %s with a result, but the request lacked the _meta 2026-07-28 requires, so it should have been refused with -32602", callName(req)).
			Relate(req.File, req.Line, "the request without the required _meta (meta-required)")
		p.FollowsCause(f, fd) // "; caused by: request without _meta, line N", as other answers to it say
	}
}
