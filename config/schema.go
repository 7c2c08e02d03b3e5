package config

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"

	"github.com/mcpcheck/mcpcheck/checks"
)

// Vocabulary is what the names in a file are checked against: the rule
// catalogue (ids, signals, rule options) and the registered formats.
type Vocabulary struct {
	Rules        []*checks.Rule
	Outputs      []string // report formats, the keys of outputs:
	InputFormats []string // capture formats, the values of input-format:
}

// SchemaID is the schema's $id (a name, never fetched).
const SchemaID = "https://github.com/mcpcheck/mcpcheck/docs/config.schema.json"

// durationPattern is what time.ParseDuration accepts, less the sign.
const durationPattern = `^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`

// Schema is the JSON Schema (draft 2020-12) of a configuration file,
// generated from File and the vocabulary: one source for the file, its
// validation and its documentation.
func Schema(v *Vocabulary) map[string]any {
	s := objectSchema(reflect.TypeFor[File](), v)
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = SchemaID
	s["title"] = "mcpcheck configuration (.mcpcheck.yml)"
	s["required"] = []string{"version"}
	return s
}

// SchemaJSON is Schema, indented, with a final newline: what
// docs/config.schema.json holds and mcpcheck config schema prints.
func SchemaJSON(v *Vocabulary) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Schema(v)); err != nil {
		panic(err) // maps of strings and slices always encode
	}
	return b.Bytes()
}

// Key is one key of the file, for documentation: its path (servers.*.fail-on),
// its JSON type and its description.
type Key struct {
	Path, Type, Doc string
}

// Keys lists every key the schema allows, in file order, depth first.
func Keys(v *Vocabulary) []Key {
	var keys []Key
	var walk func(prefix string, s map[string]any)
	walk = func(prefix string, s map[string]any) {
		props, _ := s["properties"].(map[string]any)
		for _, name := range propertyOrder(s) {
			p := props[name].(map[string]any)
			path := prefix + name
			keys = append(keys, Key{Path: path, Type: typeName(p), Doc: p["description"].(string)})
			if _, ok := p["properties"]; ok && name != "rules" {
				walk(path+".", p)
			}
			if add, ok := p["additionalProperties"].(map[string]any); ok {
				if _, ok := add["properties"]; ok {
					walk(path+".*.", add)
				}
			}
		}
	}
	walk("", Schema(v))
	return keys
}

// propertyOrder is the order of a schema's properties as the Go fields
// declare them (kept under x-order, since JSON objects have none).
func propertyOrder(s map[string]any) []string {
	order, _ := s["x-order"].([]string)
	return order
}

func typeName(s map[string]any) string {
	if t, ok := s["type"].(string); ok {
		if t == "array" {
			return "list of strings"
		}
		if t == "object" {
			return "map"
		}
		if _, ok := s["pattern"]; ok && t == "string" {
			return "duration"
		}
		return t
	}
	if alts, ok := s["oneOf"].([]any); ok {
		if _, ok := alts[0].(map[string]any)["pattern"]; ok {
			return "duration, or map of tool to duration"
		}
		return "string or list of strings"
	}
	return "any"
}

// objectSchema describes a struct: its json-tagged fields, embedded
// structs flattened, nothing else allowed.
func objectSchema(t reflect.Type, v *Vocabulary) map[string]any {
	props := map[string]any{}
	var order []string
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				add(f.Type)
				continue
			}
			name := f.Tag.Get("json")
			if name == "" || name == "-" {
				continue
			}
			s := fieldSchema(name, f, v)
			s["description"] = f.Tag.Get("doc")
			props[name] = s
			order = append(order, name)
		}
	}
	add(t)
	return map[string]any{"type": "object", "properties": props, "additionalProperties": false, "x-order": order}
}

func fieldSchema(name string, f reflect.StructField, v *Vocabulary) map[string]any {
	switch name {
	case "input-format":
		return map[string]any{"type": "string", "enum": slices.Clone(v.InputFormats)}
	case "outputs":
		return map[string]any{"type": "object", "propertyNames": map[string]any{"enum": slices.Clone(v.Outputs)},
			"additionalProperties": map[string]any{"type": "string", "minLength": 1}}
	case "rules":
		return rulesSchema(v)
	}
	switch f.Type {
	case reflect.TypeFor[List]():
		return map[string]any{"oneOf": []any{
			map[string]any{"type": "string"},
			map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		}}
	case reflect.TypeFor[Duration]():
		return map[string]any{"type": "string", "pattern": durationPattern}
	case reflect.TypeFor[*float64]():
		return map[string]any{"type": "number", "minimum": 0, "maximum": 100}
	case reflect.TypeFor[Budget]():
		return map[string]any{"oneOf": []any{
			map[string]any{"type": "string", "pattern": durationPattern},
			map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string", "pattern": durationPattern}},
		}}
	}
	switch f.Type.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int:
		s := map[string]any{"type": "integer"}
		if m := f.Tag.Get("min"); m != "" {
			n, _ := strconv.Atoi(m)
			s["minimum"] = n
		}
		return s
	case reflect.Slice:
		return map[string]any{"type": "array", "items": map[string]any{"type": "string", "minLength": 1}}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": objectSchema(f.Type.Elem(), v)}
	}
	panic("config: no schema for field " + f.Name + " of type " + f.Type.String())
}

// rulesSchema allows one object per rule id, holding the options that rule
// declares and the file may set.
func rulesSchema(v *Vocabulary) map[string]any {
	props := map[string]any{}
	var order []string
	for _, r := range v.Rules {
		opts := map[string]any{}
		var names []string
		for _, o := range r.Options {
			c, ok := o.(checks.ConfigurableSetting)
			if !ok || !c.Configurable() {
				continue
			}
			s := map[string]any{"type": c.OptionType(), "description": c.OptionDoc()}
			switch c.OptionType() {
			case "duration":
				s["type"], s["pattern"] = "string", durationPattern
			case "array":
				s["items"] = map[string]any{"type": "string"}
			}
			opts[c.OptionName()] = s
			names = append(names, c.OptionName())
		}
		props[r.ID] = map[string]any{"type": "object", "properties": opts, "additionalProperties": false,
			"description": r.Doc.Summary, "x-order": names}
		order = append(order, r.ID)
	}
	return map[string]any{"type": "object", "properties": props, "additionalProperties": false, "x-order": order}
}
