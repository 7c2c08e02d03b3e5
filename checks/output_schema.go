package checks

import (
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleOutputSchema = &Rule{
	ID:        "output-schema",
	Signal:    SignalWarn,
	Severity:  SeverityError,
	Sees:      Kinds(session.Response),
	Revisions: Revisions{Since: "2025-06-18"},
	Doc: Doc{
		Summary: "A tool result without structuredContent, or with one its outputSchema rejects",
		Why: `A tool that declares an outputSchema must return structuredContent that conforms
to it (2025-06-18 and later: a MUST). Clients validate it and drop a result that
does not conform, so the model sees a failure where the tool succeeded, or the
client trusts data of the wrong shape.

The outputSchema is the tool's in the latest complete tools/list of the session
(pages accumulate); the rule is silent before one was recorded, after
notifications/tools/list_changed until the next, and for a schema that does not
compile. Error results (isError: true) are exempt, as the specification allows,
and so are answers that are not the final result (a task handle, an
input_required result). Formats are annotations and never asserted. Answers the
recorder truncated or redacted are not judged.`,
		Fix: `Return structuredContent that matches the declared outputSchema on every
successful result, or change the outputSchema to describe what the tool returns.`,
		Bad:   `outputSchema requires "temperature"; {"result":{"content":[{"type":"text","text":"sunny"}],"structuredContent":{"conditions":"sunny"}}}`,
		Good:  `{"result":{"content":[{"type":"text","text":"{\"temperature\":21,\"conditions\":\"sunny\"}"}],"structuredContent":{"temperature":21,"conditions":"sunny"}}}`,
		Since: "0.2.0",
	},
	Facts: []facts.Fact{facts.Catalogue},
	New:   func() Checker { return &outputSchema{} },
}

type outputSchema struct {
	Base
	schemas callSchemas
}

func (r *outputSchema) Frame(p *Pass, f *session.Frame) {
	c := f.Call
	if f.Msg.Kind != session.Response || c == nil || c.Method != "tools/call" || c.Name == "" ||
		(f.Pairing != session.Answered && f.Pairing != session.Late) || f.Truncated || f.Redacted {
		return
	}
	res := f.View().ResultFields()
	if f.Msg.Error != nil || res == nil || res.IsError || res.Task != nil {
		return
	}
	if rt, ok := res.ResultTypeString(); res.ResultType != nil && (!ok || rt != "complete") {
		return // not the final result (input_required, …)
	}
	dialect, _ := dialectFor(p, f)
	s := r.schemas.find(p, c.Name, dialect, func(t *mcp.Tool) []byte { return t.OutputSchema })
	if s == nil || !s.Usable() {
		return
	}
	structured := res.StructuredContent // no need to decode the content
	if structured == nil {
		p.Report(f, "tools/call "+c.Name, "the result of tool %s has no structuredContent, but the tool declares an outputSchema", quoteName(c.Name)).
			Relate(c.File, c.Line, "request sent here")
		return
	}
	vs, err := s.Validate(structured)
	if err != nil || len(vs) == 0 {
		return
	}
	p.Report(f, "tools/call "+c.Name, "the structuredContent of tool %s does not match its outputSchema: %s", quoteName(c.Name), violationText(vs)).
		Relate(c.File, c.Line, "request sent here")
}
