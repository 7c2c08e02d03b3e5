package checks

import (
	"mime"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
)

var ruleTransportHeaders = &Rule{
	ID:       "transport-headers",
	Signal:   SignalWarn,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "A Streamable HTTP POST whose Accept or whose answer's Content-Type breaks the transport",
		Why: `On Streamable HTTP (2025-03-26 and later) every client POST must list both
application/json and text/event-stream in Accept (*/* offers both), because the
server chooses between a plain JSON answer and an SSE stream per request; a
server may refuse a POST that does not accept the form it wants to use. The
answer to a request must come as application/json or text/event-stream
(charset and other parameters aside): a client reads nothing else.

The rule judges only what the recorder wrote: Accept and Content-Type are
optional fields of a capture, and a capture without them is not judged. An
error status with a non-JSON body is http-error's; a batch is one POST and is
judged once.`,
		Fix: `Send "Accept: application/json, text/event-stream" on every POST; answer with
Content-Type application/json or text/event-stream.`,
		Bad:   `POST /mcp  Accept: application/json   {"jsonrpc":"2.0","id":3,"method":"tools/list",…}`,
		Good:  `POST /mcp  Accept: application/json, text/event-stream   {"jsonrpc":"2.0","id":3,"method":"tools/list",…}`,
		Since: "0.2.0",
	},
	Revisions:    Revisions{Since: "2025-03-26"},
	CountsJudged: true, // messages that travelled over HTTP: none on stdio
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if !overHTTP(f) || f.Truncated || f.TransportPlumbing() {
			return
		}
		m := &f.Msg
		if m.Kind == session.NoMessage || m.Kind == session.Invalid {
			return // no JSON-RPC body: nothing was POSTed or answered as a message
		}
		p.Judged()
		switch {
		case f.Direction == session.ClientToServer && f.Accept != "" && !redacted(f, f.Accept) && f.Element <= 1 && (!f.Batch || f.BatchStart):
			json, sse := acceptOffers(f.Accept)
			var missing []string
			if !json {
				missing = append(missing, "application/json")
			}
			if !sse {
				missing = append(missing, "text/event-stream")
			}
			if len(missing) > 0 {
				p.Report(f, "accept "+postSubject(f), "client POSTed %s with Accept %s, which does not offer %s", postWhat(f), Quote(f.Accept, 120), strings.Join(missing, " or "))
			}
		case f.Direction == session.ServerToClient && m.Kind == session.Response && f.Call != nil && f.ContentType != "" && !redacted(f, f.ContentType):
			if mt := mediaType(f.ContentType); mt != "application/json" && mt != "text/event-stream" {
				p.Report(f, "content-type "+methodSubject(f.Call.Method, f.Call.Name), "the answer to %s arrived with Content-Type %s, neither application/json nor text/event-stream", callName(f.Call), Quote(f.ContentType, 120)).
					Relate(f.Call.File, f.Call.Line, "request sent here")
			}
		}
	}),
}

// acceptOffers reports whether an Accept header offers application/json
// and text/event-stream: by name, by a wildcard, and not with q=0.
func acceptOffers(accept string) (json, sse bool) {
	for _, part := range strings.Split(accept, ",") {
		mt := mediaType(part)
		if _, params, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil {
			if q, err := strconv.ParseFloat(params["q"], 64); err == nil && q == 0 {
				continue // explicitly not acceptable
			}
		}
		switch mt {
		case "*/*":
			json, sse = true, true
		case "application/*", "application/json":
			json = true
		case "text/*", "text/event-stream":
			sse = true
		}
	}
	return json, sse
}

// mediaType is a Content-Type or media range without its parameters, in
// lower case.
func mediaType(v string) string {
	if mt, _, err := mime.ParseMediaType(strings.TrimSpace(v)); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(v, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// postWhat names what a client POST carried, for messages.
func postWhat(f *session.Frame) string {
	switch {
	case f.Batch || f.Elements > 0:
		return "a batch"
	case f.Msg.Kind == session.Response:
		return "a response"
	}
	return f.Msg.Method
}

func postSubject(f *session.Frame) string {
	if f.Msg.Kind == session.Response {
		return "response"
	}
	return f.Msg.Method
}
