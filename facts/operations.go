package facts

import (
	"github.com/mcpcheck/mcpcheck/session"
)

// Operations follows multi round-trip requests (2026-07-28): the state each
// input_required result issued, so that a rule can compare the retry that
// continues the operation with what it was given. Correlation links the
// requests (Call.Op); this fact keeps what the link does not.
var Operations = define("operations", nil, func(*session.Session, Source) *OperationsTracker {
	return &OperationsTracker{issued: map[*session.Operation]Issued{}}
})

// maxIssued bounds the operations remembered: correlation parks at most
// session.MaxParkedOperations at once, and retires older ones.
const maxIssued = 2 * session.MaxParkedOperations

// OperationsTracker is one session's multi round-trip operations.
type OperationsTracker struct {
	Started int // operations that asked for input at least once
	issued  map[*session.Operation]Issued
	order   []*session.Operation
}

// Issued is what the last input_required result of an operation asked for.
type Issued struct {
	RequestState    string // a copy; "" when none was issued
	HasRequestState bool
	InputRequests   []string // the keys of inputRequests, sorted
	Line            int      // where the result arrived
	Redacted        bool     // the recorder redacted the result's frame
}

// Issued returns what the operation's last input_required result issued.
func (t *OperationsTracker) Issued(op *session.Operation) (Issued, bool) {
	is, ok := t.issued[op]
	return is, ok
}

func (t *OperationsTracker) Frame(f *session.Frame) {
	c := f.Call
	if c == nil || c.Op == nil || f.Msg.Kind != session.Response {
		return
	}
	r := f.View().ResultFields()
	if r == nil {
		return
	}
	op := c.Op
	if rt, _ := r.ResultTypeString(); rt != "input_required" {
		if op.Last == c {
			t.forget(op) // the operation ended
		}
		return
	}
	if _, seen := t.issued[op]; !seen {
		t.Started++
		t.order = append(t.order, op)
		if len(t.order) > maxIssued {
			delete(t.issued, t.order[0])
			t.order = t.order[1:]
		}
	}
	is := Issued{Line: f.Line, InputRequests: sortedKeys(r.InputRequests), Redacted: f.Redacted}
	if r.RequestState != nil {
		is.RequestState, is.HasRequestState = *r.RequestState, true // a string: its own copy
	}
	t.issued[op] = is
}

func (t *OperationsTracker) forget(op *session.Operation) {
	if _, ok := t.issued[op]; !ok {
		return
	}
	delete(t.issued, op)
	for i, o := range t.order {
		if o == op {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
}
