package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleDuplicateResponse = &Rule{
	ID:       "duplicate-response",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A second answer for the same request",
		Why: `Each request gets exactly one response. A second answer means the peer ran the
request twice or replays its output; a client may act on both.`,
		Fix:   `make sure each request's handler answers once, on one path.`,
		Bad:   `{"id":4,"result":{}} and later again {"id":4,"result":{}}`,
		Good:  `one answer per id`,
		Since: "0.1.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if f.Pairing != session.Duplicate || !judgeable(f) {
			return
		}
		c := f.Call
		p.Report(f, callSubject(c), "%s answered %s again (answer %d)", f.Direction.Sender(), c.Label(), c.Answers).
			Relate(c.File, c.Line, "request sent here").
			Relate(c.File, c.EndLine, "first answer here")
	}),
}
