package toolschema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// quickSchemas are schemas of the shapes tools list, for the quick check's
// agreement with the validator.
var quickSchemas = []struct {
	schema string
	d      Dialect
}{
	{`{"type":"object","properties":{"path":{"type":"string","minLength":1,"maxLength":12},"head":{"type":"integer","minimum":1,"maximum":100}},"required":["path"],"additionalProperties":false}`, Draft2020},
	{`{"type":"object","properties":{"location":{"type":"string","enum":["New York","Chicago","é"]},"units":{"enum":["metric",1,null,true]}},"required":["location"]}`, Draft7},
	{`{"type":"object","properties":{"edits":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"object","properties":{"old":{"type":"string"},"new":{"type":"string"}},"required":["old","new"],"additionalProperties":false}},"dryRun":{"type":"boolean"}},"required":["edits"]}`, Draft2020},
	{`{"type":"object","$defs":{"label":{"type":"string","pattern":"^[a-z][a-z0-9-]*$"}},"properties":{"labels":{"type":"array","items":{"$ref":"#/$defs/label"},"uniqueItems":true},"assignee":{"anyOf":[{"type":"string"},{"type":"null"}]},"n":{"type":["integer","null"],"exclusiveMinimum":0,"exclusiveMaximum":10}},"minProperties":1,"maxProperties":3}`, Draft2020},
	{`{"type":"object","properties":{"x":{"const":"a"},"y":{"type":"number","minimum":0.1,"maximum":0.3},"z":{"allOf":[{"type":"string"},{"maxLength":2}]}},"additionalProperties":{"type":"integer"}}`, Draft7},
	{`{"type":"object","properties":{"child":{"$ref":"#"},"v":{"type":"integer"}}}`, Draft2020},
	{`{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]},"b":{"not":{"type":"null"}}}}`, Draft2020},
	{`{"type":"object","properties":{"u":{"type":"array","uniqueItems":true}},"required":["u"]}`, Draft2020},
	{`{"type":"object","properties":{"big":{"type":"integer","maximum":9007199254740993}}}`, Draft2020},
	{`{"type":"object","properties":{"f":{"type":"string","format":"email"},"r":{"type":"string","format":"regex"}}}`, Draft7},
}

// randomValue makes JSON values near the schemas above: their property
// names, strings with escapes and non-ASCII, numbers at their bounds.
func randomValue(r *rand.Rand, depth int) any {
	names := []string{"path", "head", "location", "units", "edits", "old", "new", "dryRun", "labels", "assignee", "n", "x", "y", "z", "child", "v", "a", "b", "u", "big", "f", "r", "extra"}
	strs := []string{"", "a", "ab", "abc", "New York", "Chicago", "é", "metric", "bug", "ci-1", "Bad", "a\"b", "x\\y", "tab\t", "0123456789abcdef", "[", "ab@c"}
	nums := []string{"0", "1", "-1", "1.0", "0.1", "0.3", "0.30000000001", "10", "100", "101", "-0", "1e2", "9007199254740993", "9007199254740992", "0.2"}
	k := r.IntN(9)
	if depth > 3 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return json.Number(nums[r.IntN(len(nums))])
	case 3, 4:
		return strs[r.IntN(len(strs))]
	case 5, 6:
		arr := []any{}
		for range r.IntN(5) {
			arr = append(arr, randomValue(r, depth+1))
		}
		return arr
	}
	obj := map[string]any{}
	for range r.IntN(5) {
		obj[names[r.IntN(len(names))]] = randomValue(r, depth+1)
	}
	return obj
}

// quickSamples are valid values of the schemas above, for mutation.
var quickSamples = []string{
	`{"path":"/srv/a.md","head":10}`,
	`{"location":"Chicago","units":null}`,
	`{"edits":[{"old":"a","new":"b"},{"old":"c","new":"d"}],"dryRun":false}`,
	`{"labels":["bug","ci-1"],"assignee":null,"n":5}`,
	`{"x":"a","y":0.2,"z":"ab","extra":3}`,
	`{"child":{"child":{"v":1}},"v":2}`,
	`{"u":[1,"1",true,null,[1],{"a":1}]}`,
	`{"big":9007199254740993}`,
}

// mutate changes one thing in v: a member's value, a member removed or
// added, an array element replaced.
func mutate(r *rand.Rand, v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		if len(keys) == 0 || r.IntN(4) == 0 {
			x["extra"] = randomValue(r, 2)
			return x
		}
		k := keys[r.IntN(len(keys))]
		switch r.IntN(3) {
		case 0:
			delete(x, k)
		case 1:
			x[k] = randomValue(r, 2)
		default:
			x[k] = mutate(r, x[k])
		}
		return x
	case []any:
		if len(x) == 0 {
			return append(x, randomValue(r, 2))
		}
		i := r.IntN(len(x))
		if r.IntN(2) == 0 {
			x[i] = randomValue(r, 2)
		} else {
			x[i] = mutate(r, x[i])
		}
		return x
	}
	return randomValue(r, 3)
}

