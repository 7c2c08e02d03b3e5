package checks

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
)

// judgeable is a protocol frame whose JSON-RPC structure can be judged: not
// cut short by the recorder, whose truncation truncated-capture reports.
func judgeable(f *session.Frame) bool {
	return f.IsProtocol() && !f.Truncated && f.Msg.Kind != session.NoMessage
}

var ruleInvalidFrame = &Rule{
	ID:        "invalid-frame",
	Title:     "Something on the protocol channel is not a JSON-RPC message",
	Signal:    SignalInvalid,
	Severity:  SeverityError,
	Revisions: "all",
	Doc: `Over stdio the server's stdout is the protocol channel: every line must be one
JSON-RPC message. A log line, a banner or a usage text printed to stdout
("stdout pollution") breaks the client's parser, and clients drop or abort on
it. The same holds for an object with none of the JSON-RPC members, members of
the wrong type (a method that is not a string, params that are not an object,
an error without an integer code), and a JSON array (a batch) in any revision
but 2025-03-26, the only one that defines batches. The messages inside a batch
are still correlated and checked one by one.

Fix: send logs to stderr (console.error, log to os.Stderr), never to stdout.

Bad:  Server listening on stdio          (written to stdout)
Good: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"listening"}}`,
	Check: func(p *Pass, f *session.Frame) {
		if !f.IsProtocol() || f.Truncated || f.HTTPErrorBody() || f.TransportPlumbing() {
			return // HTTP error bodies are http-error's; plumbing is not protocol traffic
		}
		if f.HasText && f.Raw == nil {
			if strings.TrimSpace(f.Text) == "" {
				return // blank lines are tolerated
			}
			p.Report(f, f.Direction.String()+" text "+Quote(f.Text, 80), "%s wrote a line that is not JSON on the protocol channel: %s",
				f.Direction.Sender(), Quote(f.Text, 120))
			return
		}
		if f.BatchStart && !batchesAllowed(p.Session.Revision) {
			what := "a JSON-RPC batch (the recorder split it into envelopes)"
			if f.Elements > 0 {
				what = fmt.Sprintf("a JSON array of %d %s (a batch)", f.Elements, plural(f.Elements, "message", "messages"))
			}
			p.Report(f, f.Direction.String()+" batch", "%s sent %s, which %s does not allow", f.Direction.Sender(), what, revisionText(p.Session.Revision))
		}
		if f.Msg.Kind == session.Invalid {
			p.Report(f, f.Direction.String()+" "+f.Msg.Problem, "%s sent %s", f.Direction.Sender(), f.Msg.Problem)
		}
	},
}

// batchesAllowed: only 2025-03-26 defines JSON-RPC batches; 2024-11-05 never
// mentions them and 2025-06-18 removed them.
func batchesAllowed(revision string) bool { return revision == "2025-03-26" }

func revisionText(revision string) string {
	if revision == "" {
		return "MCP (but for revision 2025-03-26)"
	}
	return "revision " + revision
}

var ruleJSONRPCVersion = &Rule{
	ID:        "jsonrpc-version",
	Title:     `The jsonrpc member is missing or not "2.0"`,
	Signal:    SignalWarn,
	Severity:  SeverityError,
	Revisions: "all",
	Doc: `Every MCP message is a JSON-RPC 2.0 message and must carry "jsonrpc": "2.0".
Strict peers reject a message without it.

Fix: set "jsonrpc": "2.0" on every request, notification and response.

Bad:  {"id":1,"method":"ping"}
Good: {"jsonrpc":"2.0","id":1,"method":"ping"}`,
	Check: func(p *Pass, f *session.Frame) {
		m := &f.Msg
		if !judgeable(f) || m.Kind == session.Invalid || m.Version == "2.0" {
			return
		}
		subject := m.Kind.String() + " " + m.Method
		switch {
		case !m.HasVersion:
			p.Report(f, subject, "%s %s has no jsonrpc member", f.Direction.Sender(), describe(m))
		case m.Version == "":
			p.Report(f, subject, `%s %s has a jsonrpc member that is not the string "2.0"`, f.Direction.Sender(), describe(m))
		default:
			p.Report(f, subject, `%s %s has jsonrpc %s, not "2.0"`, f.Direction.Sender(), describe(m), Quote(m.Version, 20))
		}
	},
}

