package checks

import (
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

var rulePromptArguments = &Rule{
	ID:       "prompt-arguments",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Request),
	Doc: Doc{
		Summary: "A prompts/get argument whose value is not a string",
		Why: `Prompt arguments are templated into text: prompts/get carries them as a map of
names to strings in every revision. A number, a boolean, an object or null is
not a prompt argument; servers reject the request or render the value in a
form the prompt's author did not expect.`,
		Fix:   `Send every prompt argument as a string ("3", not 3).`,
		Bad:   `{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"summarize","arguments":{"sentences":3}}}`,
		Good:  `{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"summarize","arguments":{"sentences":"3"}}}`,
		Since: "0.2.0",
	},
	CountsJudged: true, // prompts/get requests
	New: EachFrame(func(p *Pass, f *session.Frame) {
		m := &f.Msg
		if m.Kind != session.Request || m.Method != "prompts/get" || !judgeable(f) || f.Redacted {
			return
		}
		p.Judged()
		r := f.View().ParamFields()
		if r == nil || r.Arguments == nil {
			return
		}
		subject := "prompts/get " + r.Name
		if jsonscan.FirstByte(r.Arguments) != '{' {
			p.Report(f, subject, "%s sent prompts/get %s with arguments that are a JSON %s, not an object of strings",
				f.Direction.Sender(), quoteName(r.Name), jsonscan.Kind(r.Arguments))
			return
		}
		_ = jsonscan.EachMember(r.Arguments, func(name, val []byte) {
			if jsonscan.FirstByte(val) != '"' {
				p.Report(f, subject+" "+string(name), "%s sent prompts/get %s with argument %s as a JSON %s; prompt arguments are strings",
					f.Direction.Sender(), quoteName(r.Name), quoteName(string(name)), jsonscan.Kind(val))
			}
		})
	}),
}