// The quick check never calls valid what the validator rejects, and it
// does decide most of the valid values on its own.
func TestQuickAgreesWithValidator(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8, 2026))
	for _, c := range quickSchemas {
		s := mustCompile(t, c.schema, c.d)
		quickValid, valid := 0, 0
		for n := range 20000 {
			v := randomValue(r, 0)
			if n%2 == 0 { // near a valid value: one change to a sample
				v = mutate(r, mustDecode(t, []byte(quickSamples[r.IntN(len(quickSamples))])))
			}
			raw, _ := json.Marshal(v)
			if r.IntN(3) == 0 {
				raw = []byte(" \n" + strings.ReplaceAll(string(raw), ",", " ,\t") + " ")
			}
			assertQuickSound(t, s, raw)
			if s.quick.valid(raw, 0) {
				quickValid++
			}
			if err := s.validator.Validate(mustDecode(t, raw)); err == nil {
				valid++
			}
		}
		t.Logf("%.60s…: %d valid, %d proved by the quick check", c.schema, valid, quickValid)
	}
}

func assertQuickSound(t *testing.T, s *Schema, raw []byte) {
	t.Helper()
	if s.quick.valid(raw, 0) {
		if err := s.validator.Validate(mustDecode(t, raw)); err != nil {
			t.Fatalf("quick check accepts %s, the validator does not: %v", raw, err)
		}
	}
}

func mustDecode(t *testing.T, raw []byte) any {
	t.Helper()
	v, err := decode(raw)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}

// Typical valid arguments are proved without the validator; keywords the
// quick check does not handle leave it to the validator.
func TestQuickDecidesTypicalValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		schema int
		value  string
		quick  bool
	}{
		{0, `{"path":"/srv/a.md","head":10}`, true},
		{1, `{"location":"Chicago","units":"metric"}`, true},
		{1, `{"location":"\u00e9","units":1}`, true},
		{2, `{"edits":[{"old":"a","new":"b"}],"dryRun":false}`, true},
		{3, `{"labels":["bug","ci-1"],"assignee":null,"n":5}`, true},
		{5, `{"child":{"child":{"v":1}},"v":2}`, true},
		{3, `{"labels":["bug","bug"]}`, false}, // a violation
		{0, `{"path":"/srv/a.md","head":1.0}`, false},
		{6, `{"a":"x"}`, false}, // oneOf: the validator's
		{9, `{"f":"not-an-email"}`, true},
		{9, `{"r":"("}`, false}, // draft-07: the library asserts format regex
	} {
		s := mustCompile(t, quickSchemas[c.schema].schema, quickSchemas[c.schema].d)
		if got := s.quick.valid([]byte(c.value), 0); got != c.quick {
			t.Errorf("%s against schema %d: quick %v, want %v", c.value, c.schema, got, c.quick)
		}
		assertQuickSound(t, s, []byte(c.value))
	}
}

func FuzzQuickAgreesWithValidator(f *testing.F) {
	for i := range quickSchemas {
		f.Add(i, `{"path":"a","head":3}`)
		f.Add(i, `{"labels":["a","b"],"n":1}`)
		f.Add(i, `{"child":{"v":1},"edits":[{"old":"x","new":"y"}]}`)
	}
	schemas := make([]*Schema, len(quickSchemas))
	for i, c := range quickSchemas {
		schemas[i] = Compile([]byte(c.schema), c.d)
	}
	f.Fuzz(func(t *testing.T, i int, value string) {
		if i < 0 || !json.Valid([]byte(value)) {
			return
		}
		s := schemas[i%len(schemas)]
		raw := []byte(value)
		if s.quick.valid(raw, 0) {
			v, err := decode(raw)
			if err != nil {
				return // nesting beyond the decoder's bound
			}
			if err := s.validator.Validate(v); err != nil {
				t.Fatalf("quick check accepts %s against %s, the validator does not: %v", raw, quickSchemas[i%len(schemas)].schema, err)
			}
		}
	})
}

func ExampleViolation() {
	s := Compile([]byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`), Draft2020)
	vs, _ := s.Validate([]byte(`{"n":"seven"}`))
	fmt.Println(vs[0])
	// Output: at $.n: type (got string, want integer)
}
