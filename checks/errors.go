package checks

import (
	"encoding/json"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"

	"github.com/mcpcheck/mcpcheck/session"
)

var ruleJSONRPCError = &Rule{
	ID:        "jsonrpc-error",
	Title:     "A request was answered with a JSON-RPC error",
	Signal:    SignalError,
	Severity:  SeverityError,
	Revisions: "all",
	Doc: `A JSON-RPC error answer means the peer refused or failed a request: an unknown
method (-32601), bad parameters (-32602), an internal failure (-32603) or an
application error. Error answers that match no request and error answers that
arrive after a cancellation count too.

A dual-era client that probes with server/discover and falls back to
initialize when a legacy server answers -32601, -32602, -32022 or an HTTP 4xx
is negotiating as designed; that rejected probe is not reported.

Fix: read the code and message; correct the request (method name, params) or
the server's handler.

Bad:  {"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Internal error"}}
Good: {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"ok"}]}}`,
	Check: func(p *Pass, f *session.Frame) {
		e := f.Msg.Error
		if e == nil || f.Msg.Kind != session.Response {
			return
		}
		what := fmt.Sprintf("JSON-RPC error %d %s", e.Code, Quote(e.Message, 160))
		switch f.Pairing {
		case session.Answered:
			p.Report(f, callSubject(f.Call), "%s failed with %s", f.Call.Label(), what).
				Relate(f.Call.File, f.Call.Line, "request sent here")
		case session.Late:
			p.Report(f, callSubject(f.Call), "%s was answered after its cancellation with %s", f.Call.Label(), what).
				Relate(f.Call.File, f.Call.Line, "request sent here")
		case session.Unmatched, session.Absorbed:
			switch {
			case f.Msg.ID.Kind() == session.IDAbsent || f.Msg.ID.Kind() == session.IDNull:
				p.Report(f, fmt.Sprintf("error %d", e.Code), "%s sent %s with no request id", f.Direction.Sender(), what)
			case f.Pairing == session.Absorbed:
				p.Report(f, "id "+f.Msg.ID.String(), "%s sent %s for id %s, whose request the capture did not record whole", f.Direction.Sender(), what, f.Msg.ID)
			default:
				p.Report(f, "id "+f.Msg.ID.String(), "%s sent %s for id %s, which no request used", f.Direction.Sender(), what, f.Msg.ID)
			}
		}
	},
}

var ruleToolError = &Rule{
	ID:        "tool-error",
	Title:     "A tool reported failure with isError: true",
	Signal:    SignalError,
	Severity:  SeverityError,
	Revisions: "all",
	Doc: `A tools/call result with "isError": true is the tool telling the model that it
failed: a missing file, a rejected argument, an upstream outage. The protocol
exchange worked, but the tool call did not do its job.

Fix: read the error text in the result's content; fix the arguments the model
sent, the tool's environment, or the tool.

Bad:  {"result":{"content":[{"type":"text","text":"ENOENT: no such file"}],"isError":true}}
Good: {"result":{"content":[{"type":"text","text":"file contents"}]}}`,
	Check: func(p *Pass, f *session.Frame) {
		r := f.Msg.Res
		if r == nil || !r.IsError || f.Msg.Error != nil {
			return
		}
		if f.Call != nil && f.Call.Method == "tasks/result" {
			return // the task's failure is task-failed's
		}
		text := firstText(r.Content)
		if f.Call == nil {
			p.Report(f, "id "+f.Msg.ID.String(), "a result with isError: true for id %s, which no request used: %s", f.Msg.ID, text)
			return
		}
		what := f.Call.Label()
		if f.Call.Method == "tools/call" {
			what = "tool " + quoteName(f.Call.Name) + " (id " + f.Call.ID.String() + ")"
		}
		p.Report(f, callSubject(f.Call), "%s reported an error: %s", what, text).
			Relate(f.Call.File, f.Call.Line, "request sent here")
	},
}

