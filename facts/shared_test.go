package facts

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/mcp"
)

const listing = `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","description":"bee","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}}`

// Two sessions that list the same tools share one listing, and its
// definitions as a baseline compares them; a session that lists other
// tools keeps its own.
func TestSessionsShareTheSameListing(t *testing.T) {
	t.Parallel()
	capture := func(result string) string {
		return env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`) + env(2, "s2c", result)
	}
	tools := func(set *Set) *mcp.ToolSet { return set.Get(Catalogue.Key()).(*CatalogueTracker).Tools.Current }
	defs := func(set *Set) baseline.Definitions {
		return set.Get(ToolListings.Key()).(*ToolListingsTracker).List[0].Definitions
	}
	a := feed(t, capture(listing), ToolListings.Key())
	b := feed(t, capture(listing), ToolListings.Key())
	other := feed(t, capture(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`), ToolListings.Key())
	if tools(a) == nil || tools(a) != tools(b) {
		t.Fatal("two sessions listing the same tools keep two listings")
	}
	if tools(other) == tools(a) {
		t.Fatal("a session listing other tools shares the listing of the first")
	}
	da, db := defs(a), defs(b)
	if !reflect.DeepEqual(da, baseline.FromToolSet(tools(a), da.Revision)) || &da.Tools[0] != &db.Tools[0] {
		t.Error("the definitions of one listing are not shared, or not those of the listing")
	}
	if d := defs(other); len(d.Tools) != 1 {
		t.Errorf("the other session's definitions: %+v", d)
	}
	runtime.KeepAlive(b)
}

// The pool holds listings for the sessions that use them, not for itself:
// however many listings a run sees, it keeps entries for about those in
// use.
func TestListingPoolForgetsUnusedListings(t *testing.T) {
	t.Parallel()
	p := &listingPool{}
	kept := p.share(toolSet("kept"))
	for i := 0; i < 5000; i++ {
		set := p.share(toolSet(fmt.Sprint("gone-", i)))
		p.definitions(set, "2025-11-25")
		if i%250 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	p.share(toolSet("last")) // a sweep may follow
	if n := len(p.sets) + len(p.defs); n > 1200 {
		t.Errorf("the pool holds %d entries after 5,000 listings no session keeps", n)
	}
	if again := p.share(toolSet("kept")); again != kept {
		t.Error("a listing in use was forgotten")
	}
}

func toolSet(name string) *mcp.ToolSet {
	set, _ := mcp.NewToolSet([]byte(`[{"name":"` + name + `"}]`))
	return set
}

// Listings are shared only when every field of every tool is the same:
// sameTools compares the definitions' bytes, so each field a tool has must
// be read from them, and a listing that differs in it is another.
func TestSameToolsComparesEveryField(t *testing.T) {
	t.Parallel()
	const base = `{"name":"x","title":"t","description":"d","inputSchema":{},"outputSchema":{},"annotations":{},"icons":[],"_meta":{}}`
	variants := map[string]string{ // a field of mcp.Tool: a definition that differs in it
		"Name":         `{"name":"y","title":"t","description":"d","inputSchema":{},"outputSchema":{},"annotations":{},"icons":[],"_meta":{}}`,
		"HasName":      `{"name":1,"title":"t","description":"d","inputSchema":{},"outputSchema":{},"annotations":{},"icons":[],"_meta":{}}`,
		"Title":        `{"name":"x","title":"u","description":"d","inputSchema":{},"outputSchema":{},"annotations":{},"icons":[],"_meta":{}}`,
		"Description":  `{"name":"x","title":"t","description":"e","inputSchema":{},"outputSchema":{},"annotations":{},"icons":[],"_meta":{}}`,
		"InputSchema":  `{"name":"x","title":"t","description":"d","outputSchema":{},"annotations":{},"icons":[],"_meta":{}}`,
		"OutputSchema": `{"name":"x","title":"t","description":"d","inputSchema":{},"outputSchema":true,"annotations":{},"icons":[],"_meta":{}}`,
		"Annotations":  `{"name":"x","title":"t","description":"d","inputSchema":{},"outputSchema":{},"annotations":{"a":1},"icons":[],"_meta":{}}`,
		"Icons":        `{"name":"x","title":"t","description":"d","inputSchema":{},"outputSchema":{},"annotations":{},"icons":[{}],"_meta":{}}`,
		"Meta":         `{"name":"x","title":"t","description":"d","inputSchema":{},"outputSchema":{},"annotations":{},"icons":[]}`,
		"Raw":          `{"name":"x","title":"t","description":"d","inputSchema":{},"outputSchema":{},"annotations":{},"icons":[],"_meta":{}, "z":0}`,
	}
	set := func(def string) (*mcp.ToolSet, mcp.Tool) {
		s, ok := mcp.NewToolSet([]byte("[" + def + "]"))
		if !ok {
			t.Fatalf("bad test listing %s", def)
		}
		return s, s.Tool(0)
	}
	a, ta := set(base)
	if again, _ := set(base); !sameTools(a, again) {
		t.Fatal("a listing differs from its copy")
	}
	fields := reflect.TypeOf(ta)
	for i := range fields.NumField() {
		field := fields.Field(i).Name
		def, ok := variants[field]
		if !ok {
			t.Errorf("mcp.Tool has a field %s this test does not vary", field)
			continue
		}
		b, tb := set(def)
		if reflect.DeepEqual(reflect.ValueOf(ta).Field(i).Interface(), reflect.ValueOf(tb).Field(i).Interface()) {
			t.Errorf("the variant for %s does not change it", field)
		}
		if sameTools(a, b) {
			t.Errorf("listings that differ in %s compare the same", field)
		}
	}
}
