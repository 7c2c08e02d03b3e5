package checks

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleRoutingHeader = &Rule{
	ID:       "routing-header",
	Signal:   SignalMismatch,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "HTTP routing headers that disagree with the body, are missing, or were rejected with -32020",
		Why: `On 2026-07-28 Streamable HTTP every POSTed request repeats what gateways route
on in headers: Mcp-Method (the body's method), Mcp-Name (params.name of
tools/call and prompts/get, params.uri of resources/read; the =?base64?…?=
sentinel form decoded) and MCP-Protocol-Version (equal to the _meta
protocolVersion). A header that disagrees with the body sends the request to
the wrong place or past a policy that should have stopped it, which is why a
server must reject it with HTTP 400 and HeaderMismatch (-32020). Routing
headers describe one message, so a batch cannot carry them.

Findings: a header that disagrees with the body, a required one missing, an
Mcp-Name sentinel that does not decode, routing headers on a batch, and a
server's -32020 answer (once per request: not again when the request's own
headers were already reported). A request is judged by its own revision;
headers are judged only when the recorder wrote them: "missing" needs another
request of the session with recorded headers, and a redacted value is never
compared.`,
		Fix: `Set Mcp-Method, Mcp-Name and MCP-Protocol-Version from the very message being
sent (encode non-ASCII names as =?base64?…?=), one message per POST.`,
		Bad:   `Mcp-Name: get_forecast   {"method":"tools/call","params":{"name":"get_weather",…}}`,
		Good:  `Mcp-Name: get_weather    {"method":"tools/call","params":{"name":"get_weather",…}}`,
		Since: "0.2.0",
	},
	Revisions:    Revisions{Since: session.ModernRevision},
	CountsJudged: true, // client requests POSTed over HTTP
	New:          func() Checker { return &routingHeader{reported: newCallMemo[bool](maxRememberedCalls)} },
}

// headerMismatch is the 2026-07-28 error code for headers that disagree
// with the body.
const headerMismatch = -32020

type routingHeader struct {
	Base
	recorded bool            // the recorder writes MCP request headers in this session
	reported *callMemo[bool] // requests whose headers were reported
}

// nameHeaderMethods are the requests whose Mcp-Name is required.
var nameHeaderMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

func (r *routingHeader) Frame(p *Pass, f *session.Frame) {
	switch {
	case clientRequest(f) && overHTTP(f):
		p.Judged()
		r.request(p, f)
	case f.Direction == session.ServerToClient && f.Msg.Kind == session.Response:
		already := false
		if f.Call != nil {
			_, already = r.reported.take(f.Call)
		}
		e := f.Msg.Error
		switch {
		case e == nil || e.Code != headerMismatch || already:
		case f.Call == nil:
			p.Report(f, "error -32020", "server answered HeaderMismatch (-32020) %s", Evidence(e.Message, 160))
		default:
			p.Report(f, methodSubject(f.Call.Method, f.Call.Name), "server rejected %s with HeaderMismatch (-32020) %s", callName(f.Call), Evidence(e.Message, 160)).
				Relate(f.Call.File, f.Call.Line, "request sent here")
		}
	}
}

func (r *routingHeader) request(p *Pass, f *session.Frame) {
	if f.MCPMethod != "" || f.MCPName != "" || f.MCPProtocolVersion != "" || len(f.ParamHeaders) > 0 {
		r.recorded = true
	}
	m := &f.Msg
	if f.Batch || f.Elements > 0 {
		if f.BatchStart && (f.MCPMethod != "" || f.MCPName != "") {
			p.Report(f, "batch", "client sent routing headers (Mcp-Method, Mcp-Name) with a JSON-RPC batch, whose messages they cannot all describe")
		}
		return
	}
	var problems []string
	switch {
	case f.MCPMethod != "" && !redacted(f, f.MCPMethod):
		if f.MCPMethod != m.Method {
			problems = append(problems, "Mcp-Method is "+Quote(f.MCPMethod, 80)+", the body's method "+Quote(m.Method, 80))
		}
	case f.MCPMethod == "" && r.recorded:
		problems = append(problems, "Mcp-Method is missing")
	}
	if body, defined := routedName(f); defined {
		switch {
		case f.MCPName != "" && !redacted(f, f.MCPName):
			switch name, ok := mcp.DecodeHeaderValue(f.MCPName); {
			case !ok:
				problems = append(problems, "Mcp-Name "+Quote(f.MCPName, 80)+" is not a decodable base64 sentinel")
			case name != body && !redacted(f, body):
				what := "Mcp-Name is " + Quote(name, 80)
				if mcp.IsHeaderSentinel(f.MCPName) {
					what += " (decoded)"
				}
				problems = append(problems, what+", the body's "+routedField(m.Method)+" "+Quote(body, 80))
			}
		case f.MCPName == "" && r.recorded && nameHeaderMethods[m.Method]:
			problems = append(problems, "Mcp-Name is missing")
		}
	}
	meta := f.View().Meta().ProtocolVersion
	switch {
	case f.MCPProtocolVersion != "" && meta != "" && session.NormalizeRevision(f.MCPProtocolVersion) != session.NormalizeRevision(meta) && !redacted(f, f.MCPProtocolVersion):
		problems = append(problems, "MCP-Protocol-Version is "+Quote(f.MCPProtocolVersion, 40)+", the _meta protocolVersion "+Quote(meta, 40))
	case f.MCPProtocolVersion == "" && r.recorded:
		problems = append(problems, "MCP-Protocol-Version is missing")
	}
	if len(problems) == 0 {
		return
	}
	name := ""
	if f.Call != nil {
		name = f.Call.Name
		r.reported.put(f.Call, true)
	}
	p.Report(f, methodSubject(m.Method, name), "the HTTP routing headers of %s do not match it: %s", requestName(f), strings.Join(problems, "; "))
}

// routedName is the value Mcp-Name carries for a request: params.name of
// tools/call and prompts/get, params.uri of resources/*; defined is false
// for a method that has none, or a body without it.
func routedName(f *session.Frame) (name string, defined bool) {
	r, method := f.View().ParamFields(), f.Msg.Method
	switch {
	case r == nil:
		return "", false
	case method == "tools/call" || method == "prompts/get":
		return r.Name, r.Name != ""
	case strings.HasPrefix(method, "resources/"):
		return r.URI, r.URI != ""
	}
	return "", false
}

func routedField(method string) string {
	if strings.HasPrefix(method, "resources/") {
		return "uri"
	}
	return "name"
}
