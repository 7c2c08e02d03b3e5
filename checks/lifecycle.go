package checks

import (
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
)

var ruleLifecycle = &Rule{
	ID:        "lifecycle",
	Signal:    SignalWarn,
	Severity:  SeverityError,
	Revisions: Revisions{Until: "2025-11-25"},
	Doc: Doc{
		Summary: "The initialize handshake broken: requests before it or without initialized, a second initialize, initialize cancelled, an unknown protocol version",
		Why: `Until 2026-07-28 a session starts with the initialize handshake, and the
initialization phase must be the first interaction: the client sends initialize,
the server answers with its protocol version and capabilities, and the client
sends notifications/initialized before its first normal request (ping excepted).
A server that sees requests before the handshake cannot know the protocol
version or capabilities they assume, and SDK servers reject them.

Reported: a client request (other than ping, or a dual-era client's
server/discover probe) recorded before the first initialize of a stdio session;
requests sent while initialize was in flight when it then failed or was never
answered; a request after a successful initialize with no
notifications/initialized before it; initialize sent again on a stdio session
that was already initialized; notifications/cancelled for initialize, which
must never be cancelled; a protocol version (in initialize, its result, _meta or
the MCP-Protocol-Version header) that no revision defines.

A recorder writes the two directions independently, so a client's first
requests may be recorded just before the initialize result or the initialized
notification they followed: a request that an initialize success or an
initialized notification follows within the reorder window is not reported.
Over HTTP a client may start a new session with initialize at any time, so
requests before it and a second initialize are judged on stdio only. The rule
is silent when the capture lost frames that could hold what is missing.`,
		Fix: `Send initialize first and wait for its result, then send
notifications/initialized, then the session's requests; never cancel initialize;
offer and answer only protocol versions the specification defines.`,
		Bad:   `{"jsonrpc":"2.0","id":1,"method":"tools/list"} as the first request of a stdio session, before initialize`,
		Good:  `initialize, its result, {"jsonrpc":"2.0","method":"notifications/initialized"}, then {"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		Since: "0.2.0",
	},
	New: func() Checker { return &lifecycle{suspect: newWindow[earlyRequest](1)} },
}

// maxEarlyRequests bounds the requests held while the handshake is unsettled.
const maxEarlyRequests = 16

type lifecycle struct {
	Base
	loss lossWatch

	sawInit    bool            // a client initialize was recorded
	beforeInit []earlyRequest  // requests recorded before any initialize (stdio)
	init       *session.Call   // the initialize in flight
	initLine   int             // where the last initialize was sent
	initOK     bool            // an initialize succeeded
	failed     bool            // the last initialize failed, and none was sent since
	early      []earlyRequest  // requests sent while init was in flight
	notified   bool            // notifications/initialized was recorded
	judgedNote bool            // the initialized notification was judged for this session
	versions   map[string]bool // unknown versions already reported

	// suspect is a request after success that no initialized preceded
	// (yet): one at a time, until the reorder window shows none follows
	suspect window[earlyRequest]
}

// earlyRequest is a request held until the handshake shows whether it was
// early; a copy of what a finding needs.
type earlyRequest struct {
	method string
	at     Location
	seq    int64
}

func heldRequest(f *session.Frame) earlyRequest {
	return earlyRequest{method: f.Msg.Method, at: Location{File: f.File, Line: f.Line}, seq: f.Seq}
}

func (l *lifecycle) Damage(*Pass, session.Damage) { l.loss.damage() }

func (l *lifecycle) Frame(p *Pass, f *session.Frame) {
	l.loss.see(f)
	l.suspect.expire(p, l.judgeSuspect)
	if f.Call != nil && f.Call == l.init && (f.Pairing == session.Answered || f.Pairing == session.Late) {
		l.settled(p, f) // also an HTTP error without a JSON-RPC body
		return
	}
	if !judgeable(f) {
		return
	}
	m := &f.Msg
	if f.Direction == session.ClientToServer && (m.Kind == session.Request || m.Kind == session.Notification) {
		l.versionsOf(p, f)
	}
	// a notification sent with an id is still meant as one (notification-id
	// reports the id)
	notification := m.Kind == session.Notification || (m.Kind == session.Request && strings.HasPrefix(m.Method, "notifications/"))
	switch {
	case !notification && m.Kind == session.Request && f.Direction == session.ClientToServer:
		switch m.Method {
		case "initialize":
			l.initialize(p, f)
		case "ping", "server/discover":
			// ping is allowed at any time; server/discover is a dual-era
			// client's version probe, which comes before its fallback
		default:
			l.request(p, f)
		}
	case notification && f.Direction == session.ClientToServer:
		switch {
		case m.Method == "notifications/initialized":
			l.notified = true
			l.suspect.dropAll()
		case m.Method == "notifications/cancelled" && f.Pairing == session.Cancelling && f.Call.Method == "initialize" && f.Call.Dir == session.ClientToServer:
			p.Report(f, "notifications/cancelled initialize", "client cancelled initialize, which must never be cancelled").
				Relate(f.Call.File, f.Call.Line, "initialize sent here")
		}
	}
}

func (l *lifecycle) initialize(p *Pass, f *session.Frame) {
	stdio := !httpSession(p.Session, f)
	if !l.sawInit {
		l.sawInit = true
		if l.loss.lost {
			l.beforeInit = nil // an earlier initialize may be what was lost
		}
		for _, r := range l.beforeInit {
			p.ReportAt(r.at, r.seq, r.method+" before initialize",
				"client sent %s before initialize; the initialize handshake must be the first interaction", r.method).
				Relate(f.File, f.Line, "initialize sent here")
		}
		l.beforeInit = nil
	} else if l.initOK && stdio {
		p.Report(f, "initialize again", "client sent initialize again on a session that was already initialized").
			Relate(f.File, l.initLine, "the session was initialized here")
	}
	l.init, l.initLine, l.failed = f.Call, f.Line, false // a null-id initialize has no call: it is never answered
}

func (l *lifecycle) request(p *Pass, f *session.Frame) {
	switch {
	case !l.sawInit:
		if !httpSession(p.Session, f) && len(l.beforeInit) < maxEarlyRequests {
			l.beforeInit = append(l.beforeInit, heldRequest(f))
		}
	case l.initOK:
		if !l.notified && l.suspect.len() == 0 && !l.judgedNote {
			l.suspect.hold(p, heldRequest(f), l.judgeSuspect)
		}
	case l.init != nil:
		if len(l.early) < maxEarlyRequests {
			l.early = append(l.early, heldRequest(f))
		}
	case l.failed && !l.loss.lost: // (a lost frame may be the answer that initialized the session)
		p.Report(f, f.Msg.Method+" before initialize", "client sent %s although initialize failed and was not sent again: the session is not initialized", f.Msg.Method).
			Relate(f.File, l.initLine, "failed initialize sent here")
	}
}

// settled judges the handshake when initialize is answered: requests sent
// while it was in flight were early if it failed. After a success they are
// not reported: the recorder may have written them before the result.
func (l *lifecycle) settled(p *Pass, f *session.Frame) {
	m := &f.Msg
	switch {
	case m.Kind == session.Response && m.Error == nil && m.Res != nil && !f.Truncated:
		l.initOK = true
		if r, isInit := f.View().InitializeResult(); isInit && r.ProtocolVersion != "" && !f.Redacted {
			l.unknownVersion(p, f, "the initialize result names protocol version", r.ProtocolVersion)
		}
	case f.Truncated || l.loss.lost:
		// what the answer said, or what came before it, is not known
	default:
		l.failed = true
		for _, r := range l.early {
			p.ReportAt(r.at, r.seq, r.method+" before initialize",
				"client sent %s while initialize was in flight, and initialize then failed: the session was never initialized", r.method).
				Relate(f.File, f.Line, "initialize failed here")
		}
	}
	l.early, l.init = nil, nil
}

func (l *lifecycle) judgeSuspect(p *Pass, r earlyRequest) {
	l.judgedNote = true
	if l.notified || l.loss.lost {
		return
	}
	p.ReportAt(r.at, r.seq, "notifications/initialized missing",
		"client sent %s after initialize succeeded without sending notifications/initialized first", r.method).
		Relate(r.at.File, l.initLine, "initialize sent here")
}

func (l *lifecycle) End(p *Pass) {
	l.suspect.flush(p, l.judgeSuspect)
	if l.init == nil || l.loss.lost {
		return
	}
	for _, r := range l.early {
		p.ReportAt(r.at, r.seq, r.method+" before initialize",
			"client sent %s while initialize was in flight, and initialize was never answered: the session was never initialized", r.method).
			Relate(r.at.File, l.initLine, "initialize sent here")
	}
}

// versionsOf judges the protocol versions a client frame names: the one
// initialize offers, its _meta version and its MCP-Protocol-Version header.
func (l *lifecycle) versionsOf(p *Pass, f *session.Frame) {
	if f.Redacted {
		return // the recorder may have rewritten a value
	}
	if f.Msg.Method == "initialize" {
		if ip, ok := f.View().InitializeParams(); ok && ip.ProtocolVersion != "" {
			l.unknownVersion(p, f, "initialize offers protocol version", ip.ProtocolVersion)
		}
	}
	if v := f.View().Meta().ProtocolVersion; v != "" {
		l.unknownVersion(p, f, "the _meta of "+f.Msg.Method+" names protocol version", v)
	}
	if v := f.MCPProtocolVersion; v != "" {
		l.unknownVersion(p, f, "the MCP-Protocol-Version header of "+f.Msg.Method+" names protocol version", v)
	}
}

// unknownVersion reports version once per session when no revision defines
// it; where says where it was named.
func (l *lifecycle) unknownVersion(p *Pass, f *session.Frame, where, version string) {
	if knownRevision(version) || l.versions[version] {
		return
	}
	if l.versions == nil {
		l.versions = map[string]bool{}
	}
	if len(l.versions) < maxRepeatKeys {
		l.versions[version] = true
	}
	p.Report(f, "protocol version "+version, "%s %s, which no MCP revision defines", where, quoteName(version))
}

// mcpRevisions are the protocol revisions the specification defines
// (`draft` is an alias of the latest, see session.NormalizeRevision).
var mcpRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", session.ModernRevision}

// knownRevision reports a protocol version string some revision defines.
func knownRevision(v string) bool {
	return slices.Contains(mcpRevisions, session.NormalizeRevision(v))
}
