package toolschema

import (
	"fmt"
	"reflect"
	"testing"
)

// listingSchemas makes n distinct schemas; every seventh uses oneOf, every
// eleventh does not compile, every thirteenth declares draft-07.
func listingSchemas(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		switch {
		case i%11 == 0:
			out[i] = fmt.Appendf(nil, `{"type":"object","properties":{"p_%d":{"type":"strin"}}}`, i)
		case i%7 == 0:
			out[i] = fmt.Appendf(nil, `{"type":"object","properties":{"p_%d":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, i)
		case i%13 == 0:
			out[i] = fmt.Appendf(nil, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p_%d":{"type":"string"}}}`, i)
		default:
			out[i] = fmt.Appendf(nil, `{"type":"object","properties":{"p_%d":{"type":"string"}}}`, i)
		}
	}
	return out
}

// judgeTwice judges every schema of a listing twice, as tool-schema-invalid
// and schema-construct do, and returns what the second pass saw and how
// many compilations both took.
func judgeTwice(t *testing.T, owner *int, schemas [][]byte) ([]*Schema, int64) {
	t.Helper()
	before := Compilations()
	for i, raw := range schemas {
		ListingOf(owner, len(schemas), Draft2020).Get(i, raw)
	}
	l := ListingOf(owner, len(schemas), Draft2020)
	second := make([]*Schema, len(schemas))
	for i, raw := range schemas {
		second[i] = l.Get(i, raw)
	}
	return second, Compilations() - before
}

// sameVerdict compares what the listing's rules read of a schema.
func sameVerdict(t *testing.T, i int, got, want *Schema) {
	t.Helper()
	if got.Dialect != want.Dialect || got.Declared != want.Declared || got.Unjudged != want.Unjudged ||
		fmt.Sprint(got.Err) != fmt.Sprint(want.Err) || !reflect.DeepEqual(got.Constructs, want.Constructs) {
		t.Fatalf("schema %d: verdict %+v, compiled %+v", i, got, want)
	}
}

// TestAListingIsCompiledOnceForItsRules: two rules judging a listing of
// 3,000 distinct schemas (more than the Shared cache holds) compile each
// schema that is not plain once, and see what a compilation says. Not parallel: it
// counts on the process-wide counter.
func TestAListingIsCompiledOnceForItsRules(t *testing.T) {
	schemas := listingSchemas(3000)
	owner := new(int)
	compiledOnce := int64(0) // the schemas plain leaves to the compiler
	for _, raw := range schemas {
		if !plain(raw) {
			compiledOnce++
		}
	}
	second, compiled := judgeTwice(t, owner, schemas)
	if compiled != compiledOnce || compiledOnce < int64(len(schemas))/5 {
		t.Errorf("%d compilations for a listing of %d schemas judged twice, %d of them not plain", compiled, len(schemas), compiledOnce)
	}
	for i, raw := range schemas {
		sameVerdict(t, i, second[i], Compile(raw, Draft2020))
	}
	if second[1] != second[2] || second[1].Usable() {
		t.Error("clean schemas do not share one verdict without a validator")
	}
}

// TestAListingsVerdictsCostAtMostItsSchemas: verdicts that hold more than
// a pointer (every schema invalid, each with its message) are kept only
// while they cost no more than the schemas judged plus listingFloor; the
// others are compiled again, and say the same.
func TestAListingsVerdictsCostAtMostItsSchemas(t *testing.T) {
	schemas := make([][]byte, 6000)
	size := 0
	for i := range schemas {
		schemas[i] = fmt.Appendf(nil, `{"type":"strin%d"}`, i)
		size += len(schemas[i])
	}
	owner := new(int)
	second, compiled := judgeTwice(t, owner, schemas)
	kept := ListingOf(owner, len(schemas), Draft2020).Kept()
	if kept > size+listingFloor {
		t.Errorf("verdicts keep %d bytes for %d bytes of schemas", kept, size)
	}
	if compiled == int64(len(schemas)) || kept < listingFloor/2 {
		t.Errorf("%d compilations, %d bytes kept: the budget was not reached, the test proves nothing", compiled, kept)
	}
	for i, raw := range schemas {
		if second[i].Err == nil {
			t.Fatalf("schema %d: %s compiles", i, raw)
		}
		sameVerdict(t, i, second[i], Compile(raw, Draft2020))
	}
}

// TestAListingIsItsOwnerAndDialect: verdicts are shared only by the same
// listing under the same dialect, and the next listing lets them go.
func TestAListingIsItsOwnerAndDialect(t *testing.T) {
	a, b := new(int), new(int)
	la := ListingOf(a, 2, Draft2020)
	if ListingOf(a, 2, Draft2020) != la {
		t.Error("the same listing asked twice got new verdicts")
	}
	if ListingOf(a, 2, Draft7) == la {
		t.Error("another dialect shares the listing's verdicts")
	}
	if ListingOf(b, 2, Draft2020) == la || ListingOf(a, 2, Draft2020) == la {
		t.Error("verdicts outlived the next listing")
	}
	// The same bytes under another dialect are another verdict.
	raw := []byte(`{"type":"object","properties":{"p":{"type":"string"}}}`)
	if d := ListingOf(b, 2, Draft7).Get(0, raw).Dialect; d != Draft7 {
		t.Errorf("dialect %v, want draft-07", d)
	}
}
