package checks

import (
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleCapability = &Rule{
	ID:       "capability",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Request, session.Notification),
	Doc: Doc{
		Summary: "A feature used that the other side never advertised in its capabilities",
		Why: `Both sides may only use the capabilities that were negotiated. A client that
calls tools/*, prompts/*, resources/*, completion/complete or logging/setLevel
on a server that did not advertise tools, prompts, resources, completions or
logging gets -32601; a server that sends sampling/createMessage,
elicitation/create or roots/list to a client that did not advertise sampling,
elicitation or roots asks for something the client never offered.
resources/subscribe needs resources.subscribe; a list_changed notification
needs listChanged on its capability; notifications/message needs the server's
logging capability; sampling with tools needs sampling.tools and URL-mode
elicitation needs elicitation.url (an empty elicitation object means form mode
only).

Capabilities come from the initialize handshake, and under 2026-07-28 the
server's from its server/discover result (a 2026-07-28 server sends no
requests, and what it removed is modern-removed's). The rule judges only what
was sent after the capture showed the capabilities it needs: without a recorded
handshake or discovery it is silent.`,
		Fix: `Check the peer's capabilities before using a feature; a server declares
every capability it serves (tools, listChanged, logging, …) in its initialize
result.`,
		Bad:   `initialize result "capabilities":{"tools":{}}; then {"jsonrpc":"2.0","id":4,"method":"prompts/list"}`,
		Good:  `initialize result "capabilities":{"tools":{},"prompts":{}}; then {"jsonrpc":"2.0","id":4,"method":"prompts/list"}`,
		Since: "0.2.0",
	},
	Facts: []facts.Fact{facts.Peers, facts.Negotiation},
	New:   func() Checker { return &capability{} },
}

type capability struct {
	Base
	once repeats
}

func (c *capability) Frame(p *Pass, f *session.Frame) {
	m := &f.Msg
	if !judgeable(f) || f.Redacted || (m.Kind != session.Request && m.Kind != session.Notification) {
		return
	}
	peers := facts.Peers.Of(p)
	rev := f.Revision(p.Session)
	modern := modernFrame(rev) || (rev == "" && facts.Negotiation.Of(p).Modern())
	switch {
	case f.Direction == session.ClientToServer && m.Kind == session.Request:
		if peers.ServerCaps.Known() {
			c.clientRequest(p, f, peers.ServerCaps, rev)
		}
	case modern:
		// 2026-07-28 has no server requests, and notifications travel on
		// listen streams whose acknowledgment says what was granted
	case f.Direction == session.ServerToClient && m.Kind == session.Request:
		if peers.ClientCaps.Known() {
			c.serverRequest(p, f, peers.ClientCaps, rev)
		}
	case f.Direction == session.ServerToClient:
		if peers.ServerCaps.Known() {
			c.serverNotification(p, f, peers.ServerCaps)
		}
	case m.Method == "notifications/roots/list_changed":
		if peers.ClientCaps.Known() && !peers.ClientCaps.Flag("roots", "listChanged") {
			c.report(p, f, "client sent notifications/roots/list_changed, but its roots capability does not set listChanged")
		}
	}
}

// serverCapability is the server capability each client request needs.
var serverCapability = map[string]string{
	"tools/list": "tools", "tools/call": "tools",
	"prompts/list": "prompts", "prompts/get": "prompts",
	"resources/list": "resources", "resources/read": "resources", "resources/templates/list": "resources",
	"resources/subscribe": "resources", "resources/unsubscribe": "resources",
	"logging/setLevel":    "logging",
	"completion/complete": "completions",
}

func (c *capability) clientRequest(p *Pass, f *session.Frame, caps mcp.Capabilities, rev string) {
	method := f.Msg.Method
	need, ok := serverCapability[method]
	switch {
	case !ok:
		return
	case modernFrame(rev) && (method == "logging/setLevel" || method == "resources/subscribe" || method == "resources/unsubscribe"):
		return // removed by 2026-07-28: modern-removed reports them
	case need == "completions" && (rev == "" || rev < "2025-03-26"):
		return // 2024-11-05 had completion/complete but no capability for it
	}
	if !caps.Has(need) {
		c.report(p, f, "client sent "+method+", but the server did not advertise the "+need+" capability")
		return
	}
	if (method == "resources/subscribe" || method == "resources/unsubscribe") && !caps.Flag("resources", "subscribe") {
		c.report(p, f, "client sent "+method+", but the server's resources capability does not set subscribe")
	}
}

// clientCapability is the client capability each server request needs.
var clientCapability = map[string]string{
	"sampling/createMessage": "sampling",
	"elicitation/create":     "elicitation",
	"roots/list":             "roots",
}

func (c *capability) serverRequest(p *Pass, f *session.Frame, caps mcp.Capabilities, rev string) {
	method := f.Msg.Method
	need, ok := clientCapability[method]
	if !ok {
		return
	}
	if !caps.Has(need) {
		c.report(p, f, "server sent "+method+", but the client did not advertise the "+need+" capability")
		return
	}
	if rev < "2025-11-25" {
		return // sampling tools and elicitation modes came with 2025-11-25
	}
	capability := mcp.Member(caps.Raw, need)
	params := f.View().Params()
	switch method {
	case "sampling/createMessage":
		if (mcp.Member(params, "tools") != nil || mcp.Member(params, "toolChoice") != nil) && mcp.Member(capability, "tools") == nil {
			c.report(p, f, "server sent sampling/createMessage with tools, but the client's sampling capability does not include tools")
		}
	case "elicitation/create":
		mode, _ := jsonscan.String(mcp.Member(params, "mode"))
		url, form := mcp.Member(capability, "url") != nil, mcp.Member(capability, "form") != nil
		switch {
		case mode == "url" && !url:
			c.report(p, f, "server sent elicitation/create in url mode, but the client's elicitation capability does not include url")
		case (mode == "" || mode == "form") && url && !form:
			// an empty elicitation object means form mode; one that names
			// only url does not offer it
			c.report(p, f, "server sent elicitation/create in form mode, but the client's elicitation capability offers only url mode")
		}
	}
}

// listChangedCapability is the server capability each list_changed
// notification needs listChanged on.
var listChangedCapability = map[string]string{
	"notifications/tools/list_changed":     "tools",
	"notifications/prompts/list_changed":   "prompts",
	"notifications/resources/list_changed": "resources",
}

func (c *capability) serverNotification(p *Pass, f *session.Frame, caps mcp.Capabilities) {
	method := f.Msg.Method
	if name, ok := listChangedCapability[method]; ok {
		if !caps.Flag(name, "listChanged") {
			c.report(p, f, "server sent "+method+", but its "+name+" capability does not set listChanged")
		}
		return
	}
	if method == "notifications/message" && !caps.Has("logging") {
		c.report(p, f, "server sent notifications/message, but it did not advertise the logging capability")
	}
}

// report folds repeats of one problem into its first finding.
func (c *capability) report(p *Pass, f *session.Frame, msg string) {
	c.once.report(msg, func() *Finding { return p.Report(f, f.Msg.Method, "%s", msg) })
}
