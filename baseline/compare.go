package baseline

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Tier is how much a change matters to whoever approved the old definition.
type Tier uint8

const (
	TierNone Tier = iota
	// TierInfo: nothing a client relied on changed (a tool added, icons).
	TierInfo
	// TierReview: a person should look (descriptions, titles, a new
	// optional argument, annotations, a wider output schema).
	TierReview
	// TierBreaking: a client or an approval built on the old definition is
	// wrong now (a tool removed, a required argument added, an argument
	// removed or retyped, an enum narrowed, readOnlyHint true→false,
	// destructiveHint false→true, an output schema narrowed).
	TierBreaking
)

var tierNames = [...]string{"", "info", "review", "breaking"}

func (t Tier) String() string {
	if int(t) < len(tierNames) {
		return tierNames[t]
	}
	return "tier?"
}

// MarshalText writes the tier's name.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// ChangeKind says what happened to a tool.
type ChangeKind string

const (
	Added   ChangeKind = "added"
	Removed ChangeKind = "removed"
	Changed ChangeKind = "changed"
)

// ToolChange is one tool that differs from the baseline. Tier is the
// highest tier of its fields (info for an added tool, breaking for a
// removed one).
type ToolChange struct {
	Tool   string
	Change ChangeKind
	Tier   Tier
	Fields []FieldChange // the changed fields, in Fields order (Changed only)
}

// FieldChange is one changed field of a tool; Tier is the highest tier of
// its differences.
type FieldChange struct {
	Field Field
	Tier  Tier
	Diffs []Diff
}

// Diff is one difference inside a field: a JSON pointer into the field's
// value ("" for the whole value), the old and new values as canonical JSON
// ("" when absent), its tier, and why it has that tier ("" when it is the
// field's plain default).
type Diff struct {
	Pointer  string
	Old, New string
	Tier     Tier
	Reason   string
}

// Compare lists how cur differs from the baseline old, tools in name
// order. Fields that either side does not record are not compared. It
// reads nothing but its arguments.
func Compare(old, cur *Definitions) []ToolChange {
	skip := map[Field]bool{}
	for _, f := range append(slices.Clone(old.Missing), cur.Missing...) {
		skip[f] = true
	}
	var out []ToolChange
	i, j := 0, 0
	for i < len(old.Tools) || j < len(cur.Tools) {
		switch {
		case j == len(cur.Tools) || (i < len(old.Tools) && old.Tools[i].Name < cur.Tools[j].Name):
			out = append(out, ToolChange{Tool: old.Tools[i].Name, Change: Removed, Tier: TierBreaking})
			i++
		case i == len(old.Tools) || cur.Tools[j].Name < old.Tools[i].Name:
			out = append(out, ToolChange{Tool: cur.Tools[j].Name, Change: Added, Tier: TierInfo})
			j++
		default:
			fields := compareTool(&old.Tools[i], &cur.Tools[j], old.Revision, cur.Revision, skip)
			if len(fields) > 0 {
				c := ToolChange{Tool: cur.Tools[j].Name, Change: Changed, Fields: fields}
				for _, f := range fields {
					c.Tier = max(c.Tier, f.Tier)
				}
				out = append(out, c)
			}
			i++
			j++
		}
	}
	return out
}

func compareTool(o, n *Tool, oldRev, newRev string, skip map[Field]bool) []FieldChange {
	var out []FieldChange
	add := func(fc FieldChange, changed bool) {
		if changed && !skip[fc.Field] {
			out = append(out, fc)
		}
	}
	if len(o.Hashed) > 0 || len(n.Hashed) > 0 {
		// a member one side keeps only by hash compares by hash
		o, n = compareHashed(o, n, add)
	}
	add(diffText(FieldDescription, o.Description, n.Description))
	add(diffText(FieldTitle, o.Title, n.Title))
	add(diffSchema(FieldInputSchema, o.InputSchema, n.InputSchema, oldRev, newRev))
	add(diffSchema(FieldOutputSchema, o.OutputSchema, n.OutputSchema, oldRev, newRev))
	add(diffAnnotations(o.Annotations, n.Annotations))
	add(diffIcons(o.Icons, n.Icons))
	return out
}

