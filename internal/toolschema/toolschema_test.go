package toolschema

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// recordLoads makes every URL a compiler asks its loader for visible to
// the test. It sets a package variable: tests that call it do not run in
// parallel.
func recordLoads(t *testing.T) *[]string {
	t.Helper()
	var asked []string
	loaderHook = func(url string) { asked = append(asked, url) }
	t.Cleanup(func() { loaderHook = nil })
	return &asked
}

func mustCompile(t *testing.T, schema string, def Dialect) *Schema {
	t.Helper()
	s := Compile([]byte(schema), def)
	if s.Err != nil || s.Unjudged != "" || !s.Usable() {
		t.Fatalf("%s: err %v, unjudged %q", schema, s.Err, s.Unjudged)
	}
	return s
}

func violations(t *testing.T, s *Schema, value string) []string {
	t.Helper()
	vs, err := s.Validate([]byte(value))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range vs {
		out = append(out, v.String())
	}
	return out
}

func sameList(got, want []string) bool {
	return fmt.Sprint(got) == fmt.Sprint(want)
}

// An external $ref is never read nor fetched: the file exists and the
// server listens, yet neither sees a thing, and the rest of the schema
// still validates.
func TestExternalRefsAreNeverFetched(t *testing.T) {
	if _, err := os.Stat("/etc/hostname"); err != nil {
		t.Skip("no /etc/hostname on this system")
	}
	var requests, conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		fmt.Fprint(w, `{"type":"integer"}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	// A file whose content would make "text" invalid if it were used.
	intFile := filepath.Join(t.TempDir(), "integer.json")
	os.WriteFile(intFile, []byte(`{"type":"integer"}`), 0o644)

	asked := recordLoads(t)
	for _, d := range []Dialect{Draft7, Draft2020} {
		schema := `{"type":"object","properties":{` +
			`"host":{"$ref":"file:///etc/hostname"},` +
			`"remote":{"$ref":"` + srv.URL + `/schemas/count.json#/definitions/n"},` +
			`"local":{"$ref":"file://` + intFile + `"},` +
			`"relative":{"$ref":"common.json"},` +
			`"name":{"type":"string"}},"required":["name"]}`
		s := mustCompile(t, schema, d)
		if !s.Constructs.Has(ExternalRef) || s.Constructs.Has(LocalRef) {
			t.Errorf("%v: kinds %b, want an external $ref and no local one", d, s.Constructs.Kinds)
		}
		want := []string{"file:///etc/hostname", srv.URL + "/schemas/count.json#/definitions/n", "file://" + intFile, "common.json"}
		for _, w := range want {
			if !strings.Contains(strings.Join(s.Constructs.ExternalRefs, " "), w) {
				t.Errorf("%v: external refs %q lack %q", d, s.Constructs.ExternalRefs, w)
			}
		}
		// The references accept anything; the rest of the schema holds.
		if got := violations(t, s, `{"host":"x","remote":"x","local":"text","relative":[1],"name":"n"}`); len(got) != 0 {
			t.Errorf("%v: a referenced value was judged: %q", d, got)
		}
		if got := violations(t, s, `{"local":"text","name":7}`); !sameList(got, []string{"at $.name: type (got number, want string)"}) {
			t.Errorf("%v: %q", d, got)
		}
		if got := violations(t, s, `{"host":1}`); !sameList(got, []string{"at $: required (missing property 'name')"}) {
			t.Errorf("%v: %q", d, got)
		}
	}
	if len(*asked) != 0 || requests.Load() != 0 || conns.Load() != 0 {
		t.Errorf("the loader was asked for %q; the server saw %d connections, %d requests", *asked, conns.Load(), requests.Load())
	}
}

// In draft-07 a $ref hides its siblings, in 2020-12 they apply; pointing an
// external reference away keeps each dialect's meaning.
func TestExternalRefKeepsDialectSemantics(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json","type":"string"}}}`
	if got := violations(t, mustCompile(t, schema, Draft7), `{"a":1}`); len(got) != 0 {
		t.Errorf("draft-07 applied a sibling of $ref: %q", got)
	}
	if got := violations(t, mustCompile(t, schema, Draft2020), `{"a":1}`); !sameList(got, []string{"at $.a: type (got number, want string)"}) {
		t.Errorf("2020-12: %q", got)
	}
	// A root that already has its definitions keeps them usable.
	schema = `{"type":"object","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s"},"b":{"$ref":"other.json#/x"}}}`
	s := mustCompile(t, schema, Draft7)
	if !s.Constructs.Has(LocalRef) || !s.Constructs.Has(ExternalRef) {
		t.Errorf("kinds %b", s.Constructs.Kinds)
	}
	if got := violations(t, s, `{"a":1,"b":1}`); !sameList(got, []string{"at $.a: type (got number, want string)"}) {
		t.Errorf("%q", got)
	}
}

// A reference inside a keyword the walk does not know, reached by a JSON
// pointer, is still never fetched.
func TestReferenceBehindPointerIsNeverFetched(t *testing.T) {
	asked := recordLoads(t)
	schema := `{"type":"object","components":{"id":{"$ref":"http://127.0.0.1:1/id.json"}},"properties":{"id":{"$ref":"#/components/id"},"n":{"type":"integer"}}}`
	s := Compile([]byte(schema), Draft2020)
	if s.Err != nil || !s.Constructs.Has(ExternalRef) {
		t.Fatalf("err %v, kinds %b", s.Err, s.Constructs.Kinds)
	}
	if len(*asked) != 1 || (*asked)[0] != "http://127.0.0.1:1/id.json" {
		t.Errorf("the loader was asked for %q", *asked) // asked, and refused: the fallback then points it away
	}
	if got := violations(t, s, `{"id":"x","n":"y"}`); !sameList(got, []string{"at $.n: type (got string, want integer)"}) {
		t.Errorf("%q", got)
	}
}

func TestLocalReferences(t *testing.T) {
	t.Parallel()
	for _, schema := range []string{
		`{"type":"object","$defs":{"x":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/x"}}}`,
		`{"$id":"https://example.com/s.json","type":"object","$defs":{"x":{"type":"string"}},"properties":{"a":{"$ref":"https://example.com/s.json#/$defs/x"}}}`,
		`{"type":"object","$defs":{"x":{"$id":"https://example.com/x.json","type":"string"}},"properties":{"a":{"$ref":"https://example.com/x.json"}}}`,
	} {
		s := mustCompile(t, schema, Draft2020)
		if !s.Constructs.Has(LocalRef) || s.Constructs.Has(ExternalRef) {
			t.Errorf("%s: kinds %b", schema, s.Constructs.Kinds)
		}
		if got := violations(t, s, `{"a":1}`); !sameList(got, []string{"at $.a: type (got number, want string)"}) {
			t.Errorf("%s: %q", schema, got)
		}
	}
}

// A reference cycle neither hangs compilation nor validation, and is not
// blamed on the value.
func TestRecursiveReferences(t *testing.T) {
	t.Parallel()
	for _, schema := range []string{
		`{"$ref":"#"}`,
		`{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"type":"object","properties":{"child":{"$ref":"#"},"n":{"type":"integer"}}}`,
	} {
		s := mustCompile(t, schema, Draft2020)
		if got := violations(t, s, `{"x":1,"child":{"child":{"child":{}}}}`); len(got) != 0 {
			t.Errorf("%s: %q", schema, got)
		}
	}
	s := mustCompile(t, `{"type":"object","properties":{"child":{"$ref":"#"},"n":{"type":"integer"}}}`, Draft2020)
	if got := violations(t, s, `{"child":{"child":{"n":"x"}}}`); !sameList(got, []string{"at $.child.child.n: type (got string, want integer)"}) {
		t.Errorf("%q", got)
	}
}

func TestPatterns(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","properties":{`+
		`"look":{"type":"string","pattern":"(?<=a)b"},`+
		`"back":{"type":"string","pattern":"^(a)\\1$"},`+
		`"many":{"type":"string","pattern":"^a{1001}$"},`+
		`"accent":{"type":"string","pattern":"^caf\\u00e9$"},`+
		`"ctrl":{"type":"string","pattern":"^\\cJ$"},`+
		`"any":{"type":"string","pattern":"^[^]$"},`+
		`"evil":{"type":"string","pattern":"^(a+)+$"}}}`, Draft7)
	if !s.Constructs.Has(ECMAPattern) || !sameList(s.Constructs.Patterns, []string{"(?<=a)b", `^(a)\1$`, "^a{1001}$"}) {
		t.Errorf("skipped patterns %q (kinds %b)", s.Constructs.Patterns, s.Constructs.Kinds)
	}
	if got := violations(t, s, `{"look":"zz","back":"ab","many":"b","accent":"café","ctrl":"\n","any":"\n"}`); len(got) != 0 {
		t.Errorf("%q", got)
	}
	got := violations(t, s, `{"accent":"cafe","any":"ab"}`)
	if !sameList(got, []string{`at $.accent: pattern (does not match pattern "^caf\\u00e9$")`, `at $.any: pattern (does not match pattern "^[^]$")`}) {
		t.Errorf("translated patterns do not apply, or the message shows the value: %q", got)
	}
	// Go's regexp is linear: the classic catastrophic pattern is harmless.
	if got := violations(t, s, `{"evil":"`+strings.Repeat("a", 100000)+`!"}`); len(got) != 1 || !strings.Contains(got[0], "pattern") {
		t.Errorf("%q", got)
	}
	bad := Compile([]byte(`{"type":"object","properties":{"a":{"type":"string","pattern":"(unclosed"}}}`), Draft2020)
	if bad.Err == nil || !strings.Contains(bad.Err.Error(), "/properties/a/pattern") {
		t.Errorf("an invalid pattern: err %v", bad.Err)
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		schema string
		def    Dialect
		want   string
	}{
		{`{"type":"object","properties":{"a":{"type":"strin"}}}`, Draft2020, "at /properties/a/type: value must be one of"},
		{`{"type":"object","required":"a"}`, Draft7, "at /required: got string, want array"},
		{`{"type":"object","properties":{"a":{"$ref":"#/definitions/nope"}}}`, Draft7, `$ref "#/definitions/nope" points at nothing`},
		{`{"type":"object","items":[{"type":"string"}]}`, Draft2020, "at /items: got array, want boolean or object"},
		{`"object"`, Draft2020, "it is a string, not a JSON Schema"},
		{`null`, Draft2020, "it is null, not a JSON Schema"},
	} {
		s := Compile([]byte(c.schema), c.def)
		if s.Err == nil || !strings.Contains(s.Err.Error(), c.want) || strings.Contains(s.Err.Error(), "mem://") {
			t.Errorf("%s: err %v, want %q", c.schema, s.Err, c.want)
		}
	}
	// The same tuple items are fine in draft-07, as is a boolean schema.
	mustCompile(t, `{"type":"object","items":[{"type":"string"}]}`, Draft7)
	mustCompile(t, `true`, Draft2020)
}

