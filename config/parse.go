package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpcheck/mcpcheck/checks"
)

// maxNodes bounds the values one file expands to: aliases can make a
// small file describe a huge tree.
const maxNodes = 100_000

// place is where a value (or a key) starts in the file.
type place struct{ line, col int }

// tree is a file's value as JSON would hold it, with the place of every
// value and key, by JSON pointer.
type tree struct {
	file   string
	values map[string]place
	keys   map[string]place
	nodes  int
}

// Parse reads the YAML text of a file named name and validates it: first
// against the schema, then the names it holds against the vocabulary.
func Parse(name string, data []byte, v *Vocabulary) (*File, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: name, Msg: "the file is empty; it needs at least version: 1"}
		}
		return nil, yamlError(name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: name, Line: extra.Line, Col: extra.Column, Msg: "a second YAML document; the file holds one"}
	}
	t := &tree{file: name, values: map[string]place{}, keys: map[string]place{}}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, &Error{File: name, Msg: "the file is empty; it needs at least version: 1"}
	}
	value, err := t.value(root, "")
	if err != nil {
		return nil, err
	}
	if errs := t.validate(value, v); len(errs) > 0 {
		return nil, errs
	}
	raw, _ := json.Marshal(value)
	f := &File{Path: name, Set: map[string]bool{}}
	if err := json.Unmarshal(raw, f); err != nil {
		return nil, &Error{File: name, Msg: err.Error()} // the schema admitted what the types refuse: a bug
	}
	for k := range value.(map[string]any) {
		f.Set[k] = true
	}
	if errs := t.check(f, v); len(errs) > 0 {
		return nil, errs
	}
	return f, nil
}

// yamlError locates a YAML syntax error. yaml.v3 says "yaml: line N: …".
func yamlError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(n); err == nil {
				return &Error{File: name, Line: line, Col: 1, Msg: tail}
			}
		}
	}
	return &Error{File: name, Msg: msg}
}

func (t *tree) errAt(p place, format string, args ...any) *Error {
	return &Error{File: t.file, Line: p.line, Col: p.col, Msg: fmt.Sprintf(format, args...)}
}

// value converts a node, recording places; keys must be unique strings.
func (t *tree) value(n *yaml.Node, ptr string) (any, error) {
	if t.nodes++; t.nodes > maxNodes {
		return nil, t.errAt(place{n.Line, n.Column}, "the file expands to more than %d values (aliases?)", maxNodes)
	}
	t.values[ptr] = place{n.Line, n.Column}
	switch n.Kind {
	case yaml.AliasNode:
		return t.value(n.Alias, ptr)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			at := place{k.Line, k.Column}
			if k.Kind != yaml.ScalarNode || (k.Tag != "!!str" && k.Tag != "!!int" && k.Tag != "!!bool" && k.Tag != "!!float") {
				if k.Tag == "!!merge" {
					return nil, t.errAt(at, "merge keys (<<) are not supported; write the keys out")
				}
				return nil, t.errAt(at, "a key must be a plain string")
			}
			if _, dup := m[k.Value]; dup {
				prev := t.keys[ptr+"/"+escape(k.Value)]
				return nil, t.errAt(at, "key %q given twice (first at line %d)", k.Value, prev.line)
			}
			child := ptr + "/" + escape(k.Value)
			t.keys[child] = at
			v, err := t.value(val, child)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := t.value(c, ptr+"/"+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil, nil
		case "!!bool", "!!int", "!!float":
			var v any
			if err := n.Decode(&v); err != nil {
				return nil, t.errAt(place{n.Line, n.Column}, "%v", err)
			}
			if i, ok := v.(int); ok {
				return int64(i), nil
			}
			return v, nil
		}
		return n.Value, nil
	}
	return nil, t.errAt(place{n.Line, n.Column}, "unexpected YAML node")
}

func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// compile compiles the schema of a vocabulary; a file is read once a run.
func compile(v *Vocabulary) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON(v)))
	if err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	c.AssertFormat()
	if err := c.AddResource(SchemaID, doc); err != nil {
		panic(err)
	}
	s, err := c.Compile(SchemaID)
	if err != nil {
		panic(fmt.Sprintf("config: the generated schema does not compile: %v", err))
	}
	return s
}

