package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleModernRemoved = &Rule{
	ID:       "modern-removed",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Request, session.Notification, session.Response),
	Doc: Doc{
		Summary: "Something 2026-07-28 removed, used under a 2026-07-28 request or session",
		Why: `2026-07-28 removed parts of the earlier protocol: the initialize handshake
(initialize, notifications/initialized), ping, logging/setLevel,
resources/subscribe and resources/unsubscribe, notifications/roots/list_changed,
notifications/elicitation/complete, the core tasks methods that the
io.modelcontextprotocol/tasks extension does not keep (tasks/result, tasks/list,
notifications/tasks/status), and every server-to-client request: servers ask
for input through input_required results instead, so clients send no
responses and no notification but notifications/cancelled. A 2026-07-28 peer
rejects these messages or never expects them.

A request is judged by its own revision (its _meta, else its
MCP-Protocol-Version header, else the session's, which the message names); a server's message by the
request it answers or, in a session without a handshake, by the revision its
accepted requests declared. A dual-era client's fallback initialize (no
2026-07-28 _meta) is legacy traffic and is not reported.`,
		Fix: `Use the 2026-07-28 replacements: server/discover and per-request _meta for the
handshake, _meta io.modelcontextprotocol/logLevel for logging/setLevel,
subscriptions/listen for subscriptions and list-changed notifications,
input_required results for server requests, the tasks extension for tasks;
drop ping.`,
		Bad:   `MCP-Protocol-Version: 2026-07-28  {"jsonrpc":"2.0","id":17,"method":"ping"}`,
		Good:  `(no ping: a 2026-07-28 client sees the server alive in the answers to its requests)`,
		Since: "0.2.0",
	},
	Revisions: Revisions{Since: session.ModernRevision},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if !f.IsProtocol() || f.Truncated {
			return
		}
		m := &f.Msg
		switch {
		case m.Kind == session.Request && f.Direction == session.ServerToClient:
			p.Report(f, "s2c "+m.Method, "server sent a request (%s), but 2026-07-28 servers send no requests: they ask for input with an input_required result", m.Method)
		case m.Kind == session.Response && f.Direction == session.ClientToServer:
			what := "a response"
			if f.Call != nil {
				what = "a response to the server's " + f.Call.Method
			}
			p.Report(f, "c2s response", "client sent %s, but 2026-07-28 clients send no responses: they answer input_required results by retrying with inputResponses", what)
		case m.Kind == session.Request && f.Direction == session.ClientToServer:
			if m.Method == "initialize" && !declaresModern(f) {
				return // a dual-era client's fallback handshake is legacy traffic
			}
			if instead, removed := removedRequests[m.Method]; removed {
				p.Explains(p.Report(f, m.Method, "%s was removed in 2026-07-28%s: %s", m.Method, revisionSource(f.Call), instead), m.Method+", removed in 2026-07-28")
			}
		case m.Kind == session.Notification:
			removed := removedServerNotifications
			if f.Direction == session.ClientToServer {
				removed = removedClientNotifications
			}
			if instead, ok := removed[m.Method]; ok {
				p.Report(f, f.Direction.String()+" "+m.Method, "%s sent %s, which 2026-07-28 removed: %s", f.Direction.Sender(), m.Method, instead)
			}
		}
	}),
}

// modernRemoves reports whether modern-removed reports f when f is judged
// under 2026-07-28: what 2026-07-28 removed is that rule's, not also a
// deprecation (one finding per fact).
func modernRemoves(f *session.Frame) bool {
	m := &f.Msg
	switch {
	case m.Kind == session.Request && f.Direction == session.ServerToClient:
		return true
	case m.Kind == session.Request && f.Direction == session.ClientToServer:
		_, removed := removedRequests[m.Method]
		return removed && (m.Method != "initialize" || declaresModern(f))
	case m.Kind == session.Notification && f.Direction == session.ClientToServer:
		_, removed := removedClientNotifications[m.Method]
		return removed
	case m.Kind == session.Notification:
		_, removed := removedServerNotifications[m.Method]
		return removed
	}
	return false
}

// declaresModern reports a request whose own _meta names 2026-07-28 or
// later.
func declaresModern(f *session.Frame) bool {
	v := f.View().Meta().ProtocolVersion
	return v != "" && session.NormalizeRevision(v) >= session.ModernRevision
}

const (
	noHandshake = "there is no handshake; use server/discover and the per-request _meta"
	tasksMoved  = "core tasks moved to the io.modelcontextprotocol/tasks extension (tasks/get, tasks/update, tasks/cancel, notifications/tasks)"
)

// removedRequests are the client requests 2026-07-28 removed, with what
// replaces each.
var removedRequests = map[string]string{
	"initialize":            noHandshake,
	"ping":                  "a client sees the server alive in the answers to its requests",
	"logging/setLevel":      "set io.modelcontextprotocol/logLevel in the _meta of the requests to log",
	"resources/subscribe":   "open a subscriptions/listen stream with resourceSubscriptions",
	"resources/unsubscribe": "close the subscriptions/listen stream",
	"tasks/result":          tasksMoved,
	"tasks/list":            tasksMoved,
}

var removedClientNotifications = map[string]string{
	"notifications/initialized":        noHandshake,
	"notifications/roots/list_changed": "servers ask for roots in input_required results, so there is no list to change",
	"notifications/progress":           "a client sends no notification but notifications/cancelled",
}

var removedServerNotifications = map[string]string{
	"notifications/elicitation/complete": "URL elicitation no longer has an elicitationId to complete",
	"notifications/tasks/status":         tasksMoved,
}
