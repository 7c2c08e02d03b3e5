package checks

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/session"
)

var ruleHTTPError = &Rule{
	ID:       "http-error",
	Signal:   SignalError,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "An HTTP error status with no JSON-RPC answer",
		Why: `Over Streamable HTTP a server answers every POST with a status. A status of 400
or more that carries no JSON-RPC answer (no body, a body that is not JSON, or
JSON that is not JSON-RPC such as an OAuth {"error":"invalid_token"}) leaves the
client without a protocol-level reason: an authentication wall (401/403), a
proxy failure (502/504), a crashed handler (500).

Transport plumbing is not reported: a 405 answering the client's GET or DELETE
(a server without a standalone stream) when no request of that connection is
waiting, a 202 acknowledgement, and the rejection with which a legacy server
turns down a server/discover probe the client then falls back from.`,
		Fix: `Look at the status and the WWW-Authenticate header; configure credentials
or fix the server or proxy so that errors come back as JSON-RPC error objects.`,
		Bad:   `status 502 with body "Bad Gateway"`,
		Good:  `status 200 with {"jsonrpc":"2.0","id":3,"result":{}}`,
		Since: "0.1.0",
	},
	CountsJudged: true, // the server's HTTP answers: none on stdio
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if f.Status != 0 && f.Direction == session.ServerToClient {
			p.Judged()
		}
		if !f.HTTPErrorBody() {
			return
		}
		if f.Pairing == session.ProbeFallback || f.TransportPlumbing() {
			return // a legacy server turning down a version probe: negotiation
		}
		what := fmt.Sprintf("HTTP %d with no JSON-RPC answer", f.Status)
		switch {
		case f.Raw != nil:
			what = fmt.Sprintf("HTTP %d with a JSON body that is not a JSON-RPC answer: %s", f.Status, Evidence(string(f.Raw), 120))
		case f.HasText:
			what = fmt.Sprintf("HTTP %d with a body that is not JSON: %s", f.Status, Quote(f.Text, 120))
		}
		if f.AuthChallenge != "" {
			what += "; WWW-Authenticate: " + Quote(f.AuthChallenge, 160)
		}
		if f.Call != nil {
			p.Report(f, callSubject(f.Call), "%s got %s", f.Call.Label(), what).
				Relate(f.Call.File, f.Call.Line, "request sent here")
			return
		}
		p.Report(f, fmt.Sprintf("status %d", f.Status), "the server answered %s", what)
	}),
}
