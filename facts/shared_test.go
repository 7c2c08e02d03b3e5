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
	set := &mcp.ToolSet{}
	set.Add(mcp.Tool{Name: name, HasName: true, Raw: []byte(`{"name":"` + name + `"}`)})
	return set
}

// Listings are shared only when every field of every tool is the same,
// whatever is added to a tool later; an absent member is not an empty one.
func TestSameToolComparesEveryField(t *testing.T) {
	t.Parallel()
	var base mcp.Tool
	v := reflect.ValueOf(&base).Elem()
	for i := 0; i < v.NumField(); i++ {
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.SetBytes([]byte("{}"))
		default:
			t.Fatalf("field %s of kind %s: sameTool cannot compare it", v.Type().Field(i).Name, f.Kind())
		}
	}
	same := base
	if !sameTool(&base, &same) {
		t.Fatal("a tool differs from its copy")
	}
	for i := 0; i < v.NumField(); i++ {
		other := base
		f := reflect.ValueOf(&other).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("y")
		case reflect.Bool:
			f.SetBool(false)
		case reflect.Slice:
			f.SetBytes([]byte("[]"))
		}
		if sameTool(&base, &other) {
			t.Errorf("tools that differ in %s compare the same", v.Type().Field(i).Name)
		}
		if f.Kind() == reflect.Slice {
			f.SetBytes(nil)
			absent, empty := other, other
			reflect.ValueOf(&empty).Elem().Field(i).SetBytes([]byte{})
			if sameTool(&absent, &empty) {
				t.Errorf("an absent %s compares the same as an empty one", v.Type().Field(i).Name)
			}
		}
	}
}