var ruleHTTPError = &Rule{
	ID:        "http-error",
	Title:     "An HTTP error status with no JSON-RPC answer",
	Signal:    SignalError,
	Severity:  SeverityError,
	Revisions: "all (Streamable HTTP)",
	Doc: `Over Streamable HTTP a server answers every POST with a status. A status of 400
or more that carries no JSON-RPC answer (no body, a body that is not JSON, or
JSON that is not JSON-RPC such as an OAuth {"error":"invalid_token"}) leaves the
client without a protocol-level reason: an authentication wall (401/403), a
proxy failure (502/504), a crashed handler (500).

Fix: look at the status and the WWW-Authenticate header; configure credentials
or fix the server or proxy so that errors come back as JSON-RPC error objects.

Bad:  status 502 with body "Bad Gateway"
Good: status 200 with {"jsonrpc":"2.0","id":3,"result":{}}`,
	Check: func(p *Pass, f *session.Frame) {
		if !f.HTTPErrorBody() {
			return
		}
		if f.Pairing == session.ProbeFallback || f.TransportPlumbing() {
			return // a legacy server turning down a version probe: negotiation; or the transport's own 405
		}
		what := fmt.Sprintf("HTTP %d with no JSON-RPC answer", f.Status)
		switch {
		case f.Raw != nil:
			what = fmt.Sprintf("HTTP %d with a JSON body that is not a JSON-RPC answer: %s", f.Status, Quote(string(f.Raw), 120))
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
	},
}

var ruleTaskFailed = &Rule{
	ID:        "task-failed",
	Title:     "A task ended failed, or completed with an isError result",
	Signal:    SignalError,
	Severity:  SeverityError,
	Revisions: "2025-11-25 (core tasks) and later (tasks extension)",
	Doc: `A request answered with a task handle runs on after the answer; its outcome
arrives later through tasks/get, tasks/result or a task status notification.
A task whose terminal status is "failed", or whose result has "isError": true,
is a failed tool call that a plain result check would miss.

Fix: read the task's statusMessage or result content and fix the cause as for
a failed tool call.

Bad:  {"method":"notifications/tasks/status","params":{"taskId":"t1","status":"failed"}}
Good: {"method":"notifications/tasks/status","params":{"taskId":"t1","status":"completed"}}`,
	Start: func(*session.Session) any { return &taskFailed{} },
}

// taskFailed reports each task once, however often its failure is repeated.
type taskFailed struct{ reported map[*session.Task]bool }

func (t *taskFailed) Frame(p *Pass, f *session.Frame) {
	task := f.Task
	if task == nil || t.reported[task] || (task.Status != "failed" && !task.ResultError) {
		return
	}
	if t.reported == nil {
		t.reported = map[*session.Task]bool{}
	}
	t.reported[task] = true
	c := task.Call
	how := "ended with status \"failed\""
	if task.ResultError {
		how = "completed with an isError result: " + firstText(f.Msg.Res.Content)
	}
	p.Report(f, callSubject(c)+" task "+task.ID, "task %s of %s %s", Quote(task.ID, 80), c.Label(), how).
		Relate(c.File, c.Line, "request sent here")
}

// ruleInternalError has no checker: the driver reports it when a rule panics.
var ruleInternalError = &Rule{
	ID:        "internal-error",
	Title:     "A rule failed while checking the capture",
	Signal:    SignalError,
	Severity:  SeverityError,
	Revisions: "all",
	Doc: `mcpcheck runs every rule independently. When one rule fails on some input (a
bug in mcpcheck), the failure is recovered, reported as this finding naming the
rule, and the other rules still run. The failed rule's findings for that
session are incomplete, so the check fails rather than pass silently.

Fix: report the finding and the frame it names to the mcpcheck maintainers;
meanwhile --disable the named rule if you must.

Bad:  rule tool-schema-invalid failed: runtime error: index out of range
Good: no internal-error findings`,
}

// callSubject names a call stably across recordings of the same traffic.
func callSubject(c *session.Call) string {
	s := c.Method
	if c.Name != "" {
		s += " " + c.Name
	}
	return s + " #" + c.ID.String()
}

func quoteName(s string) string { return Quote(s, 80) }

// firstText is the first text content item of a result, quoted for a
// message; only its beginning is decoded.
func firstText(content json.RawMessage) string {
	if text, ok := jsonscan.FirstText(content, 1024); ok && text != "" {
		return Quote(text, 200)
	}
	return "(no text content)"
}
