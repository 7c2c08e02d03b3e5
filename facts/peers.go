package facts

import (
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

// Peers follows what each side said about itself: capabilities and
// implementation info, from the initialize handshake, a server/discover
// result, or (2026-07-28) the client capabilities each request carries in
// _meta.
var Peers = define("peers", nil, func(*session.Session, Source) *PeersTracker {
	return &PeersTracker{}
})

// PeersTracker is one session's view of its client and server. Its
// capabilities are copies: they outlive the frames they came from.
type PeersTracker struct {
	Client, Server         mcp.Implementation
	ClientCaps, ServerCaps mcp.Capabilities // Known() is false until a frame showed them
}

func (p *PeersTracker) Frame(f *session.Frame) {
	m := &f.Msg
	switch {
	case m.Kind == session.Request && f.Direction == session.ClientToServer:
		v := f.View()
		if ip, ok := v.InitializeParams(); ok {
			p.Client = ip.ClientInfo
			if ip.Capabilities.Known() {
				p.ClientCaps = ip.Capabilities.Clone()
			}
			return
		}
		if c := v.Meta().ClientCapabilities; c.Known() {
			p.ClientCaps = c.Clone() // each 2026-07-28 request states them anew
		}
	case m.Kind == session.Response && f.Call != nil && f.Pairing == session.Answered && m.Error == nil:
		v := f.View()
		if r, ok := v.InitializeResult(); ok {
			p.Server = r.ServerInfo
			if r.Capabilities.Known() {
				p.ServerCaps = r.Capabilities.Clone()
			}
		} else if r, ok := v.DiscoverResult(); ok {
			p.Server = r.ServerInfo
			if r.Capabilities.Known() {
				p.ServerCaps = r.Capabilities.Clone()
			}
		}
	}
}
