package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleToolError = &Rule{
	ID:       "tool-error",
	Signal:   SignalError,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A tool reported failure with isError: true",
		Why: `A tools/call result with "isError": true is the tool telling the model that it
failed: a missing file, a rejected argument, an upstream outage. The protocol
exchange worked, but the tool call did not do its job. An isError answer to a
call the client had cancelled is the cancellation taking effect: late-result
reports it, not this rule.`,
		Fix: `Read the error text in the result's content; fix the arguments the model
sent, the tool's environment, or the tool.`,
		Bad:   `{"result":{"content":[{"type":"text","text":"ENOENT: no such file"}],"isError":true}}`,
		Good:  `{"result":{"content":[{"type":"text","text":"file contents"}]}}`,
		Since: "0.1.0",
	},
	CountsJudged: true, // tools/call results
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if f.Msg.Kind == session.Response && f.Call != nil && f.Call.Method == "tools/call" {
			p.Judged()
		}
		r := f.View().ResultFields()
		if r == nil || !r.IsError || f.Msg.Error != nil {
			return
		}
		if f.Call != nil && f.Call.Method == "tasks/result" {
			return // the task's failure is task-failed's
		}
		if f.Pairing == session.Late {
			return // an answer to a cancelled call is late-result's, whatever it says
		}
		text := firstText(r.Content)
		if f.Call == nil {
			p.Report(f, "unmatched isError result", "a result with isError: true for id %s, which no request used: %s", f.Msg.ID, text)
			return
		}
		what := f.Call.Label()
		if f.Call.Method == "tools/call" {
			what = "tool " + quoteName(f.Call.Name) + " (id " + f.Call.ID.String() + ")"
		}
		p.FollowsCause(f, p.Report(f, callSubject(f.Call), "%s reported an error: %s", what, text).
			Relate(f.Call.File, f.Call.Line, "request sent here"))
	}),
}