// compareHashed reports the members that either side keeps only by hash
// and differ, and returns the tools without them for the field-by-field
// comparison.
func compareHashed(o, n *Tool, add func(FieldChange, bool)) (*Tool, *Tool) {
	oc, nc := *o, *n
	for _, f := range Fields {
		if o.Hashed[f] == "" && n.Hashed[f] == "" {
			continue
		}
		if o.digest(f) != n.digest(f) {
			add(FieldChange{Field: f, Tier: TierReview, Diffs: []Diff{{Tier: TierReview,
				Reason: fmt.Sprintf("over %d MiB, kept in the baseline by its SHA-256: what changed is not known", MaxMember>>20)}}}, true)
		}
		oc.clear(f)
		nc.clear(f)
	}
	return &oc, &nc
}

// clear removes field f from t (a copy).
func (t *Tool) clear(f Field) {
	switch f {
	case FieldDescription:
		t.Description = ""
	case FieldTitle:
		t.Title = ""
	case FieldInputSchema:
		t.InputSchema = nil
	case FieldOutputSchema:
		t.OutputSchema = nil
	case FieldAnnotations:
		t.Annotations = nil
	case FieldIcons:
		t.Icons = nil
	}
}

func diffText(f Field, old, cur string) (FieldChange, bool) {
	if old == cur {
		return FieldChange{}, false
	}
	d := Diff{Tier: TierReview}
	if old != "" {
		d.Old = string(encode(old))
	}
	if cur != "" {
		d.New = string(encode(cur))
	}
	return FieldChange{Field: f, Tier: TierReview, Diffs: []Diff{d}}, true
}

// differ collects the differences of one field.
type differ struct {
	output bool // an output schema: what the server promises, not what it accepts
	diffs  []Diff
}

func (d *differ) add(ptr string, old any, oh bool, cur any, nh bool, tier Tier, reason string) {
	diff := Diff{Pointer: ptr, Tier: tier, Reason: reason}
	if oh {
		diff.Old = string(encode(old))
	}
	if nh {
		diff.New = string(encode(cur))
	}
	d.diffs = append(d.diffs, diff)
}

func (d *differ) result(f Field) (FieldChange, bool) {
	if len(d.diffs) == 0 {
		return FieldChange{}, false
	}
	fc := FieldChange{Field: f, Diffs: d.diffs}
	for _, x := range d.diffs {
		fc.Tier = max(fc.Tier, x.Tier)
	}
	return fc, true
}

// diffSchema compares an input or output schema. The root $schema counts
// through the dialect it names or, absent, the default dialect of the
// revision the tool was listed under, so spelling out the default is not
// a change; when a side's revision is unknown and it names no dialect, the
// dialect is not compared.
func diffSchema(f Field, oldRaw, curRaw json.RawMessage, oldRev, curRev string) (FieldChange, bool) {
	d := &differ{output: f == FieldOutputSchema}
	what := "input schema"
	if d.output {
		what = "output schema"
	}
	switch {
	case oldRaw == nil && curRaw == nil:
		return FieldChange{}, false
	case oldRaw == nil:
		d.diffs = append(d.diffs, Diff{New: string(curRaw), Tier: TierReview, Reason: what + " added"})
		return d.result(f)
	case curRaw == nil:
		d.diffs = append(d.diffs, Diff{Old: string(oldRaw), Tier: TierBreaking, Reason: what + " removed"})
		return d.result(f)
	}
	old, ok1 := decode(oldRaw)
	cur, ok2 := decode(curRaw)
	if !ok1 || !ok2 {
		if string(oldRaw) != string(curRaw) {
			d.diffs = append(d.diffs, Diff{Old: string(oldRaw), New: string(curRaw), Tier: TierReview})
		}
		return d.result(f)
	}
	om, ok1 := old.(map[string]any)
	nm, ok2 := cur.(map[string]any)
	if ok1 && ok2 {
		od, nd := dialect(om, oldRev), dialect(nm, curRev)
		ov, oh := om["$schema"]
		nv, nh := nm["$schema"]
		if od != "" && nd != "" && od != nd {
			d.add("/$schema", ov, oh, nv, nh, TierReview, "dialect changed")
		}
		om, nm = without(om, "$schema"), without(nm, "$schema")
		old, cur = om, nm
	}
	d.schema("", old, cur)
	return d.result(f)
}

