package checks

import (
	"bytes"
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleToolSchemaRoot = &Rule{
	ID:       "tool-schema-root",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: `A tool whose inputSchema is missing, not an object, or not of root type "object"`,
		Why: `Every revision of the protocol pins a tool's inputSchema to a JSON Schema object
with "type": "object" (a tool's arguments are a JSON object). Clients validate the
listing: the TypeScript SDK rejects the whole tools/list answer when one tool breaks
this, others drop the tool, so it can never be called. A schema with only a $schema
member, a boolean schema or "type": "array" all break it.

Each tool definition is judged once per session, at the tools/list answer that
completed the listing it belongs to (pages accumulate). A listing the recorder
redacted is not judged.`,
		Fix: `Give every tool an inputSchema object with "type": "object", even a tool
without arguments: {"type":"object","properties":{}}.`,
		Bad:   `{"name":"read_file","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#"}}`,
		Good:  `{"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`,
		Since: "0.2.0",
	},
	Facts: []facts.Fact{facts.Catalogue},
	New:   func() Checker { return &toolSchemaRoot{} },
}

type toolSchemaRoot struct {
	Base
	watch    listingWatch
	reported onceSet
}

func (r *toolSchemaRoot) Frame(p *Pass, f *session.Frame) {
	set := r.watch.next(p)
	if set == nil {
		return
	}
	for i := range set.Len() {
		t := set.Tool(i)
		if problem := rootProblem(t.InputSchema); problem != "" && r.reported.first(definitionKey(t.InputSchema, t.Name)) {
			p.Report(f, "tool "+t.Name, "%s", rootMessage(&t, problem))
		}
	}
}

// rootProblem says what is wrong with the root of an inputSchema; "" when
// it is an object of type "object".
func rootProblem(schema []byte) string {
	if schema == nil {
		return "missing"
	}
	if jsonscan.FirstByte(schema) != '{' {
		return "not-object"
	}
	typ := mcp.Member(schema, "type")
	switch {
	case typ == nil:
		return "no-type"
	case string(typ) != `"object"`:
		return "wrong-type"
	}
	return ""
}

func rootMessage(t *mcp.Tool, problem string) string {
	name := quoteName(t.Name)
	switch problem {
	case "missing":
		return "tool " + name + ` has no inputSchema; clients reject it, and it can never be called`
	case "not-object":
		what := jsonscan.Kind(t.InputSchema)
		if what == "boolean" {
			what = "a boolean schema"
		} else {
			what = an(what)
		}
		return "the inputSchema of tool " + name + " is " + what + `, not a JSON Schema object of type "object"`
	case "no-type":
		return "the inputSchema of tool " + name + ` has no root "type"; it must be "object", or clients reject the tool`
	}
	return "the inputSchema of tool " + name + " has root type " + jsonText(mcp.Member(t.InputSchema, "type")) +
		`; it must be "object", or clients reject the tool`
}

// an puts the right article before a JSON type name.
func an(kind string) string {
	switch kind {
	case "object", "array":
		return "an " + kind
	case "null":
		return "null"
	}
	return "a " + kind
}

// jsonText renders a small JSON value from a capture for a message: a
// string quoted, anything else compact and cut short (quoted as text when
// it holds more than printable ASCII).
func jsonText(raw []byte) string {
	if s, ok := jsonscan.String(raw); ok {
		return quoteName(s)
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "(unreadable)"
	}
	text := b.String()
	for _, r := range text {
		if r < 0x20 || r > 0x7e {
			return Quote(text, 60)
		}
	}
	if len(text) > 60 {
		text = text[:60] + "…"
	}
	return text
}
