package checks

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleMetaRequired = &Rule{
	ID:       "meta-required",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Request),
	Doc: Doc{
		Summary: "A 2026-07-28 request without the protocol version or client capabilities in its _meta",
		Why: `2026-07-28 has no initialize handshake: every request states for itself which
revision it speaks and what the client supports, in
params._meta["io.modelcontextprotocol/protocolVersion"] (a string) and
params._meta["io.modelcontextprotocol/clientCapabilities"] (an object, {} for
none). Both are required; a server answers a request without them with -32602
(HTTP 400), so the request fails however correct the rest of it is.

A request is judged by its own revision: the version in its _meta, else its
MCP-Protocol-Version header, else the session's (what a successful
server/discover, or an earlier accepted request's _meta, showed it speaks);
the message says which. A dual-era client's fallback initialize is legacy
traffic and is not judged. A server that answers such a request with a
result instead of -32602 is reported at its answer too: it accepted what the
revision requires it to refuse.`,
		Fix: `Send the per-request _meta on every request, including ping-like housekeeping
and retries; most SDKs add it in one place for all requests.`,
		Bad:   `MCP-Protocol-Version: 2026-07-28  {"jsonrpc":"2.0","id":17,"method":"tools/list"}`,
		Good:  `{"jsonrpc":"2.0","id":17,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		Since: "0.2.0",
	},
	Revisions: Revisions{Since: session.ModernRevision},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if !needsMeta(f) {
			return
		}
		if problem := metaProblem(f); problem != "" {
			fd := p.Report(f, methodSubject(f.Msg.Method, callNameOf(f)), "%s %s%s", requestName(f), problem, revisionSource(f.Call))
			p.Explains(fd, metaCause(problem)) // the server's -32602 answer follows from it
		}
	}),
}

// needsMeta reports a client request that a 2026-07-28 revision requires
// to carry its _meta: all but a dual-era client's fallback initialize, and
// what the recorder rewrote is not judged.
func needsMeta(f *session.Frame) bool {
	return clientRequest(f) && f.Msg.Method != "initialize" && !f.Redacted
}

// metaProblem says what is wrong with a request's _meta, as the rest of a
// sentence that starts with the request ("" when nothing is).
func metaProblem(f *session.Frame) string {
	meta := f.View().Meta().Raw // the _meta object, nil when absent or not an object
	if meta == nil {
		if pf := f.View().ParamFields(); pf != nil && pf.RawMeta != nil {
			return "has a params._meta that is a JSON " + jsonscan.Kind(pf.RawMeta) + ", not an object carrying io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"
		}
		return "was sent without params._meta: every 2026-07-28 request carries io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"
	}
	var problems []string
	switch v := mcp.Member(meta, "io.modelcontextprotocol/protocolVersion"); {
	case v == nil:
		problems = append(problems, "io.modelcontextprotocol/protocolVersion is missing")
	case jsonscan.FirstByte(v) != '"':
		problems = append(problems, "io.modelcontextprotocol/protocolVersion is a JSON "+jsonscan.Kind(v)+", not a string")
	}
	switch v := mcp.Member(meta, "io.modelcontextprotocol/clientCapabilities"); {
	case v == nil:
		problems = append(problems, "io.modelcontextprotocol/clientCapabilities is missing")
	case jsonscan.FirstByte(v) != '{':
		problems = append(problems, "io.modelcontextprotocol/clientCapabilities is a JSON "+jsonscan.Kind(v)+", not an object")
	}
	if len(problems) == 0 {
		return ""
	}
	return "has an incomplete params._meta: " + strings.Join(problems, "; ")
}

// metaCause names a _meta problem in a few words, for the answer it causes.
func metaCause(problem string) string {
	switch {
	case strings.HasPrefix(problem, "was sent without"):
		return "request without _meta"
	case strings.HasPrefix(problem, "has a params._meta that is a JSON"):
		return "request whose _meta is not an object"
	}
	return "request with an incomplete _meta"
}

// callNameOf is the tool, prompt or resource a request names ("" when none).
func callNameOf(f *session.Frame) string {
	if f.Call != nil {
		return f.Call.Name
	}
	return ""
}
