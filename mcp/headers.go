package mcp

import (
	"encoding/base64"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// The base64 sentinel of Streamable HTTP (2026-07-28): an Mcp-Name or
// Mcp-Param-* value that is not plain visible ASCII travels as
// =?base64?<base64 of its UTF-8>?=, markers lowercase.
const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

// IsHeaderSentinel reports a header value in the base64 sentinel form.
func IsHeaderSentinel(v string) bool {
	return len(v) >= len(sentinelPrefix)+len(sentinelSuffix) && strings.HasPrefix(v, sentinelPrefix) && strings.HasSuffix(v, sentinelSuffix)
}

// DecodeHeaderValue returns the value an Mcp-Name or Mcp-Param-* header
// stands for: a sentinel decoded, any other value as it is. ok is false for
// a sentinel whose payload is not base64 of UTF-8 text.
func DecodeHeaderValue(v string) (string, bool) {
	if !IsHeaderSentinel(v) {
		return v, true
	}
	payload := v[len(sentinelPrefix) : len(v)-len(sentinelSuffix)]
	b, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		// some encoders drop the padding
		if b, err = base64.RawStdEncoding.DecodeString(payload); err != nil {
			return "", false
		}
	}
	if !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// HeaderAnnotation is one x-mcp-header annotation of a tool's inputSchema
// (2026-07-28): the property it sits on binds an Mcp-Param-<Header>
// request header to the argument at Path.
type HeaderAnnotation struct {
	Header string   // the annotation's value when it is a string
	Raw    []byte   // the annotation's raw value
	Path   []string // property names from the root to the annotated schema
	Via    string   // the first keyword other than properties on the way there; "" when there is none
	Type   string   // the property's single primitive type (null aside), "" when it has none
	// Problem says why a client must reject the tool for this annotation;
	// "" when the annotation is usable.
	Problem string
}

// maxSchemaDepth bounds the walk of a schema a server wrote: deeper
// nesting is not looked at.
const maxSchemaDepth = 64

// HeaderAnnotations finds every x-mcp-header annotation in a tool's
// inputSchema, in document order, and judges each by the rules clients
// apply before they call the tool: a string that is a valid header name
// (an RFC 9110 token), unique without regard to case, on a property of
// type string, integer or boolean reached from the root through a chain of
// properties alone. A member merely named x-mcp-header inside properties
// is a property, and values (enum, const, default, examples) are not
// schemas.
func HeaderAnnotations(schema []byte) []HeaderAnnotation {
	var out []HeaderAnnotation
	walkSchema(schema, nil, "", 0, &out)
	seen := map[string]bool{}
	for i := range out {
		a := &out[i]
		switch {
		case a.Raw != nil && jsonscan.FirstByte(a.Raw) != '"':
			a.Problem = "its value is a JSON " + jsonscan.Kind(a.Raw) + ", not a string"
		case a.Header == "":
			a.Problem = "its value is empty"
		case !isToken(a.Header):
			a.Problem = "its value is not a valid header name (an RFC 9110 token)"
		case seen[strings.ToLower(a.Header)]:
			a.Problem = "another property of the schema already uses it (header names ignore case)"
		case len(a.Path) == 0 && a.Via == "":
			a.Problem = "it sits on the schema root, not on a property"
		case a.Via != "":
			a.Problem = "its property is reached through " + a.Via + ", not through properties alone"
		case a.Type == "":
			a.Problem = "its property is not of type string, integer or boolean"
		}
		if a.Header != "" && jsonscan.FirstByte(a.Raw) == '"' {
			seen[strings.ToLower(a.Header)] = true
		}
	}
	return out
}

// schema-valued keywords, whose subschemas are walked with their name as
// the way through.
var (
	oneSchema  = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"}
	schemaList = []string{"anyOf", "oneOf", "allOf", "prefixItems", "items"}
	schemaMap  = []string{"$defs", "definitions", "patternProperties", "dependentSchemas"}
)

func walkSchema(schema []byte, path []string, via string, depth int, out *[]HeaderAnnotation) {
	if depth > maxSchemaDepth || jsonscan.FirstByte(schema) != '{' {
		return
	}
	through := func(kw string) string {
		if via != "" {
			return via
		}
		return kw
	}
	_ = jsonscan.EachMember(schema, func(name, val []byte) {
		kw := string(name)
		switch {
		case kw == "x-mcp-header":
			a := HeaderAnnotation{Raw: val, Path: append([]string(nil), path...), Via: via, Type: primitiveType(schema)}
			a.Header, _ = jsonscan.String(val)
			*out = append(*out, a)
		case kw == "properties":
			_ = jsonscan.EachMember(val, func(prop, sub []byte) {
				walkSchema(sub, append(path[:len(path):len(path)], string(prop)), via, depth+1, out)
			})
		case slices.Contains(schemaMap, kw):
			_ = jsonscan.EachMember(val, func(_, sub []byte) {
				walkSchema(sub, path, through(kw), depth+1, out)
			})
		case jsonscan.FirstByte(val) == '[' && slices.Contains(schemaList, kw):
			for _, sub := range jsonscan.Elements(val) {
				walkSchema(sub, path, through(kw), depth+1, out)
			}
		case slices.Contains(oneSchema, kw):
			walkSchema(val, path, through(kw), depth+1, out)
		}
	})
}

// primitiveType is the one type of a property schema a header can carry:
// string, integer or boolean (a "null" beside it allowed: a null value
// means no header); "" for any other type, several, or none.
func primitiveType(schema []byte) string {
	t := Member(schema, "type")
	if s, ok := jsonscan.String(t); ok {
		return headerType(s)
	}
	found := ""
	for _, el := range jsonscan.Elements(t) {
		s, _ := jsonscan.String(el)
		switch {
		case s == "null":
		case found != "" || headerType(s) == "":
			return ""
		default:
			found = s
		}
	}
	return found
}

func headerType(s string) string {
	if s == "string" || s == "integer" || s == "boolean" {
		return s
	}
	return ""
}

// isToken reports an RFC 9110 token: one or more tchar.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
