package toolschema

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// Violation is one way a value breaks a schema.
type Violation struct {
	Path    string // JSONPath of the offending value: $, $.a, $.list[2], $["odd key"]
	Keyword string // the keyword it breaks: type, required, enum, …
	Detail  string // what is wrong, e.g. "got string, want number"
}

func (v Violation) String() string {
	return fmt.Sprintf("at %s: %s (%s)", v.Path, v.Keyword, v.Detail)
}

// maxViolations bounds what one validation lists.
const maxViolations = 20

// Validate checks the JSON value raw against the schema and returns how it
// breaks it, sorted by path; none when it validates (or the schema is not
// usable). Reference cycles in the schema are its own fault, not the
// value's, and are not listed.
func (s *Schema) Validate(raw []byte) ([]Violation, error) {
	if !s.Usable() || s.quick.valid(raw, 0) {
		return nil, nil
	}
	inst, err := decode(raw)
	if err != nil {
		return nil, err
	}
	err = s.validator.Validate(inst)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []Violation
	collect(ve, inst, &out)
	slices.SortFunc(out, func(a, b Violation) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Keyword, b.Keyword); c != 0 {
			return c
		}
		return strings.Compare(a.Detail, b.Detail)
	})
	return slices.Compact(out), nil
}

// collect lists the failures of e that a caller can act on: it looks
// through wrappers (the whole schema, $ref, allOf) and reports a failed
// anyOf, oneOf or not once rather than every branch that failed.
func collect(e *jsonschema.ValidationError, inst any, out *[]Violation) {
	if len(*out) >= maxViolations {
		return
	}
	keyword := ""
	detail := ""
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			collect(c, inst, out)
		}
		return
	case *kind.RefCycle:
		return
	case *kind.AnyOf:
		detail = fmt.Sprintf("matches none of its %d alternatives", len(e.Causes))
	case *kind.OneOf:
		if len(k.Subschemas) < 2 {
			detail = fmt.Sprintf("matches none of its %d alternatives", len(e.Causes))
		} else {
			detail = fmt.Sprintf("matches alternatives %d and %d, where exactly one must match", k.Subschemas[0], k.Subschemas[1])
		}
	case *kind.FalseSchema:
		keyword, detail = "false", "no value is allowed here"
	case *kind.AdditionalProperties:
		slices.Sort(k.Properties) // the order the instance map gave
	case *kind.Pattern:
		// Not the value itself: an argument may be a credential.
		detail = "does not match pattern " + strconv.Quote(k.Want)
	case *kind.Format:
		detail = "is not a valid " + k.Want
	}
	if kw := e.ErrorKind.KeywordPath(); keyword == "" && len(kw) > 0 {
		keyword = kw[0]
	}
	if keyword == "" {
		keyword = "schema"
	}
	if detail == "" {
		detail = e.ErrorKind.LocalizedString(printer)
	}
	*out = append(*out, Violation{Path: jsonPath(inst, e.InstanceLocation), Keyword: keyword, Detail: clip(detail, 200)})
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// jsonPath renders an instance location as JSONPath, walking the instance
// to tell array indexes from keys that look like numbers.
func jsonPath(inst any, loc []string) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, tok := range loc {
		switch v := inst.(type) {
		case []any:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(v) {
				fmt.Fprintf(&b, "[%d]", i)
				inst = v[i]
				continue
			}
		case map[string]any:
			inst = v[tok]
		default:
			inst = nil
		}
		if identifier.MatchString(tok) {
			b.WriteString("." + tok)
		} else {
			b.WriteString("[" + strconv.Quote(tok) + "]")
		}
	}
	return b.String()
}

// clip shortens s to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// CompileError is why a schema does not compile, in one line.
type CompileError struct{ msg string }

func (e *CompileError) Error() string { return e.msg }

// compileError words a compiler error for a finding: where in the schema
// and what, without the compiler's internal URLs.
func compileError(err error) error {
	var (
		meta  *jsonschema.SchemaValidationError
		re    *jsonschema.InvalidRegexError
		ptr   *jsonschema.JSONPointerNotFoundError
		anc   *jsonschema.AnchorNotFoundError
		valid *jsonschema.ValidationError
	)
	switch {
	case errors.As(err, &meta) && errors.As(meta.Err, &valid):
		var leaves []*jsonschema.ValidationError
		metaLeaves(valid, &leaves)
		// The metaschema is checked in map order: sort by place, so the
		// same schema always reads the same.
		slices.SortStableFunc(leaves, func(a, b *jsonschema.ValidationError) int {
			return slices.Compare(a.InstanceLocation, b.InstanceLocation)
		})
		var parts []string
		seen := map[string]bool{}
		for _, l := range leaves {
			at := "/" + strings.Join(l.InstanceLocation, "/")
			if seen[at] || len(parts) == 3 {
				continue
			}
			seen[at] = true
			parts = append(parts, fmt.Sprintf("at %s: %s", at, clip(l.ErrorKind.LocalizedString(printer), 160)))
		}
		return &CompileError{"it breaks its metaschema: " + strings.Join(parts, "; ")}
	case errors.As(err, &re):
		return &CompileError{fmt.Sprintf("pattern %s at %s is not a regular expression: %s",
			strconv.Quote(re.Regex), pointerOf(re.URL), strings.TrimPrefix(re.Err.Error(), "error parsing regexp: "))}
	case errors.As(err, &ptr):
		return &CompileError{fmt.Sprintf("$ref %s points at nothing in the schema", strconv.Quote(strip(ptr.URL)))}
	case errors.As(err, &anc):
		return &CompileError{fmt.Sprintf("$ref %s names an anchor the schema does not define", strconv.Quote(anc.Reference))}
	}
	return &CompileError{oneLine(strip(err.Error()))}
}

// metaLeaves collects the innermost failures of a metaschema validation,
// first branch first.
func metaLeaves(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	if len(e.Causes) == 0 {
		*out = append(*out, e)
		return
	}
	for _, c := range e.Causes {
		metaLeaves(c, out)
	}
}

// strip removes the compiler's name for the schema from a message.
func strip(s string) string {
	return strings.ReplaceAll(s, rootURL, "")
}

// pointerOf renders a schema location for a message.
func pointerOf(loc string) string {
	if _, frag, ok := strings.Cut(loc, "#"); ok {
		if frag == "" {
			return "the root"
		}
		return frag
	}
	return strip(loc)
}
