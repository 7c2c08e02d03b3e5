package checks

import (
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleInputSchema = &Rule{
	ID:       "input-schema",
	Signal:   SignalContract,
	Severity: SeverityWarning,
	Sees:     Kinds(session.Request),
	Doc: Doc{
		Summary: "tools/call arguments that do not validate against the tool's inputSchema",
		Why: `The model called the tool wrongly: a missing required argument, a string where
a number belongs, a value outside an enum. Servers must validate arguments and
answer such a call with an error, so the agent wasted a round trip, or worse, a
server that does not validate acted on arguments its own contract forbids.

One finding per call lists every violation with its JSON path and keyword. The
schema is the called tool's in the latest complete tools/list of the session; the
rule is silent before one was recorded, after notifications/tools/list_changed
until the next, for a tool the listing does not have (unknown-tool's), and for a
schema that does not compile. Absent or null arguments are validated as {}.
Formats are annotations and never asserted; an external $ref constrains nothing.
Calls the recorder truncated or redacted are not judged.`,
		Fix: `Fix the client or the prompt that produced the arguments; if the arguments are
right, fix the schema the server advertises.`,
		Bad:   `inputSchema requires "a" and "b" as numbers; {"method":"tools/call","params":{"name":"get-sum","arguments":{"a":"one"}}}`,
		Good:  `{"method":"tools/call","params":{"name":"get-sum","arguments":{"a":1,"b":2}}}`,
		Since: "0.2.0",
	},
	Facts: []facts.Fact{facts.Catalogue},
	New:   func() Checker { return &inputSchema{} },
}

type inputSchema struct {
	Base
	schemas callSchemas
}

func (r *inputSchema) Frame(p *Pass, f *session.Frame) {
	if f.Msg.Kind != session.Request || f.Msg.Method != "tools/call" || f.Direction != session.ClientToServer || f.Truncated || f.Redacted {
		return
	}
	call, ok := f.View().CallTool()
	if !ok || !call.HasName {
		return
	}
	dialect, _ := dialectFor(p, f)
	s := r.schemas.find(p, call.Name, dialect, func(t *mcp.Tool) []byte { return t.InputSchema })
	if s == nil || !s.Usable() {
		return
	}
	args := call.Arguments
	if args == nil || string(args) == "null" {
		args = []byte("{}")
	}
	vs, err := s.Validate(args)
	if err != nil || len(vs) == 0 {
		return
	}
	fd := p.Report(f, "tools/call "+call.Name, "the arguments of tool %s do not match its inputSchema: %s", quoteName(call.Name), violationText(vs))
	p.Explains(fd, "arguments that do not match the inputSchema")
}