// dialect is the JSON Schema dialect a root schema is written in, "" when
// it cannot be known.
func dialect(root map[string]any, revision string) string {
	if v, ok := root["$schema"]; ok {
		if s, ok := v.(string); ok {
			return normalDialect(s)
		}
		return string(encode(v))
	}
	switch {
	case revision == "":
		return ""
	case revision >= "2025-11-25": // "draft" sorts after every date, as it should
		return normalDialect("https://json-schema.org/draft/2020-12/schema")
	}
	return normalDialect("http://json-schema.org/draft-07/schema#")
}

// normalDialect folds the spellings of one dialect URI: scheme and an
// empty fragment do not matter.
func normalDialect(uri string) string {
	uri = strings.TrimSuffix(strings.TrimSpace(uri), "#")
	uri = strings.TrimPrefix(uri, "https://")
	return strings.TrimPrefix(uri, "http://")
}

func without(m map[string]any, key string) map[string]any {
	if _, ok := m[key]; !ok {
		return m
	}
	c := maps.Clone(m)
	delete(c, key)
	return c
}

// schema compares two schemas at ptr, knowing what the keywords mean for
// a client: properties, required, type and enum get their tiers; other
// subschemas are walked; anything else is a change to review.
func (d *differ) schema(ptr string, old, cur any) {
	if equal(old, cur) {
		return
	}
	om, ok1 := old.(map[string]any)
	nm, ok2 := cur.(map[string]any)
	if !ok1 || !ok2 {
		d.add(ptr, old, true, cur, true, TierReview, "")
		return
	}
	propsDone := false
	for _, k := range unionKeys(om, nm) {
		ov, oh := om[k]
		nv, nh := nm[k]
		p := ptr + "/" + escapePointer(k)
		switch k {
		case "properties", "required":
			if !propsDone {
				propsDone = true
				d.properties(ptr, om, nm)
			}
		case "type":
			d.typ(ptr, p, ov, oh, nv, nh)
		case "enum":
			d.enum(p, ov, oh, nv, nh)
		case "items", "additionalProperties", "additionalItems", "contains", "propertyNames", "not",
			"if", "then", "else", "unevaluatedItems", "unevaluatedProperties":
			if oh && nh {
				d.schema(p, ov, nv)
			} else {
				d.generic(p, ov, oh, nv, nh, TierReview)
			}
		case "$defs", "definitions", "patternProperties", "dependentSchemas":
			o, ok1 := ov.(map[string]any)
			n, ok2 := nv.(map[string]any)
			if !oh || !nh || !ok1 || !ok2 {
				d.generic(p, ov, oh, nv, nh, TierReview)
				continue
			}
			for _, name := range unionKeys(o, n) {
				a, ah := o[name]
				b, bh := n[name]
				if ah && bh {
					d.schema(p+"/"+escapePointer(name), a, b)
				} else {
					d.generic(p+"/"+escapePointer(name), a, ah, b, bh, TierReview)
				}
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			o, ok1 := ov.([]any)
			n, ok2 := nv.([]any)
			if !oh || !nh || !ok1 || !ok2 || len(o) != len(n) {
				d.generic(p, ov, oh, nv, nh, TierReview)
				continue
			}
			for i := range o {
				d.schema(p+"/"+itoa(i), o[i], n[i])
			}
		default:
			d.generic(p, ov, oh, nv, nh, TierReview)
		}
	}
}

// noun names the properties of the schema at ptr: arguments at the root of
// an input schema, properties anywhere else.
func (d *differ) noun(ptr string) string {
	if !d.output && ptr == "" {
		return "argument"
	}
	return "property"
}

// what names the schema at ptr itself: an argument when it is a property
// of an input schema's root.
func (d *differ) what(ptr string) string {
	name, ok := strings.CutPrefix(ptr, "/properties/")
	if !d.output && ok && !strings.Contains(name, "/") {
		return "argument"
	}
	return "property"
}

// properties compares the properties and required members of one object
// schema together: a new property that is also required is one change.
func (d *differ) properties(ptr string, om, nm map[string]any) {
	op, opOK := objectMember(om, "properties")
	np, npOK := objectMember(nm, "properties")
	oreq, orOK := stringSetMember(om, "required")
	nreq, nrOK := stringSetMember(nm, "required")
	noun := d.noun(ptr)
	if !opOK || !npOK {
		ov, oh := om["properties"]
		nv, nh := nm["properties"]
		d.generic(ptr+"/properties", ov, oh, nv, nh, TierReview)
	} else {
		for _, name := range unionKeys(op, np) {
			p := ptr + "/properties/" + escapePointer(name)
			ov, oh := op[name]
			nv, nh := np[name]
			switch {
			case oh && !nh:
				d.add(p, ov, true, nil, false, TierBreaking, noun+" removed")
			case !oh && nh && d.output:
				d.add(p, nil, false, nv, true, TierReview, "property added")
			case !oh && nh && nreq[name]:
				d.add(p, nil, false, nv, true, TierBreaking, "required "+noun+" added")
			case !oh && nh:
				d.add(p, nil, false, nv, true, TierReview, "optional "+noun+" added")
			default:
				d.schema(p, ov, nv)
			}
		}
	}
	if !orOK || !nrOK {
		ov, oh := om["required"]
		nv, nh := nm["required"]
		if !equal(ov, nv) {
			d.generic(ptr+"/required", ov, oh, nv, nh, TierReview)
		}
		return
	}
	listed := func(props map[string]any, name string) bool { _, ok := props[name]; return ok }
	for _, name := range sortedKeys(nreq) {
		if oreq[name] || (opOK && npOK && !listed(op, name) && listed(np, name)) {
			continue // unchanged, or a new property whose change says it is required
		}
		if d.output {
			d.add(ptr+"/required", nil, false, name, true, TierReview, "property now required")
		} else {
			d.add(ptr+"/required", nil, false, name, true, TierBreaking, noun+" now required")
		}
	}
	for _, name := range sortedKeys(oreq) {
		if nreq[name] || (opOK && npOK && listed(op, name) && !listed(np, name)) {
			continue // unchanged, or a removed property
		}
		if d.output {
			d.add(ptr+"/required", name, true, nil, false, TierBreaking, "property no longer required")
		} else {
			d.add(ptr+"/required", name, true, nil, false, TierReview, noun+" now optional")
		}
	}
}

// typ compares type keywords as sets ("string" and ["string"] agree).
func (d *differ) typ(ptr, p string, ov any, oh bool, nv any, nh bool) {
	switch {
	case oh && nh:
		if typeSet(ov) == typeSet(nv) {
			return
		}
		reason := d.what(ptr) + " retyped"
		if ptr == "" {
			reason = "type changed"
		}
		d.add(p, ov, true, nv, true, TierBreaking, reason)
	case nh:
		d.add(p, nil, false, nv, true, TierReview, "type declared")
	case oh && d.output:
		d.add(p, ov, true, nil, false, TierBreaking, "type no longer declared")
	case oh:
		d.add(p, ov, true, nil, false, TierReview, "type constraint dropped")
	}
}

// enum compares value sets: for arguments, a value no longer allowed (or
// an enum where any value was allowed) narrows what callers may send.
func (d *differ) enum(p string, ov any, oh bool, nv any, nh bool) {
	o, ok1 := ov.([]any)
	n, ok2 := nv.([]any)
	switch {
	case oh && nh && ok1 && ok2:
		removed, added := false, false
		for _, v := range o {
			removed = removed || !slices.ContainsFunc(n, func(w any) bool { return equal(v, w) })
		}
		for _, v := range n {
			added = added || !slices.ContainsFunc(o, func(w any) bool { return equal(v, w) })
		}
		switch {
		case !removed && !added:
			return // the same values in another order
		case d.output:
			d.add(p, ov, true, nv, true, TierReview, "enum changed")
		case removed:
			d.add(p, ov, true, nv, true, TierBreaking, "enum narrowed")
		default:
			d.add(p, ov, true, nv, true, TierReview, "enum widened")
		}
	case !oh && nh && !d.output:
		d.add(p, nil, false, nv, true, TierBreaking, "enum narrowed")
	case oh && !nh:
		d.add(p, ov, true, nil, false, TierReview, "enum dropped")
	default:
		d.generic(p, ov, oh, nv, nh, TierReview)
	}
}

// generic compares values with no meaning attached, pointing at the
// innermost members that differ.
func (d *differ) generic(p string, ov any, oh bool, nv any, nh bool, tier Tier) {
	if oh && nh {
		if equal(ov, nv) {
			return
		}
		if o, ok := ov.(map[string]any); ok {
			if n, ok := nv.(map[string]any); ok {
				for _, k := range unionKeys(o, n) {
					a, ah := o[k]
					b, bh := n[k]
					d.generic(p+"/"+escapePointer(k), a, ah, b, bh, tier)
				}
				return
			}
		}
		if o, ok := ov.([]any); ok {
			if n, ok := nv.([]any); ok && len(o) == len(n) {
				for i := range o {
					d.generic(p+"/"+itoa(i), o[i], true, n[i], true, tier)
				}
				return
			}
		}
	}
	if oh || nh {
		d.add(p, ov, oh, nv, nh, tier, "")
	}
}

// hintDefaults are the values the spec gives absent annotation hints.
var hintDefaults = map[string]any{
	"readOnlyHint":    false,
	"destructiveHint": true,
	"idempotentHint":  false,
	"openWorldHint":   true,
}

// diffAnnotations compares annotations member by member, an absent hint
// standing for its default; a hint that is not a boolean is compared as
// it is, never as a default.
func diffAnnotations(oldRaw, curRaw json.RawMessage) (FieldChange, bool) {
	d := &differ{}
	om, ok1 := objectOrEmpty(oldRaw)
	nm, ok2 := objectOrEmpty(curRaw)
	if !ok1 || !ok2 {
		o, _ := decode(oldRaw)
		n, _ := decode(curRaw)
		d.generic("", o, oldRaw != nil, n, curRaw != nil, TierReview)
		return d.result(FieldAnnotations)
	}
	for _, k := range unionKeys(om, nm) {
		ov, oh := om[k]
		nv, nh := nm[k]
		if def, hint := hintDefaults[k]; hint {
			if !oh {
				ov, oh = def, true
			}
			if !nh {
				nv, nh = def, true
			}
		}
		if oh && nh && equal(ov, nv) {
			continue
		}
		switch {
		case k == "readOnlyHint" && ov == true:
			d.add("/"+k, ov, oh, nv, nh, TierBreaking, "no longer read-only")
		case k == "destructiveHint" && ov == false:
			d.add("/"+k, ov, oh, nv, nh, TierBreaking, "now destructive")
		default:
			d.generic("/"+escapePointer(k), ov, oh, nv, nh, TierReview)
		}
	}
	return d.result(FieldAnnotations)
}

// diffIcons compares icon lists in order; no list and an empty one agree.
func diffIcons(oldRaw, curRaw json.RawMessage) (FieldChange, bool) {
	if string(oldRaw) == "[]" {
		oldRaw = nil
	}
	if string(curRaw) == "[]" {
		curRaw = nil
	}
	if string(oldRaw) == string(curRaw) {
		return FieldChange{}, false
	}
	d := &differ{}
	o, _ := decode(oldRaw)
	n, _ := decode(curRaw)
	d.generic("", o, oldRaw != nil, n, curRaw != nil, TierInfo)
	return d.result(FieldIcons)
}

func objectOrEmpty(raw json.RawMessage) (map[string]any, bool) {
	if raw == nil {
		return map[string]any{}, true
	}
	v, ok := decode(raw)
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// objectMember is m[key] as an object; an absent member is an empty one.
func objectMember(m map[string]any, key string) (map[string]any, bool) {
	v, ok := m[key]
	if !ok {
		return map[string]any{}, true
	}
	o, ok := v.(map[string]any)
	return o, ok
}

// stringSetMember is m[key] as a set of strings; absent is empty (so an
// empty required list and none agree).
func stringSetMember(m map[string]any, key string) (map[string]bool, bool) {
	set := map[string]bool{}
	v, ok := m[key]
	if !ok {
		return set, true
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		set[s] = true
	}
	return set, true
}

// typeSet is a type keyword's value as a sorted set, canonical.
func typeSet(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var names []string
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return string(encode(v))
			}
			names = append(names, s)
		}
		slices.Sort(names)
		return strings.Join(slices.Compact(names), ",")
	}
	return string(encode(v))
}

func equal(a, b any) bool { return string(encode(a)) == string(encode(b)) }

func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func sortedKeys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

// escapePointer escapes one JSON pointer token (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
