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

// requestRevision is the revision a request declares for itself: its _meta
// protocol version, else its MCP-Protocol-Version header.
func (f *Frame) requestRevision() string {
	if r := f.Msg.req; r != nil && r.Meta.ProtocolVersion != "" {
		return NormalizeRevision(r.Meta.ProtocolVersion)
	}
	return NormalizeRevision(f.MCPProtocolVersion)
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
