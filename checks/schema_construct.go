package checks

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/internal/toolschema"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleSchemaConstruct = &Rule{
	ID:       "schema-construct",
	Signal:   SignalSchema,
	Severity: SeverityNote,
	Doc: Doc{
		Summary: "A tool schema uses a construct clients and models handle unevenly",
		Why: `An observation, not a verdict. Clients turn tool schemas into model function
declarations, and many of them flatten or reject what plain object schemas do not
need: oneOf, anyOf, allOf and not; $ref (a local one needs resolving, an external
one is never fetched by mcpcheck or by careful clients, so it constrains nothing);
properties with no type, which a model fills in at random; a $schema other than the
default dialect of the session's revision (2020-12 from 2025-11-25 on, draft-07
before), which some validators do not know. Also noted: an ECMA-262 pattern Go's
regexp cannot run (lookaround, backreferences; the keyword is skipped), and a
schema too large (over 1 MiB) or too deep (over 512 levels) to examine.

The walk follows properties, items, prefixItems, additionalProperties, the
combinators, if/then/else, contains, propertyNames, $defs, definitions,
patternProperties and dependentSchemas; a property merely named "oneOf" is nothing.
A definition in the root's $defs (definitions) counts only when the root reaches
it through references: a catalogue that copies one shared block of definitions
into every tool says nothing about a tool that uses none of them.
Each kind is reported once per tool and session. A listing the recorder redacted
is not examined.`,
		Fix: `Where a client or model struggles with a tool, flatten its schema: one object
with typed properties, enums instead of oneOf of constants, definitions inlined,
and no external references.`,
		Bad:   `{"name":"search","inputSchema":{"type":"object","properties":{"filter":{"oneOf":[{"type":"string"},{"type":"object"}]}}}}`,
		Good:  `{"name":"search","inputSchema":{"type":"object","properties":{"filter":{"type":"string"}}}}`,
		Since: "0.2.0",
	},
	Facts: []facts.Fact{facts.Catalogue},
	New:   func() Checker { return &schemaConstruct{} },
}

// constructKind is one kind schema-construct reports, in report order.
type constructKind struct {
	name string
	kind toolschema.Kind // 0 for nonDefaultDialect, judged here
}

var constructKinds = []constructKind{
	{"oneOf", toolschema.OneOf},
	{"anyOf", toolschema.AnyOf},
	{"allOf", toolschema.AllOf},
	{"not", toolschema.Not},
	{"$ref", toolschema.LocalRef},
	{"external $ref", toolschema.ExternalRef},
	{"untypedProperty", toolschema.UntypedProperty},
	{"nonDefaultDialect", 0},
	{"ecmaPattern", toolschema.ECMAPattern},
	{"unexamined", toolschema.Unexamined},
}

type schemaConstruct struct {
	Base
	watch    listingWatch
	reported onceSet
}

// examined is one of a tool's schemas, compiled.
type examined struct {
	member     string // inputSchema, outputSchema
	schema     *toolschema.Schema
	nonDefault bool // declares a $schema other than the revision's default
}

func (r *schemaConstruct) Frame(p *Pass, f *session.Frame) {
	set := r.watch.next(p)
	if set == nil {
		return
	}
	dialect, rev := dialectFor(p, f)
	judged := listingSchemas(set, dialect)
	for i := range set.Len() {
		t := set.Tool(i)
		var schemas []examined
		for _, m := range []struct {
			name string
			slot int
			raw  []byte
		}{{"inputSchema", inputSlot(i), t.InputSchema}, {"outputSchema", outputSlot(i), t.OutputSchema}} {
			if c := jsonscan.FirstByte(m.raw); c != '{' && c != 't' && c != 'f' {
				continue
			}
			s := judged.Get(m.slot, m.raw)
			e := examined{member: m.name, schema: s}
			if s.Declared != "" && rev != "" {
				d, known := toolschema.DialectOf(s.Declared)
				e.nonDefault = !known || d != dialect
			}
			schemas = append(schemas, e)
		}
		for _, k := range constructKinds {
			var in []examined
			for _, e := range schemas {
				if (k.kind == 0 && e.nonDefault) || (k.kind != 0 && e.schema.Constructs.Has(k.kind)) {
					in = append(in, e)
				}
			}
			if len(in) == 0 || !r.reported.first(t.Name+"\x00"+k.name) {
				continue
			}
			p.Report(f, "tool "+t.Name+" "+k.name, "%s", constructMessage(quoteName(t.Name), k, in, rev, dialect))
		}
	}
}

func constructMessage(tool string, k constructKind, in []examined, rev string, def toolschema.Dialect) string {
	var members, listed []string
	for _, e := range in {
		members = append(members, e.member)
		c := &e.schema.Constructs
		switch k.kind {
		case toolschema.ExternalRef:
			listed = append(listed, c.ExternalRefs...)
		case toolschema.UntypedProperty:
			listed = append(listed, c.Untyped...)
		case toolschema.ECMAPattern:
			listed = append(listed, c.Patterns...)
		}
	}
	where := "its " + strings.Join(members, " and ")
	switch k.kind {
	case toolschema.LocalRef:
		return "tool " + tool + " uses $ref in " + where
	case toolschema.ExternalRef:
		return "tool " + tool + " uses an external $ref in " + where + " (" + quoteList(listed) + "); it is never fetched"
	case toolschema.UntypedProperty:
		return "tool " + tool + " has properties with no type in " + where + " (" + quoteList(listed) + ")"
	case toolschema.ECMAPattern:
		return "tool " + tool + " uses a pattern Go's regexp cannot run in " + where + " (" + quoteList(listed) + "); the keyword is skipped"
	case toolschema.Unexamined:
		return "tool " + tool + ": " + where + " was not examined: " + in[0].schema.Unjudged
	case 0:
		return "tool " + tool + " declares $schema " + quoteName(in[0].schema.Declared) + " in " + where +
			", not the default dialect of " + rev + " (" + def.String() + ")"
	}
	return "tool " + tool + " uses " + k.name + " in " + where
}

// quoteList quotes capture strings for a message: each once, at most five.
func quoteList(items []string) string {
	var q []string
	seen := map[string]bool{}
	for _, s := range items {
		if seen[s] {
			continue
		}
		seen[s] = true
		if len(q) == 5 {
			q = append(q, "…")
			break
		}
		q = append(q, quoteName(s))
	}
	return strings.Join(q, ", ")
}
