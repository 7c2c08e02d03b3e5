package checks

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleSubscriptionStream = &Rule{
	ID:       "subscription-stream",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A list-changed or resource-updated notification that breaks the subscriptions/listen rules",
		Why: `2026-07-28 delivers notifications/tools/list_changed, prompts/list_changed,
resources/list_changed and resources/updated only on a subscriptions/listen
stream: the client opts in to each type (and to each resource URI) in the
request's notifications filter, the server first sends
notifications/subscriptions/acknowledged, and every notification on the stream
carries _meta["io.modelcontextprotocol/subscriptionId"], the id of the listen
request. A client drops a notification it cannot attribute to a subscription,
one that arrives before the acknowledgment, or one of a type it did not ask
for.

A notification is judged by the session's revision (a session without a
handshake takes the revision its accepted requests declared). The order check
is silent for a subscription whose frames the capture may have lost (a seq
gap, a damaged or truncated frame before the acknowledgment), and nothing is
judged against a listen request the capture does not show. A resources/updated
notification may name a sub-resource of a subscribed URI.`,
		Fix: `Send change notifications only on listen streams that asked for them, after
the acknowledgment, each with the subscription id in _meta.`,
		Bad:   `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}   (2026-07-28, no subscriptionId)`,
		Good:  `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`,
		Since: "0.2.0",
	},
	Revisions: Revisions{Since: session.ModernRevision},
	New:       func() Checker { return &subscriptionStream{listens: map[string]*listenStream{}} },
}

// changeNotifications are the notifications only a listen stream carries,
// with the filter member that opts in to each.
var changeNotifications = map[string]string{
	"notifications/tools/list_changed":     "toolsListChanged",
	"notifications/prompts/list_changed":   "promptsListChanged",
	"notifications/resources/list_changed": "resourcesListChanged",
	"notifications/resources/updated":      "resourceSubscriptions",
}

type subscriptionStream struct {
	Base
	listens map[string]*listenStream // open subscriptions by the id token of their request
}

type listenStream struct {
	filter  *mcp.SubscriptionFilter // nil when the request had none
	line    int
	acked   bool
	unknown bool // frames may have been lost before the acknowledgment
}

func (s *subscriptionStream) Frame(p *Pass, f *session.Frame) {
	if f.GapBefore > 0 || (f.Truncated && f.Direction == session.ServerToClient) {
		s.lost()
	}
	m := &f.Msg
	switch {
	case clientRequest(f) && m.Method == "subscriptions/listen":
		if len(s.listens) < maxListens {
			s.listens[m.ID.String()] = &listenStream{filter: mcp.ListenFilter.Of(f.View()), line: f.Line}
		}
	case m.Kind == session.Response && f.Call != nil && f.Call.Method == "subscriptions/listen":
		delete(s.listens, f.Call.ID.String()) // the server closed the stream
	case m.Kind == session.Notification && m.Method == "notifications/cancelled":
		if f.Pairing == session.Cancelling && f.Call != nil {
			delete(s.listens, f.Call.ID.String())
		} else if r := f.View().ParamFields(); r != nil && len(r.RequestID) > 0 && f.Direction == session.ServerToClient {
			delete(s.listens, session.MakeID(r.RequestID).String()) // the server tore the stream down
		}
	case m.Kind == session.Notification && f.Direction == session.ServerToClient && !f.Truncated:
		s.notification(p, f)
	}
}

func (s *subscriptionStream) Damage(*Pass, session.Damage) { s.lost() }

// lost marks the subscriptions not yet acknowledged: their acknowledgment
// may be among the frames the capture lost.
func (s *subscriptionStream) lost() {
	for _, l := range s.listens {
		if !l.acked {
			l.unknown = true
		}
	}
}

func (s *subscriptionStream) notification(p *Pass, f *session.Frame) {
	method := f.Msg.Method
	opt, change := changeNotifications[method]
	if !change && method != "notifications/subscriptions/acknowledged" {
		return
	}
	id := mcp.SubscriptionID(f.View())
	if !change {
		if l := s.listens[session.MakeID(id).String()]; id != nil && l != nil {
			l.acked = true
		}
		return
	}
	if f.Redacted {
		return
	}
	if id == nil {
		p.Report(f, method, "server sent %s without _meta io.modelcontextprotocol/subscriptionId: 2026-07-28 delivers it only on a subscriptions/listen stream, tagged with the subscription's id", method)
		return
	}
	l := s.listens[session.MakeID(id).String()]
	if l == nil {
		return // a subscription the capture does not show
	}
	if !l.acked && !l.unknown {
		p.Report(f, method, "server sent %s on subscription %s before notifications/subscriptions/acknowledged", method, session.MakeID(id)).
			Relate(f.File, l.line, "subscription requested here")
		return
	}
	if l.filter == nil {
		return
	}
	asked := false
	switch opt {
	case "toolsListChanged":
		asked = l.filter.ToolsListChanged
	case "promptsListChanged":
		asked = l.filter.PromptsListChanged
	case "resourcesListChanged":
		asked = l.filter.ResourcesListChanged
	}
	switch opt {
	case "toolsListChanged", "promptsListChanged", "resourcesListChanged":
		if !asked {
			p.Report(f, method, "server sent %s on a subscription whose request did not ask for it (%s)", method, opt).
				Relate(f.File, l.line, "subscription requested here")
		}
	case "resourceSubscriptions":
		uri := ""
		if r := f.View().ParamFields(); r != nil {
			uri = r.URI
		}
		if uri != "" && !subscribedTo(l.filter.ResourceSubscriptions, uri) {
			p.Report(f, method+" "+uri, "server sent %s for %s, which the subscription's resourceSubscriptions do not name", method, quoteName(uri)).
				Relate(f.File, l.line, "subscription requested here")
		}
	}
}

// subscribedTo reports a URI the client subscribed to, or a sub-resource
// of one.
func subscribedTo(subscribed []string, uri string) bool {
	for _, s := range subscribed {
		if uri == s || strings.HasPrefix(uri, s) {
			return true
		}
	}
	return false
}