func TestDialects(t *testing.T) {
	for rev, want := range map[string]Dialect{"2024-11-05": Draft7, "2025-06-18": Draft7, "2025-11-25": Draft2020, "2026-07-28": Draft2020, "": Draft2020} {
		if got := DefaultDialect(rev); got != want {
			t.Errorf("DefaultDialect(%q) = %v, want %v", rev, got, want)
		}
	}
	for url, want := range map[string]Dialect{
		"http://json-schema.org/draft-07/schema#":       Draft7,
		"https://json-schema.org/draft-07/schema":       Draft7,
		"https://json-schema.org/draft/2020-12/schema":  Draft2020,
		"http://json-schema.org/draft-04/schema#":       Draft4,
		"https://json-schema.org/draft/2019-09/schema#": Draft2019,
	} {
		if got, ok := DialectOf(url); !ok || got != want {
			t.Errorf("DialectOf(%q) = %v, %v", url, got, ok)
		}
	}
	if _, ok := DialectOf("https://example.com/my-meta"); ok {
		t.Error("a custom metaschema is a known dialect")
	}
	asked := recordLoads(t)
	s := mustCompile(t, `{"$schema":"https://example.com/my-meta","type":"object","items":[{"type":"string"}]}`, Draft7)
	if s.Declared != "https://example.com/my-meta" || s.Dialect != Draft7 || len(*asked) != 0 {
		t.Errorf("declared %q, dialect %v, loader asked %q", s.Declared, s.Dialect, *asked)
	}
	if s := mustCompile(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","items":[{"type":"string"}]}`, Draft2020); s.Dialect != Draft7 {
		t.Errorf("dialect %v", s.Dialect)
	}
}

