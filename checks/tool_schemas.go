package checks

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/toolschema"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

// Helpers of the rules that judge tool definitions and their schemas
// (tool-schema-root, tool-schema-invalid, tool-name, schema-construct,
// output-schema, input-schema). They read the latest complete tools/list of
// the catalogue fact; schemas are compiled once per definition through
// toolschema.Shared.

// listingWatch tells a rule when a new complete tools/list arrived: the
// catalogue fact sees a frame before the rules do, so the frame at hand is
// the listing's last page.
type listingWatch struct{ generation int }

// next returns the tools of a listing completed by this frame, else nil.
func (w *listingWatch) next(p *Pass) *mcp.ToolSet {
	tools := &facts.Catalogue.Of(p).Tools
	if tools.Generation == w.generation {
		return nil
	}
	w.generation = tools.Generation
	if !tools.Complete {
		return nil
	}
	return tools.Current
}

// maxRemembered bounds what a rule remembers having reported in one
// session; past it the memory starts over (a finding may then repeat).
const maxRemembered = 4096

// onceSet remembers what a rule reported, so a session that lists its tools
// again and again reports each problem of a definition once.
type onceSet map[string]struct{}

// first reports whether key is new, and remembers it.
func (s *onceSet) first(key string) bool {
	if *s == nil {
		*s = onceSet{}
	}
	if _, seen := (*s)[key]; seen {
		return false
	}
	if len(*s) >= maxRemembered {
		clear(*s)
	}
	(*s)[key] = struct{}{}
	return true
}

// definitionKey identifies one version of a tool's schema for onceSet: the
// names given and a hash of the schema (never the schema itself, which may
// be large).
func definitionKey(schema []byte, parts ...string) string {
	k := toolschema.KeyOf(schema, toolschema.DialectUnknown)
	return strings.Join(parts, "\x00") + "\x00" + string(k[:])
}

// dialectFor is the default dialect of embedded schemas for a frame's
// revision (§3.3).
func dialectFor(p *Pass, f *session.Frame) (toolschema.Dialect, string) {
	rev := f.Revision(p.Session)
	return toolschema.DefaultDialect(rev), rev
}

// callSchemas finds the compiled schemas of called tools in the current
// listing; it remembers each tool's cache key for the listing, so a call
// costs a map lookup rather than a hash of the schema.
type callSchemas struct {
	generation int
	dialect    toolschema.Dialect
	keys       map[string]toolschema.Key
}

func (c *callSchemas) get(generation int, name string, raw []byte, d toolschema.Dialect) *toolschema.Schema {
	if c.keys == nil || c.generation != generation || c.dialect != d {
		c.keys, c.generation, c.dialect = map[string]toolschema.Key{}, generation, d
	}
	k, ok := c.keys[name]
	if !ok {
		k = toolschema.KeyOf(raw, d)
		c.keys[name] = k // bounded by the listing, which the catalogue holds
	}
	return toolschema.Shared.GetKey(k, raw, d)
}

// currentTool is the definition of name in the latest complete listing,
// when that listing is still what the server offers.
func currentTool(p *Pass, name string) (*mcp.Tool, int, bool) {
	tools := &facts.Catalogue.Of(p).Tools
	if !tools.Complete || tools.Stale {
		return nil, 0, false
	}
	t, ok := tools.Current.Lookup(name)
	return t, tools.Generation, ok
}

// maxShownViolations bounds the violations a message lists.
const maxShownViolations = 5

// violationText lists violations for a message.
func violationText(vs []toolschema.Violation) string {
	var parts []string
	for i, v := range vs {
		if i == maxShownViolations {
			parts = append(parts, fmt.Sprintf("and %d more", len(vs)-i))
			break
		}
		parts = append(parts, v.String())
	}
	return strings.Join(parts, "; ")
}
