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

// refSite is a reference in the document: where it is, the base URI it
// resolves against, and the part of the document it sits in.
type refSite struct {
	obj  map[string]any
	key  string
	base *url.URL
	in   *part
}

// part is a stretch of the document whose constructs count only when it is
// reachable from the root: the root itself, or one member of the root's
// $defs (definitions), reachable when a reachable part refers to it. A
// construct that sits only in a shared definition no tool schema refers to
// constrains nothing a client sees.
type part struct {
	c         Constructs
	pointer   string // "/$defs/name", escaped; "" for the root
	reachable bool
}

// walker walks a decoded schema document over its schema keywords.
type walker struct {
	dialect Dialect
	c       Constructs // the constructs of the reachable parts, once resolved
	refs    []refSite
	ids     map[string]bool // schema resources of the document, without fragment

	root   part             // everything but the root's definitions
	defs   []*part          // the root's definitions, in document order
	defsAt map[string]*part // the same, by pointer
	cur    *part            // the part being walked
	atRoot bool             // the next object walked is the document's root
}

// walkDocument walks doc, its root's definitions each as a part of its own.
func (w *walker) walkDocument(doc any, base *url.URL) {
	w.root.reachable = true
	w.cur, w.atRoot = &w.root, true
	w.schema(doc, base)
}

func (w *walker) schema(v any, base *url.URL) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	isRoot := w.atRoot
	w.atRoot = false
	c := &w.cur.c
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
			w.refs = append(w.refs, refSite{obj, k, base, w.cur})
		}
	}
	for _, cb := range combinators {
		if _, ok := obj[cb.keyword]; ok {
			c.Kinds |= cb.kind
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
				c.Kinds |= UntypedProperty
				c.Untyped = addListed(c.Untyped, name)
			}
			if isRoot && (k == "$defs" || k == "definitions") {
				d := &part{pointer: "/" + k + "/" + escapeToken(name)}
				w.defs = append(w.defs, d)
				if w.defsAt == nil {
					w.defsAt = map[string]*part{}
				}
				w.defsAt[d.pointer] = d
				outer := w.cur
				w.cur = d
				w.schema(s, base)
				w.cur = outer
				continue
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

// resolveRefs classifies the references the walk found, points the
// external ones at an always-true schema in root, which it adds, and keeps
// the constructs of the parts reachable from the root.
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
			r.in.c.Kinds |= LocalRef
			continue
		}
		r.in.c.Kinds |= ExternalRef
		r.in.c.ExternalRefs = addListed(r.in.c.ExternalRefs, ref)
		external = append(external, r)
	}
	pointAway(root, w.dialect, rootURL, external)
	w.reach(rootURL)
}

// reach marks the definitions the reachable parts refer to, until no more
// become reachable, and gathers the constructs of the reachable parts into
// w.c. A local reference it cannot place (an anchor, a pointer into an
// embedded resource) makes every definition reachable: better a note too
// many than a construct missed.
func (w *walker) reach(rootURL string) {
	if len(w.defs) > 0 {
		// each reference is resolved once; then a walk over the parts, so a
		// schema of many definitions costs refs + parts, not their product
		from := map[*part][]*part{}
		everywhere := map[*part]bool{} // parts with a reference that may lead to any definition
		for _, r := range w.refs {
			t, all := w.targets(r, rootURL)
			switch {
			case all:
				everywhere[r.in] = true
			case t != nil:
				from[r.in] = append(from[r.in], t)
			}
		}
		queue := []*part{&w.root}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			next := from[p]
			if everywhere[p] {
				next = w.defs
			}
			for _, d := range next {
				if !d.reachable {
					d.reachable = true
					queue = append(queue, d)
				}
			}
		}
	}
	w.c = Constructs{}
	for _, p := range append([]*part{&w.root}, w.defs...) {
		if !p.reachable {
			continue
		}
		w.c.Kinds |= p.c.Kinds
		for _, s := range p.c.ExternalRefs {
			w.c.ExternalRefs = addListed(w.c.ExternalRefs, s)
		}
		for _, s := range p.c.Untyped {
			w.c.Untyped = addListed(w.c.Untyped, s)
		}
	}
}

// targets is the definition the reference at r leads to (nil: none, or
// somewhere outside the definitions), or all when it may lead to any.
func (w *walker) targets(r refSite, rootURL string) (d *part, all bool) {
	ref, _ := r.obj[r.key].(string)
	u, err := url.Parse(ref)
	if err != nil {
		return nil, false
	}
	target := r.base.ResolveReference(u)
	fragment := target.Fragment
	target.Fragment, target.RawFragment = "", ""
	switch {
	case !w.ids[target.String()]:
		return nil, false // external: pointed away
	case target.String() != rootURL || (fragment != "" && !strings.HasPrefix(fragment, "/")) || r.key != "$ref":
		return nil, true // an embedded resource, an anchor, a dynamic reference
	}
	// "/$defs/name/properties/x" is inside the definition "/$defs/name"
	key := fragment
	if i := strings.IndexByte(fragment[min(1, len(fragment)):], '/'); i >= 0 {
		if j := strings.IndexByte(fragment[i+2:], '/'); j >= 0 {
			key = fragment[:i+2+j]
		}
	}
	return w.defsAt[key], false // nil: the root itself, or a part of it outside the definitions
}

// escapeToken escapes a JSON pointer reference token (RFC 6901).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
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