// refuseLoader loads nothing: the schema is self-contained, and a file
// must never make mcpcheck read another or reach the network.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) { return nil, fmt.Errorf("%s: not loaded", url) }

var printer = message.NewPrinter(language.English)

// validate checks the value against the schema, each problem located.
func (t *tree) validate(value any, v *Vocabulary) Errors {
	raw, _ := json.Marshal(value)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return Errors{{File: t.file, Msg: err.Error()}}
	}
	err = compile(v).Validate(inst)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	schema := Schema(v)
	var errs Errors
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		ptr := pointer(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.AdditionalProperties:
			for _, name := range k.Properties {
				errs = append(errs, t.unknownKey(ptr, name, schema))
			}
			return
		case *kind.OneOf, *kind.AnyOf:
			// the branch whose type matched says what is wrong inside it
			for _, c := range e.Causes {
				if !typeMismatch(c) {
					walk(c)
					return
				}
			}
			want := "a string or a list of strings"
			if last := e.InstanceLocation[len(e.InstanceLocation)-1]; last == "max-duration" {
				want = "a duration such as 30s, or a map of tool name to duration"
			}
			errs = append(errs, t.errAt(t.values[ptr], "%s: want %s", keyName(e.InstanceLocation), want))
			return
		case *kind.Type:
			errs = append(errs, t.errAt(t.values[ptr], "%s: got %s, want %s", keyName(e.InstanceLocation), k.Got, strings.Join(k.Want, " or ")))
			return
		case *kind.Required:
			errs = append(errs, t.errAt(t.values[ptr], "missing key %s", strings.Join(quoteAll(k.Missing), ", ")))
			return
		case *kind.Enum:
			var want []string
			for _, w := range k.Want {
				want = append(want, fmt.Sprint(w))
			}
			got := fmt.Sprint(k.Got)
			errs = append(errs, t.errAt(t.values[ptr], "%s: %q is not one of %s%s", keyName(e.InstanceLocation), got, strings.Join(want, ", "), didYouMean(got, want)))
			return
		case *kind.Pattern:
			errs = append(errs, t.errAt(t.values[ptr], "%s: %q is not a duration such as 500ms, 30s or 2m", keyName(e.InstanceLocation), fmt.Sprint(k.Got)))
			return
		case *kind.PropertyNames:
			// jsonschema v6 reports a propertyNames failure at a sibling
			// key's location; the schema's own location says which object.
			ptr = instanceOf(e.SchemaURL)
			loc := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
			// its cause, an enum on the name, is located at the key below
			for _, c := range e.Causes {
				name := fmt.Sprint(c.ErrorKind.(*kind.Enum).Got)
				errs = append(errs, t.errAt(t.keys[ptr+"/"+escape(name)], "%s: unknown format %q; valid: %s%s", keyName(loc), name,
					strings.Join(v.Outputs, ", "), didYouMean(name, v.Outputs)))
			}
			return
		}
		if len(e.Causes) == 0 {
			errs = append(errs, t.errAt(t.values[ptr], "%s: %s", keyName(e.InstanceLocation), e.ErrorKind.LocalizedString(printer)))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return sorted(errs)
}

// typeMismatch reports a branch of a oneOf that failed on its type alone.
func typeMismatch(e *jsonschema.ValidationError) bool {
	if _, ok := e.ErrorKind.(*kind.Type); ok {
		return true
	}
	return len(e.Causes) == 1 && typeMismatch(e.Causes[0])
}

