package mcp

import "testing"

// A tool looked up again is not decoded again: rules look each call's tool
// up, and a capture calls the same few tools all along.
func TestLookupDecodesAToolOnce(t *testing.T) {
	set, ok := NewToolSet([]byte(`[{"name":"read","description":"Reads a file.","inputSchema":{"type":"object"}},{"name":"write","description":"Writes"}]`))
	if !ok {
		t.Fatal("not a tools array")
	}
	for range 3 {
		for _, name := range []string{"read", "write", "read"} {
			tool, ok := set.Lookup(name)
			if !ok || tool.Name != name {
				t.Fatalf("Lookup(%q) = %q, %v", name, tool.Name, ok)
			}
		}
	}
	if _, ok := set.Lookup("delete"); ok {
		t.Error("Lookup found a tool the set does not have")
	}
	if got := set.misses.Load(); got != 2 {
		t.Errorf("%d tools decoded for 9 lookups of 2 tools; want 2", got)
	}
	if tool, _ := set.Lookup("read"); tool.Description != "Reads a file." || string(tool.InputSchema) != `{"type":"object"}` {
		t.Errorf("the tool kept: %+v", tool)
	}
}
