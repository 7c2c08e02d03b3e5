// Package baseline keeps tool-definition snapshots per server label and
// compares a session's tools with them (spec §6): load (mcpcheck's own
// files and the mcpsnoop proxy's tool-baselines, versions 1 and 2), compare
// (pure: a tier for every change), write (atomic, one canonical file per
// label, named by a hash of the label).
package baseline

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/mcp"
)

// Field is a part of a tool definition that is compared.
type Field string

const (
	FieldDescription  Field = "description"
	FieldTitle        Field = "title"
	FieldInputSchema  Field = "input_schema"
	FieldOutputSchema Field = "output_schema"
	FieldAnnotations  Field = "annotations"
	FieldIcons        Field = "icons"
)

// Fields lists every compared field, in report order.
var Fields = []Field{FieldDescription, FieldTitle, FieldInputSchema, FieldOutputSchema, FieldAnnotations, FieldIcons}

// Tool is one tool definition as a baseline keeps it: strings as given,
// JSON members canonical (keys sorted, no insignificant space) and nil
// when the server did not send them.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Icons        json.RawMessage `json:"icons,omitempty"`
	// Hashed holds the members too large to keep (over MaxMember bytes)
	// as "sha256:HEX" of their canonical form; they are absent above.
	Hashed map[Field]string `json:"hashed,omitempty"`
}

// member is field f of t as compared: canonical JSON, or the text of a
// description or title; nil when absent.
func (t *Tool) member(f Field) []byte {
	switch f {
	case FieldDescription:
		return []byte(t.Description)
	case FieldTitle:
		return []byte(t.Title)
	case FieldInputSchema:
		return t.InputSchema
	case FieldOutputSchema:
		return t.OutputSchema
	case FieldAnnotations:
		return t.Annotations
	case FieldIcons:
		return t.Icons
	}
	return nil
}

// digest is field f of t as a hash, "" when absent.
func (t *Tool) digest(f Field) string {
	if h := t.Hashed[f]; h != "" {
		return h
	}
	if m := t.member(f); len(m) > 0 {
		return hashOf(m)
	}
	return ""
}

// Definitions is a tool listing ready to compare: tools sorted by name,
// one per name, the protocol revision they were listed under ("" when
// unknown: it decides the default JSON Schema dialect), and the fields the
// record does not hold (an mcpsnoop version 1 file), which are not
// compared.
type Definitions struct {
	Tools    []Tool
	Revision string
	Missing  []Field
}

// Lookup returns the tool called name.
func (d *Definitions) Lookup(name string) (*Tool, bool) {
	i, ok := slices.BinarySearchFunc(d.Tools, name, func(t Tool, name string) int { return strings.Compare(t.Name, name) })
	if !ok {
		return nil, false
	}
	return &d.Tools[i], true
}

// FromToolSet makes the definitions of a complete tools/list listed under
// revision. Tools without a name are left out; of two tools with one name
// the first counts, as a client's lookup would find it.
func FromToolSet(set *mcp.ToolSet, revision string) Definitions {
	d := Definitions{Revision: revision}
	if set == nil {
		return d
	}
	seen := map[string]bool{}
	for i := range set.Len() {
		t := set.Tool(i)
		if !t.HasName || seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		d.Tools = append(d.Tools, Tool{
			// copies: the definitions outlive the listing's bytes
			Name:         strings.Clone(t.Name),
			Title:        strings.Clone(t.Title),
			Description:  strings.Clone(t.Description),
			InputSchema:  canonicalMember(t.InputSchema),
			OutputSchema: canonicalMember(t.OutputSchema),
			Annotations:  canonicalMember(t.Annotations),
			Icons:        canonicalMember(t.Icons),
		})
	}
	sortTools(d.Tools)
	return d
}

func sortTools(tools []Tool) {
	slices.SortStableFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
}

// Equal reports whether two listings hold the same definitions.
func (d *Definitions) Equal(o *Definitions) bool {
	if len(d.Tools) != len(o.Tools) {
		return false
	}
	for i := range d.Tools {
		a, b := &d.Tools[i], &o.Tools[i]
		if a.Name != b.Name || a.Title != b.Title || a.Description != b.Description ||
			!bytes.Equal(a.InputSchema, b.InputSchema) || !bytes.Equal(a.OutputSchema, b.OutputSchema) ||
			!bytes.Equal(a.Annotations, b.Annotations) || !bytes.Equal(a.Icons, b.Icons) || !maps.Equal(a.Hashed, b.Hashed) {
			return false
		}
	}
	return true
}

// canonicalMember is a member's canonical form, nil when absent or null
// (a server that sends "outputSchema": null declares none).
func canonicalMember(raw []byte) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return Canonical(raw)
}

// Canonical returns raw JSON with object keys sorted and no insignificant
// space; numbers keep their text and strings their value. Bytes that are
// not one JSON value are returned trimmed, as they are, so they still
// compare by content.
func Canonical(raw []byte) json.RawMessage {
	v, ok := decode(raw)
	if !ok {
		return json.RawMessage(bytes.Clone(bytes.TrimSpace(raw)))
	}
	return encode(v)
}

// decode reads one JSON value keeping numbers as written.
func decode(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // a second value, or garbage after the first
	}
	return v, true
}

// encode writes a decoded value canonically (encoding/json sorts map keys).
func encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
