package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleIDReuse = &Rule{
	ID:       "id-reuse",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A request id reused while the earlier request is still in flight",
		Why: `A sender must not reuse a request id while a request with that id is still
unanswered: the peer cannot tell which request an answer belongs to, and one of
the two callers gets the other's result.`,
		Fix:   `allocate ids from a counter that never repeats within a session.`,
		Bad:   `{"id":5,"method":"tools/call",…} then {"id":5,"method":"tools/list"} before id 5 is answered`,
		Good:  `{"id":5,"method":"tools/call",…} then {"id":6,"method":"tools/list"}`,
		Since: "0.1.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if f.Pairing != session.Reused || !judgeable(f) {
			return
		}
		old := f.Call.Superseded
		p.Report(f, callSubject(f.Call), "%s reused id %s while %s was still in flight", f.Direction.Sender(), f.Call.ID, old.Label()).
			Relate(old.File, old.Line, "earlier request with this id")
	}),
}