// Formats are annotations in every draft.
func TestFormatsAreNotAsserted(t *testing.T) {
	t.Parallel()
	for _, d := range []Dialect{Draft7, Draft2020} {
		s := mustCompile(t, `{"type":"object","properties":{"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uri"}}}`, d)
		if got := violations(t, s, `{"e":"bob","u":"relative/path"}`); len(got) != 0 {
			t.Errorf("%v: %q", d, got)
		}
	}
}

func TestConstructs(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","properties":{
		"oneOf":{"type":"string"},
		"choice":{"anyOf":[{"type":"string"},{"type":"null"}]},
		"free":{"description":"anything"},
		"also":true,
		"mode":{"enum":["a","b"]},
		"list":{"type":"array","items":{"type":"object","properties":{"deep":{}}}},
		"ex":{"type":"string","default":{"oneOf":1},"examples":[{"allOf":[]}]}
	},"$defs":{"u":{"allOf":[{"not":{"type":"null"}}]}},"if":{"properties":{"k":{"const":1}}},"then":{"oneOf":[{"required":["a"]},{"required":["b"]}]}}`, Draft2020)
	c := s.Constructs
	// the allOf and not sit only in a definition nothing refers to
	for k, want := range map[Kind]bool{OneOf: true, AnyOf: true, AllOf: false, Not: false, LocalRef: false, ExternalRef: false, UntypedProperty: true} {
		if c.Has(k) != want {
			t.Errorf("kind %b: %v, want %v", k, c.Has(k), want)
		}
	}
	if !sameList(sortedCopy(c.Untyped), []string{"also", "deep", "free"}) {
		t.Errorf("untyped %q", c.Untyped)
	}
	// A property named oneOf, and combinators inside data, are nothing.
	s = mustCompile(t, `{"type":"object","properties":{"oneOf":{"type":"string","default":{"anyOf":[]}}}}`, Draft2020)
	if s.Constructs.Kinds != 0 {
		t.Errorf("kinds %b", s.Constructs.Kinds)
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestViolations(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","additionalProperties":false,"properties":{
		"a":{"type":"number"},"b":{"type":"number"},"c":{"type":"string","enum":["x","y"]},
		"list":{"type":"array","items":{"type":"integer"}},
		"odd key":{"type":"boolean"},
		"pick":{"oneOf":[{"type":"string"},{"type":"integer"}]},
		"either":{"anyOf":[{"type":"string"},{"type":"integer"}]}
	},"required":["a","b","c"]}`, Draft2020)
	got := violations(t, s, `{"c":"z","list":[1,"two"],"odd key":"no","pick":true,"either":1.5,"zz":1,"yy":2}`)
	want := []string{
		`at $: additionalProperties (additional properties 'yy', 'zz' not allowed)`,
		`at $: required (missing properties 'a', 'b')`,
		`at $.c: enum (value must be one of 'x', 'y')`,
		`at $.either: anyOf (matches none of its 2 alternatives)`,
		`at $.list[1]: type (got string, want integer)`,
		`at $.pick: oneOf (matches none of its 2 alternatives)`,
		`at $["odd key"]: type (got string, want boolean)`,
	}
	if !sameList(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if got := violations(t, s, `{"a":1,"b":2,"c":"x"}`); len(got) != 0 {
		t.Errorf("a valid value: %q", got)
	}
	// Numbers keep their precision.
	big := mustCompile(t, `{"type":"integer","maximum":9007199254740993}`, Draft2020)
	if got := violations(t, big, `9007199254740993`); len(got) != 0 {
		t.Errorf("%q", got)
	}
}

