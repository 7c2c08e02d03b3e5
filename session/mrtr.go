package session

// Multi round-trip requests (2026-07-28): a result of input_required parks
// its call; the retry that carries its requestState or inputResponses back
// joins it into one operation, even when the recorder wrote the retry first.

import (
	"slices"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/mcp"
)

// holdRetry keeps back a retry that no parked operation explains: the
// recorder may have written it before the input_required result that
// issued its state. It is delivered when that result links it, when it is
// answered or cancelled, or when the reorder window closes.
func (s *Session) holdRetry(f *Frame) {
	f = f.detach()
	f.Call.held = true
	s.shared.heldBytes += len(f.Raw)
	s.retries = append(s.retries, orphan{f: f, expires: s.Frames + ReorderWindow})
	s.shed()
}

// releaseRetry delivers c's request now if it is held: something is about
// to refer to it.
func (s *Session) releaseRetry(c *Call) {
	if !c.held {
		return
	}
	for i, h := range s.retries {
		if h.f.Call == c {
			s.retries = slices.Delete(s.retries, i, i+1)
			s.unhold(h.f)
			s.emit(h.f)
			return
		}
	}
}

func (s *Session) unhold(f *Frame) {
	f.Call.held = false
	s.shared.heldBytes -= len(f.Raw)
}

// expireRetries delivers, unlinked, the retries whose window has passed
// (all of them at the end of the session).
func (s *Session) expireRetries(all bool) {
	n := 0
	for n < len(s.retries) && (all || s.retries[n].expires < s.Frames) {
		s.unhold(s.retries[n].f)
		s.emit(s.retries[n].f)
		n++
	}
	if n > 0 {
		s.retries = slices.Delete(s.retries, 0, n)
	}
}

// adoptRetry finds for op, which a result just parked, a held retry that
// carries its requestState back, otherwise the one held retry of the same
// method, name and input keys, as link does in capture order; out joins
// them once the result is delivered.
func (s *Session) adoptRetry(op *Operation) bool {
	at := -1
	if op.requestState != nil {
		for i, h := range s.retries {
			if rs := h.f.Msg.req.RequestState; rs != nil && *rs == *op.requestState {
				at = i
				break
			}
		}
	}
	if at < 0 {
		for i, h := range s.retries {
			c := h.f.Call
			if c.Method == op.Last.Method && c.Name == op.Last.Name && sortedKeys(h.f.Msg.req.InputResponses) == op.inputKeys {
				if at >= 0 {
					return false // ambiguous: leave both unlinked
				}
				at = i
			}
		}
	}
	if at < 0 {
		return false
	}
	f := s.retries[at].f
	s.retries = slices.Delete(s.retries, at, at+1)
	s.unhold(f)
	s.after = append(s.after, pendingLink{op, f})
	return true
}

// link joins a retry that carries requestState or inputResponses to the
// parked operation it continues: the exact requestState first, otherwise the
// one parked operation of the same method, name and input keys. It reports
// a retry that no parked operation explains at all.
func (s *Session) link(c *Call, r *mcp.ParamFields) (unexplained bool) {
	if r == nil || (r.RequestState == nil && r.InputResponses == nil) {
		return false
	}
	at := -1
	if r.RequestState != nil {
		for i, op := range s.parked {
			if op.requestState != nil && *op.requestState == *r.RequestState {
				at = i
				break
			}
		}
	}
	if at < 0 {
		keys := sortedKeys(r.InputResponses)
		for i, op := range s.parked {
			if op.Last.Method == c.Method && op.Last.Name == c.Name && op.inputKeys == keys {
				if at >= 0 {
					return false // ambiguous: leave the retry unlinked
				}
				at = i
			}
		}
	}
	if at < 0 {
		return true
	}
	op := s.parked[at]
	s.parked = slices.Delete(s.parked, at, at+1)
	s.join(op, c)
	return false
}

// join makes c the next round trip of op, whose last hop it answers.
func (s *Session) join(op *Operation, c *Call) {
	op.Parked = false
	op.Requests++
	op.Last.State = Completed
	op.Last = c
	c.Op = op
}

func (s *Session) park(c *Call, r *mcp.ResultFields) {
	op := c.Op
	if op == nil {
		op = &Operation{First: c, Last: c, Start: c.Start, Requests: 1}
		if !c.Start.IsZero() && !c.End.IsZero() {
			op.ServerTime = c.End.Sub(c.Start)
		}
		c.Op = op
	}
	op.Parked = true
	op.requestState = r.RequestState
	op.inputKeys = sortedKeys(r.InputRequests)
	c.State = Parked
	if len(s.retries) > 0 && s.adoptRetry(op) {
		return // its retry was recorded first: joined once this result is delivered
	}
	s.parked = append(s.parked, op)
	if len(s.parked) > MaxParkedOperations {
		s.parked[0].Parked = false
		s.parked = s.parked[1:]
		s.RetiredOperations++
	}
}

func sortedKeys[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, "\x00")
}
