package checks

import (
	"slices"

	"github.com/mcpcheck/mcpcheck/session"
)

// Helpers the protocol-conformance rules share (lifecycle, capability,
// progress, cancel, deprecated-feature and the catalogue rules beside them).

// mcpRevisions are the protocol revisions the specification defines
// (`draft` is an alias of the latest, see session.NormalizeRevision).
var mcpRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", session.ModernRevision}

// knownRevision reports a protocol version string some revision defines.
func knownRevision(v string) bool {
	return slices.Contains(mcpRevisions, session.NormalizeRevision(v))
}

// underRevision names, for messages, the revision a frame was judged under.
func underRevision(rev string) string {
	if rev == "" {
		return "no recorded revision"
	}
	return "revision " + rev
}

// modernFrame reports a frame judged as 2026-07-28 or later.
func modernFrame(rev string) bool { return rev >= session.ModernRevision }

// lossWatch follows whether the capture of a session may have lost a frame:
// a seq gap, a frame the recorder truncated, an envelope that did not parse.
// A rule that would report something as missing stays silent once it has,
// since the missing thing may be in what was lost.
type lossWatch struct{ lost bool }

func (w *lossWatch) see(f *session.Frame) {
	if f.GapBefore > 0 || f.Truncated {
		w.lost = true
	}
}

func (w *lossWatch) damage() { w.lost = true }

// maxRepeatKeys bounds the distinct problems a rule folds repeats of.
const maxRepeatKeys = 1024

// repeats folds the recurrences of one problem into its first finding: a
// server that sends a thousand log notifications without the capability has
// one fault, reported once where it starts and counted a thousand times.
type repeats struct {
	first map[string]*Finding
}

// report calls emit for the first occurrence of key and counts the later
// ones on its finding (Finding.Also).
func (r *repeats) report(key string, emit func() *Finding) {
	if fd := r.first[key]; fd != nil {
		fd.Also++
		return
	}
	fd := emit()
	if r.first == nil {
		r.first = map[string]*Finding{}
	}
	if len(r.first) < maxRepeatKeys {
		r.first[key] = fd
		fd.pin() // its count may still grow
	}
}

// requestMethods are the methods every revision defines as requests (they
// carry an id and get an answer); notifications are those under
// "notifications/".
var requestMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true,
	"prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/read": true, "resources/templates/list": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"logging/setLevel": true, "completion/complete": true,
	"sampling/createMessage": true, "roots/list": true, "elicitation/create": true,
	"tasks/get": true, "tasks/result": true, "tasks/list": true, "tasks/cancel": true, "tasks/update": true,
	"subscriptions/listen": true,
}

// sent names a request or notification for messages: who sent which method.
func sent(f *session.Frame) string {
	return f.Direction.Sender() + " sent " + f.Msg.Method
}
