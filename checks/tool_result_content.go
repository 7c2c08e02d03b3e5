package checks

import (
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleToolResultContent = &Rule{
	ID:       "tool-result-content",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Response),
	Doc: Doc{
		Summary: "A tools/call result without a content array",
		Why: `A tool result carries its output in content, an array of content blocks,
which every revision requires (an empty array is allowed); structuredContent
is an addition to it, never a replacement. A client that renders or forwards
content to the model fails on a result without one. A task handle (2025-11-25
task augmentation) or a 2026-07-28 input_required answer is not a tool result
and is not judged.`,
		Fix:   `Always send "content" (with a text block serializing structuredContent when there is one).`,
		Bad:   `{"jsonrpc":"2.0","id":7,"result":{"structuredContent":{"temperature":21}}}`,
		Good:  `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"temperature\":21}"}],"structuredContent":{"temperature":21}}}`,
		Since: "0.2.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		m := &f.Msg
		c := f.Call
		if m.Kind != session.Response || c == nil || c.Method != "tools/call" || m.Error != nil || !judgeable(f) || f.Redacted ||
			(f.Pairing != session.Answered && f.Pairing != session.Late) {
			return
		}
		r := f.View().ResultFields()
		if !completeResult(r) || jsonscan.FirstByte(r.Content) == '[' {
			return
		}
		what := "without a content array"
		if r.Content != nil {
			what = "whose content is a JSON " + jsonscan.Kind(r.Content) + ", not an array"
		}
		p.Report(f, callSubject(c), "%s answered %s with a result %s", f.Direction.Sender(), callName(c), what).
			Relate(c.File, c.Line, "request sent here")
	}),
}
