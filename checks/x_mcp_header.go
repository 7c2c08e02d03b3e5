package checks

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleXMCPHeader = &Rule{
	ID:       "x-mcp-header",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A tool whose x-mcp-header annotations clients must reject",
		Why: `A 2026-07-28 tool may mark an argument with "x-mcp-header": "Name" in its
inputSchema, so that clients copy the argument into an Mcp-Param-Name HTTP
header that gateways can route on. Clients must reject the whole tool when an
annotation is unusable: a value that is not a string, empty, or not a valid
header name (an RFC 9110 token); a name used twice in one schema (names
ignore case); an annotation on a property that is not of type string, integer
or boolean; or one on a schema not reached from the root through properties
alone (items, anyOf, $defs, … cannot be bound to one header). The tool then
vanishes from the client's list.

Tool definitions are read from the session's complete tools/list listings, each
problem reported once per tool.`,
		Fix: `Annotate only top-level or nested properties (through properties) of type
string, integer or boolean, with distinct token names such as "Region".`,
		Bad:   `"inputSchema":{"type":"object","properties":{"tags":{"type":"array","x-mcp-header":"Tags"}}}`,
		Good:  `"inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`,
		Since: "0.2.0",
	},
	Revisions: Revisions{Since: session.ModernRevision},
	Facts:     []facts.Fact{facts.Catalogue},
	New:       func() Checker { return &xMCPHeader{reported: map[string]bool{}} },
}

// maxReportedTools bounds the problems remembered to report each once.
const maxReportedTools = 4096

type xMCPHeader struct {
	Base
	generation int             // the listing last judged
	reported   map[string]bool // tool and problem already reported
}

func (x *xMCPHeader) Frame(p *Pass, f *session.Frame) {
	tools := &facts.Catalogue.Of(p).Tools
	if tools.Generation == x.generation {
		return
	}
	x.generation = tools.Generation
	if tools.Line != f.Line || f.Msg.Kind != session.Response {
		return // completed by a frame of another revision
	}
	for i := range tools.Current.Len() {
		t := tools.Current.Tool(i)
		for _, a := range mcp.HeaderAnnotations(t.InputSchema) {
			if a.Problem == "" {
				continue
			}
			where := "the schema root"
			if len(a.Path) > 0 {
				where = "property " + quoteName(strings.Join(a.Path, "."))
			}
			key := t.Name + "\x00" + where + "\x00" + a.Problem
			if x.reported[key] {
				continue
			}
			if len(x.reported) < maxReportedTools {
				x.reported[key] = true
			}
			p.Report(f, "tool "+t.Name, "tool %s has an unusable x-mcp-header %s on %s: %s; clients reject the tool", quoteName(t.Name), shortJSON(a.Raw), where, a.Problem)
		}
	}
}
