package toolschema

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomSchema makes a schema of plain's keywords, now and then one of a
// shape plain must refuse or a value that does not compile.
func randomSchema(r *rand.Rand, depth int) string {
	var members []string
	pick := func(options ...string) string { return options[r.IntN(len(options))] }
	if r.IntN(8) > 0 {
		members = append(members, `"type":`+pick(`"object"`, `"string"`, `"integer"`, `"number"`, `"boolean"`, `"array"`, `"null"`, `"strin"`, `["string","null"]`, `"Object"`))
	}
	if r.IntN(3) == 0 {
		members = append(members, `"description":`+pick(`"Path of the file"`, `"a \"quoted\" word"`, `17`, `""`))
	}
	if r.IntN(6) == 0 {
		members = append(members, `"title":"T"`)
	}
	if r.IntN(5) == 0 {
		members = append(members, `"additionalProperties":`+pick(`false`, `true`, `{}`, `"no"`))
	}
	if depth < 3 && r.IntN(4) == 0 {
		members = append(members, `"items":`+pick(randomSchema(r, depth+1), `true`, `[]`))
	}
	if depth < 3 && r.IntN(2) == 0 {
		var props []string
		for i := range r.IntN(4) {
			props = append(props, fmt.Sprintf(`"p%d":%s`, i, randomSchema(r, depth+1)))
		}
		if r.IntN(10) == 0 && len(props) > 0 {
			props = append(props, props[0]) // a duplicate name
		}
		members = append(members, `"properties":{`+strings.Join(props, ",")+`}`)
	}
	if r.IntN(3) == 0 {
		members = append(members, `"required":`+pick(`["p0"]`, `["p0","p1"]`, `[]`, `["p0","p0"]`, `["p\u0030","p0"]`, `"p0"`, `[1]`))
	}
	if r.IntN(12) == 0 {
		members = append(members, pick(`"$schema":"http://json-schema.org/draft-07/schema#"`, `"oneOf":[{"type":"string"}]`,
			`"pattern":"^a"`, `"enum":["a"]`, `"$ref":"#"`, `"minimum":1`, `"default":null`, `"type":"string"`))
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return "{" + strings.Join(members, ",") + "}"
}

// TestPlainSchemasCompileClean: every schema plain accepts compiles with
// nothing to say under every dialect, so judging it from its bytes gives
// the verdict a compilation would. The generator's near misses (a wrong
// type name, an empty or repeated required, an untyped property, another
// keyword) keep the test from passing by accepting nothing.
func TestPlainSchemasCompileClean(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 26))
	accepted, refused := 0, 0
	for range 1500 {
		raw := []byte(randomSchema(r, 0))
		if !plain(raw) {
			refused++
			continue
		}
		accepted++
		for d := DialectUnknown; d <= Draft2020; d++ {
			if v := verdictOf(Compile(raw, d), d); v != cleanVerdict(d) {
				t.Fatalf("plain %s under %v: %+v", raw, d, v)
			}
		}
	}
	t.Logf("%d plain, %d not", accepted, refused)
	if accepted < 150 || refused < 150 {
		t.Errorf("%d plain and %d other schemas: the generator does not test both sides", accepted, refused)
	}
	// The schemas of sessiontest.ManyTools and of typical servers are plain.
	for _, s := range []string{
		`{"type":"object","properties":{"path_7":{"type":"string"}}}`,
		`{"type":"object","properties":{"path":{"type":"string","description":"Path of the file"},"recursive":{"type":"boolean"}},"required":["path"],"additionalProperties":false}`,
	} {
		if !plain([]byte(s)) {
			t.Errorf("%s is not plain", s)
		}
	}
}