// unknownKey is the error for a key the schema does not allow at ptr, with
// the nearest allowed key.
func (t *tree) unknownKey(ptr, name string, schema map[string]any) *Error {
	at := t.keys[ptr+"/"+escape(name)]
	s := schemaAt(schema, ptr)
	props, _ := s["properties"].(map[string]any)
	var valid []string
	for k := range props {
		valid = append(valid, k)
	}
	sort.Strings(valid)
	where := "at the top level"
	if ptr != "" {
		where = "in " + keyName(strings.Split(ptr[1:], "/"))
	}
	if ptr == "/rules" {
		return t.errAt(at, "unknown rule %q in rules%s; run 'mcpcheck rules' for the list", name, didYouMean(name, valid))
	}
	if strings.HasPrefix(ptr, "/rules/") {
		if len(valid) == 0 {
			return t.errAt(at, "rule %s has no option %q; it declares none the file can set", ptr[len("/rules/"):], name)
		}
		return t.errAt(at, "rule %s has no option %q%s; its options: %s", ptr[len("/rules/"):], name, didYouMean(name, valid), strings.Join(valid, ", "))
	}
	return t.errAt(at, "unknown key %q %s%s", name, where, didYouMean(name, valid))
}

// schemaAt follows a JSON pointer through properties and
// additionalProperties.
func schemaAt(s map[string]any, ptr string) map[string]any {
	if ptr == "" {
		return s
	}
	for _, part := range strings.Split(ptr[1:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		if props, ok := s["properties"].(map[string]any); ok {
			if p, ok := props[part].(map[string]any); ok {
				s = p
				continue
			}
		}
		if add, ok := s["additionalProperties"].(map[string]any); ok {
			s = add
			continue
		}
		return nil
	}
	return s
}

// instanceOf is the instance pointer of an object whose schema is at url
// (…#/properties/outputs/propertyNames → /outputs): the names after each
// "properties".
func instanceOf(url string) string {
	_, frag, _ := strings.Cut(url, "#")
	parts := strings.Split(strings.TrimPrefix(frag, "/"), "/")
	var b strings.Builder
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "properties" {
			b.WriteString("/" + parts[i+1])
			i++
		}
	}
	return b.String()
}

func pointer(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		b.WriteString("/" + escape(p))
	}
	return b.String()
}

// keyName is a dotted key path for messages: servers.notes.fail-on.
func keyName(loc []string) string {
	if len(loc) == 0 {
		return "the file"
	}
	return strings.Join(loc, ".")
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}

func sorted(errs Errors) Errors {
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Line != errs[j].Line {
			return errs[i].Line < errs[j].Line
		}
		return errs[i].Col < errs[j].Col
	})
	return slices.CompactFunc(errs, func(a, b *Error) bool { return *a == *b })
}

// check validates what the schema cannot: the names in gates against the
// catalogue, durations, globs and rule option values.
func (t *tree) check(f *File, v *Vocabulary) Errors {
	var errs Errors
	if f.Version != Version {
		errs = append(errs, t.errAt(t.values["/version"], "version %d is not supported; this mcpcheck reads version %d", f.Version, Version))
	}
	for i, c := range f.Captures {
		at := t.values["/captures/"+strconv.Itoa(i)]
		if _, err := filepath.Match(c, ""); err != nil {
			errs = append(errs, t.errAt(at, "captures: %q is not a valid glob: %v", c, err))
		}
	}
	errs = append(errs, t.checkGate("", &f.Gate, v)...)
	errs = append(errs, t.checkAssertions("", &f.Assertions)...)
	for label, s := range f.Servers {
		ptr := "/servers/" + escape(label)
		if _, err := path.Match(label, ""); err != nil {
			errs = append(errs, t.errAt(t.keys[ptr], "servers: %q is not a valid label glob: %v", label, err))
		}
		errs = append(errs, t.checkGate(ptr, &s.Gate, v)...)
		errs = append(errs, t.checkAssertions(ptr, &s.Assertions)...)
	}
	for id, opts := range f.Rules {
		r := checks.Lookup(v.Rules, id)
		for name, raw := range opts {
			at := t.values["/rules/"+escape(id)+"/"+escape(name)]
			for _, o := range r.Options {
				if c, ok := o.(checks.ConfigurableSetting); ok && c.OptionName() == name {
					if _, err := c.ParseOption(raw); err != nil {
						errs = append(errs, t.errAt(at, "rules.%s.%s: %v", id, name, err))
					}
				}
			}
		}
	}
	return sorted(errs)
}

