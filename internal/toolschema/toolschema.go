// Package toolschema compiles the JSON Schemas of MCP tool definitions
// (inputSchema, outputSchema), finds the constructs they use, and validates
// tool arguments and structured results against them. Rules and the drift
// baseline share it, so a schema means the same thing to all of them.
//
// Nothing is ever fetched: every $ref that leaves the schema is recorded
// (an ExternalRef construct) and compiled as an always-true schema, so the
// rest of the schema still compiles and validates; the compiler's loader
// refuses every URL, file:// included, for anything the walk missed. Formats
// are annotations, never asserted (format assertion is optional in every
// draft, and SDKs differ). Patterns run on Go's linear-time regexp.
package toolschema

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// Limits on what is compiled: a larger or deeper schema is not compiled,
// walked or used (Schema.Unjudged says why), so a hostile listing costs
// bounded memory and stack.
const (
	MaxSize  = 1 << 20
	MaxDepth = 512
)

// rootURL names the schema being compiled. Each schema gets a compiler of
// its own, so the name never collides; messages never show it.
const rootURL = "mem://mcpcheck/schema.json"

// Schema is one compiled tool schema.
type Schema struct {
	// Dialect is the draft it was compiled under: its $schema, else the
	// default it was compiled with.
	Dialect Dialect
	// Declared is the root $schema as written ("" when absent or not a
	// string).
	Declared string
	// Err says why the schema does not compile; nil when it compiled or
	// was not judged.
	Err error
	// Unjudged says why the schema was neither compiled nor walked (too
	// large, too deep, not JSON); "" when it was.
	Unjudged string
	// Constructs is what the walk found.
	Constructs Constructs

	validator *jsonschema.Schema
	quick     *quickNode // proves common values valid without the validator
	size      int        // bytes of the source, for the cache's budget
}

// Usable reports whether values can be validated against the schema.
func (s *Schema) Usable() bool { return s != nil && s.validator != nil }

// compiles counts compilations, for tests of the cache.
var compiles atomic.Int64

// Compile compiles raw, a schema, under def when it declares no known
// $schema. It never fails: what went wrong is in the result.
func Compile(raw []byte, def Dialect) *Schema {
	compiles.Add(1)
	s := &Schema{Dialect: def, size: len(raw)}
	if len(raw) > MaxSize {
		s.Unjudged = fmt.Sprintf("it is %d bytes, more than the %d compiled", len(raw), MaxSize)
		s.Constructs.Kinds |= Unexamined
		return s
	}
	if d := depth(raw); d > MaxDepth {
		s.Unjudged = fmt.Sprintf("it nests deeper than %d levels", MaxDepth)
		s.Constructs.Kinds |= Unexamined
		return s
	}
	switch jsonscan.FirstByte(raw) {
	case '{', 't', 'f':
	default:
		s.Err = fmt.Errorf("it is %s, not a JSON Schema (an object or a boolean)", an(jsonscan.Kind(raw)))
		return s
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		s.Unjudged = "it is not JSON: " + err.Error()
		s.Constructs.Kinds |= Unexamined
		return s
	}
	root, _ := doc.(map[string]any)
	if root != nil {
		if decl, ok := root["$schema"].(string); ok {
			s.Declared = decl
			if d, known := DialectOf(decl); known {
				s.Dialect = d
			}
		}
	}
	w := &walker{dialect: s.Dialect, ids: map[string]bool{rootURL: true}}
	base, _ := url.Parse(rootURL)
	w.walkDocument(doc, base)
	if root != nil {
		w.resolveRefs(root, rootURL)
	} else {
		w.c = w.root.c
	}
	eng := &patterns{}
	v, err := compileDoc(doc, s.Dialect, eng)
	var load *jsonschema.LoadURLError
	if errors.As(err, &load) && root != nil {
		// A reference the keyword walk did not reach; never fetch it.
		w.neutralize(root, rootURL)
		eng = &patterns{}
		v, err = compileDoc(doc, s.Dialect, eng)
		if errors.As(err, &load) {
			s.Constructs = w.c
			s.Constructs.Kinds |= ExternalRef
			s.Constructs.ExternalRefs = addListed(s.Constructs.ExternalRefs, load.URL)
			return s // unusable, but not invalid: it refers elsewhere
		}
	}
	slices.Sort(eng.skipped) // the compiler's order follows its maps
	for _, p := range eng.skipped {
		w.c.Kinds |= ECMAPattern
		w.c.Patterns = addListed(w.c.Patterns, p)
	}
	s.Constructs = w.c
	if err != nil {
		s.Err = compileError(err)
		return s
	}
	s.validator = v
	s.quick = buildQuick(v)
	return s
}

// refusingLoader is the compiler's loader: it refuses every URL, file://
// and http(s):// alike, and reports what it was asked for.
type refusingLoader struct{ asked func(url string) }

func (l refusingLoader) Load(url string) (any, error) {
	if l.asked != nil {
		l.asked(url)
	}
	return nil, fmt.Errorf("mcpcheck never fetches %s", url)
}

// loaderHook, when set by a test, sees every URL a compiler asks for.
var loaderHook func(url string)

// compileDoc compiles a decoded schema with a fresh compiler.
func compileDoc(doc any, d Dialect, eng *patterns) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(d.draft())
	c.UseLoader(refusingLoader{asked: loaderHook})
	c.UseRegexpEngine(eng.compile)
	for _, f := range annotationFormats {
		c.RegisterFormat(f)
	}
	if err := c.AddResource(rootURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(rootURL)
}

// annotationFormat names the formats annotationFormats disarm.
var annotationFormat = map[string]bool{}

// annotationFormats replace the formats draft-07 and older assert by
// default: a format is an annotation here, whatever the draft.
var annotationFormats = func() []*jsonschema.Format {
	var out []*jsonschema.Format
	for _, name := range []string{"json-pointer", "relative-json-pointer", "uuid", "duration",
		"period", "ipv4", "ipv6", "hostname", "email", "date", "time", "date-time", "uri", "iri",
		"uri-reference", "iri-reference", "uri-template", "semver", "idn-email", "idn-hostname"} {
		out = append(out, &jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
		annotationFormat[name] = true
	}
	return out
}()

// depth is the deepest nesting of arrays and objects in raw (which is
// valid JSON), counted without decoding it.
func depth(raw []byte) int {
	d, max := 0, 0
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if d++; d > max {
				max = d
			}
		case '}', ']':
			d--
		}
	}
	return max
}

func an(kind string) string {
	switch kind {
	case "object", "array":
		return "an " + kind
	case "null", "nothing":
		return kind
	}
	return "a " + kind
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
