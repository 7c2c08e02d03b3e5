package session

// Revisions and the dual-era version probe: what a session and each
// request speak, and a rejected server/discover that the client falls back
// from with initialize, whichever of the two the recorder wrote first.

import "slices"

// NormalizeRevision maps `draft` to the revision it currently aliases.
func NormalizeRevision(v string) string {
	if v == "draft" {
		return ModernRevision
	}
	return v
}

// holdProbe decides an answer that turned down a server/discover probe: a
// fallback when the client's initialize was already recorded after the
// probe (the recorder wrote it before this answer), otherwise held until
// the client's next request shows whether it fell back.
func (s *Session) holdProbe(f *Frame) bool {
	c := f.Call
	if !c.probe || !rejectsProbe(f) {
		return false
	}
	if s.initCall != nil && s.initCall.Line > c.Line {
		f.Pairing = ProbeFallback
		return false
	}
	if len(s.probes) == maxHeldProbes {
		s.emit(s.probes[0]) // decided early, as an ordinary answer
		s.probes = slices.Delete(s.probes, 0, 1)
	}
	s.probes = append(s.probes, f.detach())
	return true
}

// RevisionSource says where a request's revision was read, so that a
// finding judged by it can say so.
type RevisionSource uint8

const (
	RevisionUnknown     RevisionSource = iota
	RevisionFromMeta                   // the request's params._meta protocolVersion
	RevisionFromHeader                 // its MCP-Protocol-Version header
	RevisionFromSession                // the session's: negotiated by initialize, or learnt from an earlier accepted request
)

// requestRevision is the revision a request declares for itself: its _meta
// protocol version, else its MCP-Protocol-Version header.
func (f *Frame) requestRevision() string {
	v, _ := f.declaredRevision()
	return v
}

func (f *Frame) declaredRevision() (string, RevisionSource) {
	if r := f.Msg.req; r != nil && r.Meta.ProtocolVersion != "" {
		return NormalizeRevision(r.Meta.ProtocolVersion), RevisionFromMeta
	}
	if f.MCPProtocolVersion != "" {
		return NormalizeRevision(f.MCPProtocolVersion), RevisionFromHeader
	}
	return "", RevisionUnknown
}

// sessionRevision is the revision a request that declares none is judged
// by: the one initialize negotiated, else, in a session without a
// handshake, the one its accepted requests declared (a successful
// server/discover among them). A client's initialize is exempt: sent in a
// 2026-07-28 session it is a dual-era client's fallback, legacy traffic.
func (s *Session) sessionRevision(f *Frame) (string, *Call) {
	switch {
	case s.Revision != "":
		return s.Revision, s.initCall
	case s.initCall == nil && s.declared != "" && f.Direction == ClientToServer && f.Msg.Method != "initialize":
		return s.declared, s.declaredBy
	}
	return "", nil
}

// learnFromDiscover takes a handshake-less session's revision from a
// successful server/discover whose request declared none: the newest
// 2026-07-28-or-later revision the server lists.
func (s *Session) learnFromDiscover(f *Frame, c *Call) {
	if c.Method != "server/discover" || s.initCall != nil || s.declared != "" || c.Dir != ClientToServer {
		return
	}
	r, ok := f.View().DiscoverResult()
	if !ok {
		return
	}
	best := ""
	for _, v := range r.SupportedVersions {
		if v = NormalizeRevision(v); v >= ModernRevision && v > best && knownDate(v) {
			best = v
		}
	}
	if best != "" {
		s.declared, s.declaredBy = best, c
	}
}

// knownDate reports a revision spelt as a date (YYYY-MM-DD), the only form
// revisions take, so that a listed "latest" or "v2" orders nothing.
func knownDate(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i != 4 && i != 7 && (v[i] < '0' || v[i] > '9') {
			return false
		}
	}
	return true
}

// rejectsProbe reports the answers with which a legacy server turns down a
// server/discover probe.
func rejectsProbe(f *Frame) bool {
	if f.Status >= 400 && f.Status < 500 {
		return true
	}
	if e := f.Msg.Error; e != nil {
		return e.Code == -32601 || e.Code == -32602 || e.Code == -32022
	}
	return false
}

// releaseProbes emits held probe rejections: as negotiation when the
// client fell back to initialize, as ordinary error answers otherwise.
func (s *Session) releaseProbes(fellBack bool) {
	for i, f := range s.probes {
		if fellBack {
			f.Pairing = ProbeFallback
		}
		s.emit(f)
		s.probes[i] = nil
	}
	s.probes = s.probes[:0]
}