// A hostile schema costs bounded memory: one over the size limit is not
// decoded, one nested too deep is not compiled. Not parallel: it measures
// the process's allocations.
func TestHostileSchemasAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; b.Len() < 10<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","pattern":"^(a+)+$","description":"%s"}`, i, strings.Repeat("x", 200))
	}
	b.WriteString(`}}`)
	huge := []byte(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := Compile(huge, Draft2020)
	runtime.ReadMemStats(&after)
	if s.Unjudged == "" || s.Usable() || !s.Constructs.Has(Unexamined) {
		t.Errorf("a 10 MB schema was compiled: %+v", s)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("refusing a 10 MB schema allocated %d bytes", grew)
	}
	deep := strings.Repeat(`{"not":`, MaxDepth+1) + `{}` + strings.Repeat(`}`, MaxDepth+1)
	if s := Compile([]byte(deep), Draft2020); s.Unjudged == "" || s.Usable() {
		t.Errorf("a schema %d levels deep was compiled", MaxDepth+1)
	}
	// Just under the limits compiles.
	ok := strings.Repeat(`{"not":`, 100) + `{}` + strings.Repeat(`}`, 100)
	mustCompile(t, ok, Draft2020)
}

// Not parallel: it counts compilations on the package-wide counter.
func TestCacheCompilesOnce(t *testing.T) {
	c := NewCache(2, 1<<20)
	a, b, d := []byte(`{"type":"object"}`), []byte(`{"type":"object","required":["x"]}`), []byte(`{"type":"object","required":["y"]}`)
	start := compiles.Load()
	for range 1000 {
		c.Get(a, Draft2020)
	}
	if n := compiles.Load() - start; n != 1 {
		t.Errorf("1000 lookups compiled %d times", n)
	}
	if c.Get(a, Draft7) == c.Get(a, Draft2020) {
		t.Error("dialects share a compilation")
	}
	c.Get(b, Draft2020)
	c.Get(d, Draft2020)
	if c.Len() != 2 {
		t.Errorf("the cache holds %d entries, its bound is 2", c.Len())
	}
	start = compiles.Load()
	c.Get(d, Draft2020) // most recent: kept
	c.Get(a, Draft7)    // evicted: compiled again
	if n := compiles.Load() - start; n != 1 {
		t.Errorf("%d compilations, want 1", n)
	}
	// Cached finds what Get compiled, counts as a use, and compiles nothing
	kd, ka := KeyOf(d, Draft2020), KeyOf(a, Draft2020)
	if s, ok := c.Cached(kd); !ok || s != c.Get(d, Draft2020) {
		t.Error("Cached does not find a schema the cache holds")
	}
	if _, ok := c.Cached(ka); ok {
		t.Error("Cached finds an evicted schema")
	}
	c.Cached(kd) // d is now the most recent: a under Draft7 goes first
	c.Get(a, Draft2020)
	if _, ok := c.Cached(kd); !ok {
		t.Error("a schema used through Cached was evicted before an older one")
	}
	small := NewCache(100, 40)
	small.Get(a, Draft2020)
	small.Get(b, Draft2020)
	small.Get(d, Draft2020)
	if small.Len() != 1 {
		t.Errorf("a 40-byte budget holds %d schemas", small.Len())
	}
}

