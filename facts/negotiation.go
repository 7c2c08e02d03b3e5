package facts

import "github.com/mcpcheck/mcpcheck/session"

// Negotiation follows how a session settled its protocol revision: the
// legacy initialize handshake, the 2026-07-28 per-request _meta, and a
// dual-era client's server/discover probe.
var Negotiation = define("negotiation", nil, func(*session.Session, Source) *NegotiationTracker {
	return &NegotiationTracker{}
})

// NegotiationTracker is one session's negotiation.
type NegotiationTracker struct {
	Offered        string // protocolVersion the first initialize request offered
	Negotiated     string // protocolVersion of the initialize result ("" when none)
	InitializeLine int    // line of the first initialize request; 0 when none
	Initializes    int    // initialize requests sent by the client
	Initialized    bool   // notifications/initialized was sent

	ProbeSent     bool     // the client sent server/discover
	ProbeRejected bool     // ... and fell back to initialize after a rejection
	Discovered    bool     // server/discover was answered with a result
	Supported     []string // supportedVersions of that result

	Declared string // the latest revision a client request declared in _meta or a header
}

// Modern reports a session that speaks 2026-07-28 or later: requests that
// declare it, or a successful discovery, and no handshake.
func (n *NegotiationTracker) Modern() bool {
	return n.Negotiated == "" && (n.Declared >= session.ModernRevision || n.Discovered)
}

func (n *NegotiationTracker) Frame(f *session.Frame) {
	m := &f.Msg
	switch {
	case m.Kind == session.Request && f.Direction == session.ClientToServer:
		switch m.Method {
		case "initialize":
			n.Initializes++
			if n.InitializeLine == 0 {
				n.InitializeLine = f.Line
				if p, ok := f.View().InitializeParams(); ok {
					n.Offered = p.ProtocolVersion
				}
			}
		case "server/discover":
			n.ProbeSent = true
		}
		if v := f.View().Meta().ProtocolVersion; v != "" {
			n.Declared = session.NormalizeRevision(v)
		} else if f.MCPProtocolVersion != "" {
			n.Declared = session.NormalizeRevision(f.MCPProtocolVersion)
		}
	case m.Kind == session.Notification && m.Method == "notifications/initialized" && f.Direction == session.ClientToServer:
		n.Initialized = true
	case f.Pairing == session.ProbeFallback:
		n.ProbeRejected = true
	case m.Kind == session.Response && f.Call != nil && f.Pairing == session.Answered && m.Error == nil:
		switch f.Call.Method {
		case "initialize":
			if r, ok := f.View().InitializeResult(); ok && r.ProtocolVersion != "" && n.Negotiated == "" {
				n.Negotiated = session.NormalizeRevision(r.ProtocolVersion)
			}
		case "server/discover":
			if r, ok := f.View().DiscoverResult(); ok {
				n.Discovered = true
				n.Supported = append(n.Supported[:0], r.SupportedVersions...)
			}
		}
	}
}