var ruleRequestID = &Rule{
	ID:        "request-id",
	Title:     "A request id that is null, fractional, boolean, array or object",
	Signal:    SignalWarn,
	Severity:  SeverityError,
	Revisions: "all",
	Doc: `MCP request ids are strings or integers. A null id makes the request
unanswerable (an answer cannot name it); a fractional number, a boolean, an
array or an object is rejected by the MCP schema and mishandled by peers that
key pending requests by id.

Fix: use a counter or a string for ids; use a notification (no id) when no
answer is wanted.

Bad:  {"jsonrpc":"2.0","id":null,"method":"tools/list"}
Good: {"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
	Check: func(p *Pass, f *session.Frame) {
		m := &f.Msg
		if !judgeable(f) || m.Kind != session.Request {
			return
		}
		var what string
		switch m.ID.Kind() {
		case session.IDNull:
			what = "a null id, so it can never be answered"
		case session.IDFraction:
			what = "the fractional id " + m.ID.String()
		case session.IDOther:
			what = "an id that is not a string or an integer: " + Quote(m.ID.String(), 40)
		default:
			return
		}
		p.Report(f, m.Method+" id "+m.ID.String(), "%s request %s has %s", f.Direction.Sender(), m.Method, what)
	},
}

var ruleResponseShape = &Rule{
	ID:        "response-shape",
	Title:     "A response with both or neither of result and error, or a result with a null id",
	Signal:    SignalWarn,
	Severity:  SeverityError,
	Revisions: "all",
	Doc: `A JSON-RPC response carries exactly one of "result" and "error". A result must
name the request it answers, so its id cannot be null or missing (only an
error about an unreadable request may have a null id).

Fix: send either result or error, and echo the request's id.

Bad:  {"jsonrpc":"2.0","id":3,"result":{},"error":{"code":-32603,"message":"x"}}
Good: {"jsonrpc":"2.0","id":3,"result":{}}`,
	Check: func(p *Pass, f *session.Frame) {
		m := &f.Msg
		if !judgeable(f) || m.Kind != session.Response {
			return
		}
		subject := "id " + m.ID.String()
		switch {
		case m.Result != nil && m.Error != nil:
			p.Report(f, subject, "%s response for id %s has both result and error", f.Direction.Sender(), m.ID)
		case m.Result == nil && m.Error == nil:
			p.Report(f, subject, "%s response for id %s has neither result nor error", f.Direction.Sender(), m.ID)
		case m.Result != nil && (m.ID.Kind() == session.IDAbsent || m.ID.Kind() == session.IDNull):
			p.Report(f, "result without id", "%s sent a result with a null or missing id", f.Direction.Sender())
		}
	},
}

var ruleIDReuse = &Rule{
	ID:        "id-reuse",
	Title:     "A request id reused while the earlier request is still in flight",
	Signal:    SignalWarn,
	Severity:  SeverityError,
	Revisions: "all",
	Doc: `A sender must not reuse a request id while a request with that id is still
unanswered: the peer cannot tell which request an answer belongs to, and one of
the two callers gets the other's result.

Fix: allocate ids from a counter that never repeats within a session.

Bad:  {"id":5,"method":"tools/call",…} then {"id":5,"method":"tools/list"} before id 5 is answered
Good: {"id":5,"method":"tools/call",…} then {"id":6,"method":"tools/list"}`,
	Check: func(p *Pass, f *session.Frame) {
		if f.Pairing != session.Reused || !judgeable(f) {
			return
		}
		old := f.Call.Superseded
		p.Report(f, callSubject(f.Call), "%s reused id %s while %s was still in flight", f.Direction.Sender(), f.Call.ID, old.Label()).
			Relate(old.File, old.Line, "earlier request with this id")
	},
}

var ruleUnmatchedResponse = &Rule{
	ID:        "unmatched-response",
	Title:     "A response to an id that no request used",
	Signal:    SignalWarn,
	Severity:  SeverityWarning,
	Revisions: "all",
	Doc: `Every response answers a request sent the other way with the same id (1, 1.0
and "1" are different ids). A response that matches no request is a peer
answering something it invented, answering a notification, or rewriting ids.

mcpcheck tolerates what recorders do: an answer written just before its
request pairs silently, answers on another HTTP connection pair when exactly
one request matches, and a truncated request explains one unmatched answer.

Fix: echo the request's id exactly, with its JSON type.

Bad:  request {"id":"7",…} answered by {"id":7,"result":{}}
Good: request {"id":"7",…} answered by {"id":"7","result":{}}`,
	Check: func(p *Pass, f *session.Frame) {
		if f.Pairing != session.Unmatched || !judgeable(f) {
			return
		}
		if k := f.Msg.ID.Kind(); k == session.IDAbsent || k == session.IDNull {
			return // nothing to match by; jsonrpc-error or response-shape speak for it
		}
		p.Report(f, "id "+f.Msg.ID.String(), "%s answered id %s, which no %s request used",
			f.Direction.Sender(), f.Msg.ID, f.Direction.Opposite().Sender())
	},
}

var ruleDuplicateResponse = &Rule{
	ID:        "duplicate-response",
	Title:     "A second answer for the same request",
	Signal:    SignalWarn,
	Severity:  SeverityError,
	Revisions: "all",
	Doc: `Each request gets exactly one response. A second answer means the peer ran the
request twice or replays its output; a client may act on both.

Fix: make sure each request's handler answers once, on one path.

Bad:  {"id":4,"result":{}} and later again {"id":4,"result":{}}
Good: one answer per id`,
	Check: func(p *Pass, f *session.Frame) {
		if f.Pairing != session.Duplicate || !judgeable(f) {
			return
		}
		c := f.Call
		p.Report(f, callSubject(c), "%s answered %s again (answer %d)", f.Direction.Sender(), c.Label(), c.Answers).
			Relate(c.File, c.Line, "request sent here").
			Relate(c.File, c.EndLine, "first answer here")
	},
}

// describe names a message for messages: `request tools/list (id 3)`.
func describe(m *session.Message) string {
	switch m.Kind {
	case session.Request:
		return "request " + m.Method + " (id " + m.ID.String() + ")"
	case session.Notification:
		return "notification " + m.Method
	case session.Response:
		if m.ID.IsZero() {
			return "response"
		}
		return "response to id " + m.ID.String()
	}
	return "message"
}
