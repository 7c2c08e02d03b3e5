package usage

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/mcp"
)

// A tool never called is kept in the server's compact list, not as a
// record; whatever the order of listings and calls, the summary says what
// records for every tool would: advertised once any listing named it,
// the properties of the latest listing that did, calls as counted. The
// model here is that plain record-per-tool collector.
func TestListedToolsAreWhatRecordsWouldBe(t *testing.T) {
	t.Parallel()
	names := []string{"a", "b", "c", "d", "e", "f", "g"}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		c := New(0)
		c.File("a.jsonl")
		sv := c.server("db")
		type want struct {
			advertised bool
			declared   []string
			calls      int64
		}
		model := map[string]*want{}
		of := func(n string) *want {
			if model[n] == nil {
				model[n] = &want{}
			}
			return model[n]
		}
		var sets []*mcp.ToolSet
		var log []string
		for range 12 {
			switch op := rng.IntN(4); {
			case op == 0 && len(sets) > 0: // a listing seen before, the same set
				set := sets[rng.IntN(len(sets))]
				log = append(log, fmt.Sprintf("again %p", set))
				sv.mergeListing(set)
				for i := range set.Len() {
					d := set.Tool(i)
					w := of(d.Name)
					w.advertised, w.declared = true, declaredProperties(d.InputSchema)
				}
			case op <= 1:
				var defs []string
				for range rng.IntN(5) {
					n := names[rng.IntN(len(names))]
					var props []string
					for range rng.IntN(3) {
						props = append(props, fmt.Sprintf(`"p%d":{}`, rng.IntN(4)))
					}
					defs = append(defs, `{"name":"`+n+`","inputSchema":{"type":"object","properties":{`+strings.Join(props, ",")+`}}}`)
				}
				set, ok := mcp.NewToolSet([]byte("[" + strings.Join(defs, ",") + "]"))
				if !ok {
					t.Fatal("not a tools array")
				}
				log = append(log, fmt.Sprintf("list %p %s", set, defs))
				sets = append(sets, set)
				sv.mergeListing(set)
				for i := range set.Len() {
					d := set.Tool(i)
					w := of(d.Name)
					w.advertised, w.declared = true, declaredProperties(d.InputSchema)
				}
			default:
				n := names[rng.IntN(len(names))]
				log = append(log, "call "+n)
				sv.tool(n).calls++
				of(n).calls++
			}
		}
		sum := c.Summary().Server("db")
		var got, wanted []string
		for _, ts := range sum.ToolStats {
			got = append(got, fmt.Sprintf("%s advertised=%v calls=%d declared=%v never=%v", ts.Name, ts.Advertised, ts.Calls, ts.Declared, ts.NeverPassed))
		}
		var neverCalled []string
		for _, n := range slices.Sorted(func(yield func(string) bool) {
			for n := range model {
				if !yield(n) {
					return
				}
			}
		}) {
			w := model[n]
			d := append([]string{}, w.declared...)
			wanted = append(wanted, fmt.Sprintf("%s advertised=%v calls=%d declared=%v never=%v", n, w.advertised, w.calls, d, d))
			if w.advertised && w.calls == 0 {
				neverCalled = append(neverCalled, n)
			}
		}
		if !slices.Equal(got, wanted) {
			t.Fatalf("seed %d, after\n%s\ngot\n%s\nwant\n%s", seed, strings.Join(log, "\n"), strings.Join(got, "\n"), strings.Join(wanted, "\n"))
		}
		if !slices.Equal(sum.Tools.NeverCalled, append([]string{}, neverCalled...)) && len(neverCalled)+len(sum.Tools.NeverCalled) > 0 {
			t.Fatalf("seed %d: never called %v, want %v", seed, sum.Tools.NeverCalled, neverCalled)
		}
	}
}

// A listing's never-called tools cost the server their names and
// properties, not a record each: counted in heap bytes after a
// collection (a record per tool held about 170 bytes).
func TestNeverCalledToolsAreKeptCompactly(t *testing.T) { // not parallel: it counts the heap
	const n = 20_000
	var defs []string
	for i := range n {
		defs = append(defs, fmt.Sprintf(`{"name":"tool_%d","description":"reads a file","inputSchema":{"type":"object","properties":{"path_%d":{"type":"string"}}}}`, i, i))
	}
	set, ok := mcp.NewToolSet([]byte("[" + strings.Join(defs, ",") + "]"))
	if !ok {
		t.Fatal("not a tools array")
	}
	c := New(0)
	sv := c.server("catalogue")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sv.mergeListing(set)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perTool := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("%d bytes a listed tool", perTool)
	if perTool > 40 {
		t.Errorf("%d bytes a listed tool", perTool)
	}
	if sv.listedOnly.len() != n || len(sv.tools) != 0 {
		t.Errorf("%d listed, %d records", sv.listedOnly.len(), len(sv.tools))
	}
	runtime.KeepAlive(set)
	runtime.KeepAlive(c)
}