// checkGate checks fail-on and disable of the top level (ptr "") or of a server.
func (t *tree) checkGate(ptr string, g *Gate, v *Vocabulary) Errors {
	var errs Errors
	ids := make([]string, len(v.Rules))
	for i, r := range v.Rules {
		ids[i] = r.ID
	}
	words := []string{"none", "all"}
	for _, s := range checks.Signals() {
		words = append(words, s.String())
	}
	words = append(words, ids...)
	at := func(key string, i int) place {
		if p, ok := t.values[ptr+"/"+key+"/"+strconv.Itoa(i)]; ok {
			return p
		}
		return t.values[ptr+"/"+key] // the comma-separated spelling
	}
	disabled := map[string]bool{}
	for i, id := range g.Disable {
		if checks.Lookup(v.Rules, id) == nil {
			errs = append(errs, t.errAt(at("disable", i), "disable: unknown rule %q%s; run 'mcpcheck rules' for the list", id, didYouMean(id, ids)))
		}
		disabled[id] = true
	}
	for i, e := range g.FailOn {
		e = strings.ToLower(e)
		switch {
		case !slices.Contains(words, e):
			errs = append(errs, t.errAt(at("fail-on", i), "fail-on: unknown entry %q%s; valid are none, all, a signal or a rule id", e, didYouMean(e, words)))
		case e == "none" && len(g.FailOn) > 1:
			errs = append(errs, t.errAt(at("fail-on", i), "fail-on: none cannot be combined with other entries"))
		case disabled[e]:
			errs = append(errs, t.errAt(at("fail-on", i), "fail-on names rule %q, which disable turns off; drop it from one of the two", e))
		}
	}
	if g.FailOn != nil && len(g.FailOn) == 0 {
		errs = append(errs, t.errAt(t.values[ptr+"/fail-on"], "fail-on is empty; name signals or rule ids, or none to report only"))
	}
	return errs
}

func (t *tree) checkAssertions(ptr string, a *Assertions) Errors {
	var errs Errors
	type named struct {
		key, ptr string
		v        Duration
	}
	durations := []named{{"max-server-duration", ptr + "/max-server-duration", a.MaxServerDuration}}
	if a.MaxDuration.Tools == nil {
		durations = append(durations, named{"max-duration", ptr + "/max-duration", a.MaxDuration.All})
	} else {
		durations = append(durations, named{"max-duration.*", ptr + "/max-duration/*", a.MaxDuration.All})
	}
	for tool, d := range a.MaxDuration.Tools {
		durations = append(durations, named{"max-duration." + tool, ptr + "/max-duration/" + escape(tool), d})
	}
	for _, d := range durations {
		if d.v == "" {
			continue
		}
		if _, err := time.ParseDuration(string(d.v)); err != nil {
			errs = append(errs, t.errAt(t.values[d.ptr], "%s: %q is not a duration such as 500ms, 30s or 2m", d.key, d.v))
		}
	}
	for _, key := range []string{"expect-tools", "forbid-tools"} {
		list := a.ExpectTools
		if key == "forbid-tools" {
			list = a.ForbidTools
		}
		for i, name := range list {
			if strings.TrimSpace(name) == "" {
				errs = append(errs, t.errAt(t.values[ptr+"/"+key+"/"+strconv.Itoa(i)], "%s: an empty tool name", key))
			}
		}
	}
	return errs
}

// ToolValues are the per-tool budgets, once the file was validated; nil
// for none.
func (b Budget) ToolValues() map[string]time.Duration {
	if len(b.Tools) == 0 {
		return nil
	}
	out := make(map[string]time.Duration, len(b.Tools))
	for tool, d := range b.Tools {
		if v := d.Value(); v != nil {
			out[tool] = *v
		}
	}
	return out
}

// Duration's value, once the file was validated.
func (d Duration) Value() *time.Duration {
	if d == "" {
		return nil
	}
	v, err := time.ParseDuration(string(d))
	if err != nil {
		return nil
	}
	return &v
}
