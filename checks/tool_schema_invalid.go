package checks

import (
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/internal/toolschema"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleToolSchemaInvalid = &Rule{
	ID:       "tool-schema-invalid",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A tool's inputSchema or outputSchema does not compile as JSON Schema",
		Why: `A client validates arguments and structured results against a tool's schemas; a
schema that does not compile (a misspelt type, a "required" that is not an array, a
$ref that points at nothing, a pattern that is no regular expression) leaves the
client to reject the tool or to skip validation silently.

The dialect is the schema's $schema, else the default of the session's revision:
2020-12 from 2025-11-25 on, draft-07 before. Nothing is ever fetched: a $ref to a
URL or a local file is a schema-construct observation (external $ref), compiled as
a schema that accepts anything, and the rest of the schema is still used. A valid
ECMA-262 pattern that Go's regexp cannot run (lookaround, backreferences) is not
invalid either: it is noted by schema-construct and its keyword skipped. A
schema over 1 MiB or nested over 512 levels is not compiled (schema-construct
notes it). The root of an inputSchema is tool-schema-root's. Each definition is
judged once per session.`,
		Fix: `Validate the schemas your server advertises against their metaschema in the
server's tests (for example with ajv or a JSON Schema library in your language).`,
		Bad:   `{"name":"search","inputSchema":{"type":"object","properties":{"query":{"type":"strin"}}}}`,
		Good:  `{"name":"search","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}}`,
		Since: "0.2.0",
	},
	Facts: []facts.Fact{facts.Catalogue},
	New:   func() Checker { return &toolSchemaInvalid{} },
}

type toolSchemaInvalid struct {
	Base
	watch    listingWatch
	reported onceSet
}

func (r *toolSchemaInvalid) Frame(p *Pass, f *session.Frame) {
	set := r.watch.next(p)
	if set == nil {
		return
	}
	dialect, _ := dialectFor(p, f)
	judged := listingSchemas(set, dialect)
	for i := range set.Len() {
		t := set.Tool(i)
		if c := jsonscan.FirstByte(t.InputSchema); c == '{' || c == 't' || c == 'f' {
			r.judge(p, f, t.Name, "inputSchema", judged.Get(inputSlot(i), t.InputSchema), t.InputSchema, dialect)
		}
		if t.OutputSchema != nil {
			r.judge(p, f, t.Name, "outputSchema", judged.Get(outputSlot(i), t.OutputSchema), t.OutputSchema, dialect)
		}
	}
}

// listingSchemas is the verdicts of a listing's schemas that this rule and
// schema-construct share, so that each schema is compiled once for both:
// two slots a tool, its inputSchema and its outputSchema.
func listingSchemas(set *mcp.ToolSet, d toolschema.Dialect) *toolschema.Listing {
	return toolschema.ListingOf(set, 2*set.Len(), d)
}

func inputSlot(tool int) int  { return 2 * tool }
func outputSlot(tool int) int { return 2*tool + 1 }

func (r *toolSchemaInvalid) judge(p *Pass, f *session.Frame, tool, member string, s *toolschema.Schema, raw []byte, d toolschema.Dialect) {
	if s.Err == nil || !r.reported.first(definitionKey(raw, tool, member, d.String())) {
		return
	}
	p.Report(f, "tool "+tool+" "+member, "the %s of tool %s does not compile as JSON Schema (%s): %s",
		member, quoteName(tool), s.Dialect, s.Err)
}
