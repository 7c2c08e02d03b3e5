package checks

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

// tasksExtension is the 2026-07-28 extension that carries tasks.
const tasksExtension = "io.modelcontextprotocol/tasks"

var ruleExtensionNegotiation = &Rule{
	ID:       "extension-negotiation",
	Signal:   SignalWarn,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "Tasks used when the other side never advertised the io.modelcontextprotocol/tasks extension",
		Why: `In 2026-07-28 tasks are no longer core protocol: they are the extension
io.modelcontextprotocol/tasks, which each side advertises in
capabilities.extensions (the client in each request's _meta clientCapabilities,
the server in its server/discover result). A server must not answer a request
with a task unless that request's client capabilities list the extension; a
client should not call tasks/get, tasks/update or tasks/cancel on a server that
does not advertise it; notifications/tasks only go to a subscription whose
request listed it. The side that does not know the extension cannot read what
it receives.

The rule is silent when the capture cannot show what was negotiated: a
request whose _meta was not captured, no server/discover result, a
notification that names no subscription. A client following up a task the
server handed out in the session is not reported. Before 2026-07-28 tasks are
core protocol and using them is correct.`,
		Fix: `Advertise the extension ("extensions":{"io.modelcontextprotocol/tasks":{}}) on
both sides, or answer without a task (run the request to completion) when the
request does not list it.`,
		Bad:   `request clientCapabilities {} ; result {"resultType":"task","task":{"taskId":"t-1","status":"working"}}`,
		Good:  `request clientCapabilities {"extensions":{"io.modelcontextprotocol/tasks":{}}} ; the same result`,
		Since: "0.2.0",
	},
	Revisions: Revisions{Since: session.ModernRevision},
	Facts:     []facts.Fact{facts.Tasks},
	New: func() Checker {
		return &extensionNegotiation{requests: newCallMemo[bool](maxRememberedCalls), listens: map[string]listenTasks{}}
	},
}

type extensionNegotiation struct {
	Base
	requests *callMemo[bool]        // whether each open request's clientCapabilities list the extension
	listens  map[string]listenTasks // subscriptions/listen requests by id token

	discovered  bool // a server/discover result was seen
	serverTasks bool // ... and it advertised the extension
	discoverAt  int
}

type listenTasks struct {
	tasks bool // its clientCapabilities list the extension
	line  int
}

func (e *extensionNegotiation) Frame(p *Pass, f *session.Frame) {
	m := &f.Msg
	switch {
	case clientRequest(f) && f.Call != nil:
		caps := f.View().Meta().ClientCapabilities
		known := caps.Known() && !f.Redacted
		if known {
			e.requests.put(f.Call, caps.Extension(tasksExtension))
			if m.Method == "subscriptions/listen" && len(e.listens) < maxListens {
				e.listens[m.ID.String()] = listenTasks{tasks: caps.Extension(tasksExtension), line: f.Line}
			}
		}
		e.clientTasks(p, f)
	case serverResult(f):
		advertised, known := e.requests.take(f.Call)
		if f.Call.Method == "server/discover" {
			if r, ok := f.View().DiscoverResult(); ok {
				e.discovered, e.serverTasks, e.discoverAt = true, r.Capabilities.Extension(tasksExtension), f.Line
			}
		}
		if known && !advertised && taskHandle(f) {
			p.Report(f, methodSubject(f.Call.Method, f.Call.Name), "%s was answered with a task, but the request's clientCapabilities do not list the %s extension", callName(f.Call), tasksExtension).
				Relate(f.Call.File, f.Call.Line, "request sent here")
		}
	case m.Kind == session.Response && f.Call != nil:
		e.requests.take(f.Call) // an error answer
	case m.Kind == session.Notification && f.Direction == session.ServerToClient && m.Method == "notifications/tasks":
		id := mcp.SubscriptionID(f.View())
		if id == nil {
			return
		}
		if l, ok := e.listens[session.MakeID(id).String()]; ok && !l.tasks {
			p.Report(f, "notifications/tasks", "server sent notifications/tasks on a subscriptions/listen stream whose clientCapabilities do not list the %s extension", tasksExtension).
				Relate(f.File, l.line, "subscription requested here")
		}
	}
	switch {
	case f.Call != nil && f.Call.Method == "subscriptions/listen" && (m.Kind == session.Response || f.Pairing == session.Cancelling):
		delete(e.listens, f.Call.ID.String()) // the stream ended
	case m.Method == "notifications/cancelled" && f.Direction == session.ServerToClient && m.Req != nil && len(m.Req.RequestID) > 0:
		delete(e.listens, session.MakeID(m.Req.RequestID).String()) // the server tore a stream down
	}
}

// clientTasks judges a client's tasks/* request by what the server's
// server/discover result advertised.
func (e *extensionNegotiation) clientTasks(p *Pass, f *session.Frame) {
	c := f.Call
	switch c.Method {
	case "tasks/get", "tasks/update", "tasks/cancel":
	default:
		return
	}
	if !e.discovered || e.serverTasks {
		return
	}
	if _, handedOut := facts.Tasks.Of(p).Task(c.TaskRef); handedOut && c.TaskRef != "" {
		return // the server created the task: it speaks the extension, whatever it advertised
	}
	p.Report(f, c.Method, "%s uses the %s extension, which the server's server/discover result does not advertise", c.Method, tasksExtension).
		Relate(f.File, e.discoverAt, "server/discover answered here")
}

// taskHandle reports a result that hands out a task instead of answering.
func taskHandle(f *session.Frame) bool {
	r := f.Msg.Res
	if r == nil || strings.HasPrefix(f.Call.Method, "tasks/") {
		return false
	}
	rt, ok := r.ResultTypeString()
	return rt == "task" || (!ok && r.Task != nil && r.Task.TaskID != "")
}