func TestCanonical(t *testing.T) {
	t.Parallel()
	a := []byte(`{ "type" : "object", "properties": {"b": {"type":"string"}, "a": {"enum":[1.50, "<&>"]}} }`)
	b := []byte(`{"properties":{"a":{"enum":[1.50,"<&>"]},"b":{"type":"string"}},"type":"object"}`)
	ca, err := Canonical(a)
	if err != nil {
		t.Fatal(err)
	}
	if string(ca) != string(b) {
		t.Errorf("canonical form %s", ca)
	}
	fa, _ := Fingerprint(a)
	fb, _ := Fingerprint(b)
	fc, _ := Fingerprint([]byte(`{"type":"object"}`))
	if fa != fb || fa == fc || len(fa) != 64 {
		t.Errorf("fingerprints %s %s %s", fa, fb, fc)
	}
	if _, err := Canonical([]byte(`{"a":`)); err == nil {
		t.Error("broken JSON has a canonical form")
	}
}

// A schema with several mistakes reads the same every time.
func TestCompileErrorsAreStable(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"e":{"type":"strin"},"b":{"minLength":"x"},"c":{"required":1},"a":{"enum":3}}}`
	first := Compile([]byte(schema), Draft2020).Err
	if first == nil || !strings.HasPrefix(first.Error(), "it breaks its metaschema: at /properties/a/enum") {
		t.Fatalf("err %v", first)
	}
	for range 50 {
		if err := Compile([]byte(schema), Draft2020).Err; err.Error() != first.Error() {
			t.Fatalf("%q then %q", first, err)
		}
	}
}

// Constructs count only where the root reaches them: a shared $defs block
// says nothing until a reachable part refers to one of its members, through
// any chain of references.
func TestConstructsReachableFromTheRoot(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, schema string
		want         map[Kind]bool
		untyped      []string
	}{
		{"unreferenced definitions", `{"type":"object","properties":{"q":{"type":"string"}},
			"$defs":{"a":{"oneOf":[{"type":"string"},{"type":"number"}]},"b":{"type":"object","properties":{"free":{}}}}}`,
			map[Kind]bool{OneOf: false, LocalRef: false, UntypedProperty: false}, nil},
		{"one referenced, one not", `{"type":"object","properties":{"q":{"$ref":"#/$defs/a"}},
			"$defs":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]},"b":{"oneOf":[{"type":"string"},{"type":"number"}]}}}`,
			map[Kind]bool{AnyOf: true, OneOf: false, LocalRef: true}, nil},
		{"a chain of references", `{"type":"object","properties":{"q":{"$ref":"#/$defs/a"}},
			"$defs":{"a":{"type":"object","properties":{"n":{"$ref":"#/$defs/b/properties/x"}}},"b":{"type":"object","properties":{"x":{"not":{"type":"null"}},"free":{}}},"c":{"allOf":[{"type":"string"}]}}}`,
			map[Kind]bool{Not: true, AllOf: false, LocalRef: true, UntypedProperty: true}, []string{"free", "x"}},
		{"draft-07 definitions", `{"type":"object","properties":{"q":{"$ref":"#/definitions/a"}},
			"definitions":{"a":{"type":"string"},"b":{"oneOf":[{"type":"string"},{"type":"number"}]}}}`,
			map[Kind]bool{OneOf: false, LocalRef: true}, nil},
		{"an escaped name", `{"type":"object","properties":{"q":{"$ref":"#/$defs/a~1b"}},
			"$defs":{"a/b":{"oneOf":[{"type":"string"},{"type":"number"}]}}}`,
			map[Kind]bool{OneOf: true}, nil},
		// an anchor cannot be placed without resolving it: every definition counts
		{"an anchor", `{"type":"object","properties":{"q":{"$ref":"#named"}},
			"$defs":{"a":{"$anchor":"named","type":"string"},"b":{"oneOf":[{"type":"string"},{"type":"number"}]}}}`,
			map[Kind]bool{OneOf: true, LocalRef: true}, nil},
		{"a reference from an unreachable definition", `{"type":"object",
			"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"oneOf":[{"type":"string"},{"type":"number"}]}}}`,
			map[Kind]bool{OneOf: false, LocalRef: false}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := mustCompile(t, c.schema, Draft2020).Constructs
			for k, want := range c.want {
				if got.Has(k) != want {
					t.Errorf("kind %b: %v, want %v", k, got.Has(k), want)
				}
			}
			if !sameList(sortedCopy(got.Untyped), c.untyped) {
				t.Errorf("untyped %q, want %q", got.Untyped, c.untyped)
			}
		})
	}
}

// A long chain of definitions is followed to its end, and a large block
// nothing refers to stays out, whatever the order of the definitions.
func TestConstructsReachableThroughALongChain(t *testing.T) {
	t.Parallel()
	var defs []string
	const n = 500
	for i := 0; i < n; i++ {
		next := fmt.Sprintf(`{"$ref":"#/$defs/d%d"}`, i+1)
		if i == n-1 {
			next = `{"oneOf":[{"type":"string"},{"type":"number"}]}`
		}
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"x":%s}}`, i, next))
		defs = append(defs, fmt.Sprintf(`"u%d":{"anyOf":[{"$ref":"#/$defs/u%d"}]}`, i, (i+1)%n))
	}
	doc := `{"type":"object","properties":{"start":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
	c := mustCompile(t, doc, Draft2020).Constructs
	if !c.Has(OneOf) || c.Has(AnyOf) || !c.Has(LocalRef) {
		t.Errorf("kinds %b: want oneOf (the end of the chain) and $ref, not anyOf (the unreferenced ring)", c.Kinds)
	}
}
