package toolschema

import (
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Kind is a construct of a schema, as schema-construct observes them (spec
// §3.8): kinds that make a schema hard for a client or a model to use.
type Kind uint16

const (
	OneOf Kind = 1 << iota
	AnyOf
	AllOf
	Not
	LocalRef        // a $ref into the schema itself
	ExternalRef     // a $ref to anything else: never fetched
	UntypedProperty // a property whose schema says nothing about its type
	ECMAPattern     // an ECMA-262 pattern Go's regexp cannot run: skipped
	Unexamined      // a schema too large or too deep to compile
)

// Constructs is what the walk of a schema found.
type Constructs struct {
	Kinds        Kind
	ExternalRefs []string // as written, at most maxListed
	Untyped      []string // property names, at most maxListed
	Patterns     []string // skipped patterns, at most maxListed
}

// Has reports whether k was found.
func (c *Constructs) Has(k Kind) bool { return c.Kinds&k != 0 }

const maxListed = 5

func addListed(list []string, s string) []string {
	if len(list) >= maxListed {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Keywords whose values are schemas, arrays of schemas, or objects whose
// members are schemas. The walk follows only these: a property merely
// named "oneOf" is a name, and the values of enum, const, default and
// examples are data.
var (
	schemaKeywords = []string{"additionalProperties", "additionalItems", "unevaluatedItems",
		"unevaluatedProperties", "contains", "propertyNames", "if", "then", "else", "not",
		"contentSchema", "items"}
	schemaListKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaMapKeywords  = []string{"properties", "patternProperties", "$defs", "definitions",
		"dependentSchemas", "dependencies"}
	refKeywords = []string{"$ref", "$dynamicRef", "$recursiveRef"}
	combinators = []struct {
		keyword string
		kind    Kind
	}{{"oneOf", OneOf}, {"anyOf", AnyOf}, {"allOf", AllOf}, {"not", Not}}
	// typeKeywords say what type a property has, or pin it down further.
	typeKeywords = []string{"type", "enum", "const", "$ref", "$dynamicRef", "$recursiveRef",
		"oneOf", "anyOf", "allOf"}
)

// refSite is a reference in the document: where it is, and the base URI it
// resolves against.
type refSite struct {
	obj  map[string]any
	key  string
	base *url.URL
}

// walker walks a decoded schema document over its schema keywords.
type walker struct {
	dialect Dialect
	c       Constructs
	refs    []refSite
	ids     map[string]bool // schema resources of the document, without fragment
}

func (w *walker) schema(v any, base *url.URL) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	if id, ok := obj[w.dialect.idKeyword()].(string); ok && !(w.dialect <= Draft7 && strings.HasPrefix(id, "#")) {
		if u, err := url.Parse(id); err == nil {
			base = base.ResolveReference(u)
			base.Fragment, base.RawFragment = "", ""
			w.ids[base.String()] = true
		}
	}
	if s, ok := obj["$schema"].(string); ok {
		if _, known := DialectOf(s); !known {
			// A custom metaschema would be fetched: compile under the
			// document's dialect instead (the root's is recorded first).
			delete(obj, "$schema")
		}
	}
	for _, k := range refKeywords {
		if _, ok := obj[k].(string); ok {
			w.refs = append(w.refs, refSite{obj, k, base})
		}
	}
	for _, c := range combinators {
		if _, ok := obj[c.keyword]; ok {
			w.c.Kinds |= c.kind
		}
	}
	for _, k := range schemaKeywords {
		w.schema(obj[k], base)
	}
	for _, k := range schemaListKeywords {
		if list, ok := obj[k].([]any); ok {
			for _, s := range list {
				w.schema(s, base)
			}
		}
	}
	for _, k := range schemaMapKeywords {
		members, ok := obj[k].(map[string]any)
		if !ok {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(members)) { // the map's order is random
			s := members[name]
			if k == "properties" && untyped(s) {
				w.c.Kinds |= UntypedProperty
				w.c.Untyped = addListed(w.c.Untyped, name)
			}
			w.schema(s, base)
		}
	}
}

// untyped reports a property schema that accepts any type: true, or an
// object with no type and nothing else that pins the type down (an enum, a
// const, a reference, a combinator).
func untyped(s any) bool {
	switch s := s.(type) {
	case bool:
		return s
	case map[string]any:
		for _, k := range typeKeywords {
			if _, ok := s[k]; ok {
				return false
			}
		}
		return true
	}
	return false
}

// externalTarget is where an external reference is pointed instead: an
// always-true schema added to the document, so the rest of the schema
// still compiles and validates.
const externalTarget = "mcpcheck-external-reference"

// resolveRefs classifies the references the walk found and points the
// external ones at an always-true schema in root, which it adds.
func (w *walker) resolveRefs(root map[string]any, rootURL string) {
	var external []refSite
	for _, r := range w.refs {
		ref := r.obj[r.key].(string)
		u, err := url.Parse(ref)
		if err != nil {
			continue // not a URI reference: the compiler says so
		}
		target := r.base.ResolveReference(u)
		target.Fragment, target.RawFragment = "", ""
		if w.ids[target.String()] {
			w.c.Kinds |= LocalRef
			continue
		}
		w.c.Kinds |= ExternalRef
		w.c.ExternalRefs = addListed(w.c.ExternalRefs, ref)
		external = append(external, r)
	}
	pointAway(root, w.dialect, rootURL, external)
}

// pointAway points the references at sites to an always-true schema it
// adds to root, or drops them when root has no place for it.
func pointAway(root map[string]any, d Dialect, rootURL string, sites []refSite) {
	if len(sites) == 0 {
		return
	}
	defs := d.defsKeyword()
	holder, ok := root[defs].(map[string]any)
	if _, present := root[defs]; !present {
		holder, ok = map[string]any{}, true
		root[defs] = holder
	}
	for _, r := range sites {
		if !ok || r.key == "$recursiveRef" {
			delete(r.obj, r.key)
			continue
		}
		r.obj[r.key] = rootURL + "#/" + defs + "/" + externalTarget
	}
	if ok {
		holder[externalTarget] = true
	}
}

// neutralize is the fallback when the compiler still asked for a URL: a
// reference the keyword walk does not reach (one inside an unknown keyword
// that a JSON pointer leads to). It points every reference that is not a
// fragment, anywhere but in data, at the always-true schema, and drops
// custom metaschemas.
func (w *walker) neutralize(root map[string]any, rootURL string) {
	var sites []refSite
	var visit func(v any)
	visit = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				visit(x)
			}
		case map[string]any:
			if s, ok := v["$schema"].(string); ok {
				if _, known := DialectOf(s); !known {
					delete(v, "$schema")
				}
			}
			for _, k := range refKeywords {
				if ref, ok := v[k].(string); ok && !strings.HasPrefix(ref, "#") && !strings.HasPrefix(ref, rootURL) {
					w.c.Kinds |= ExternalRef
					w.c.ExternalRefs = addListed(w.c.ExternalRefs, ref)
					sites = append(sites, refSite{obj: v, key: k})
				}
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				switch k {
				case "enum", "const", "default", "examples":
					continue
				}
				visit(v[k])
			}
		}
	}
	visit(root)
	pointAway(root, w.dialect, rootURL, sites)
}
