package checks

import (
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleCompletionValues = &Rule{
	ID:       "completion-values",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Response),
	Doc: Doc{
		Summary: "A completion/complete result with more than 100 values",
		Why: `A completion result carries at most 100 values; a server with more returns the
best 100 and says so with hasMore (and total). Clients size their menus for
that bound, and 2026-07-28 makes it part of the schema.`,
		Fix:   `Return at most 100 values; set hasMore: true and total when there are more.`,
		Bad:   `{"jsonrpc":"2.0","id":6,"result":{"completion":{"values":["a1","a2",…,"a150"]}}}`,
		Good:  `{"jsonrpc":"2.0","id":6,"result":{"completion":{"values":["a1",…,"a100"],"total":150,"hasMore":true}}}`,
		Since: "0.2.0",
	},
	CountsJudged: true, // completion/complete results
	New: EachFrame(func(p *Pass, f *session.Frame) {
		m := &f.Msg
		c := f.Call
		if m.Kind != session.Response || c == nil || c.Method != "completion/complete" || f.View().ResultFields() == nil || !judgeable(f) ||
			(f.Pairing != session.Answered && f.Pairing != session.Late) {
			return
		}
		p.Judged()
		values := jsonscan.Elements(mcp.Member(mcp.Member(f.View().Result(), "completion"), "values"))
		if len(values) > 100 {
			p.Report(f, "completion/complete values", "%s answered completion/complete with %d values; at most 100 are allowed (hasMore says there are more)",
				f.Direction.Sender(), len(values)).
				Relate(c.File, c.Line, "request sent here")
		}
	}),
}
