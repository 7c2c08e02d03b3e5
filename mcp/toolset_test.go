package mcp

import (
	"strings"
	"testing"
)

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

// A page is kept in place only when it lies in the lasting buffer and is
// most of it: kept, it holds the whole buffer alive.
func TestAddPageKeepsOnlyMostOfALastingBuffer(t *testing.T) {
	const tools = `[{"name":"read"},{"name":"write"}]`
	for _, c := range []struct {
		name   string
		buffer string // the page is its start
		lasts  bool
		kept   bool
	}{
		{"no lasting buffer", tools, false, false},
		{"the page is the buffer", tools, true, true},
		{"the page and a little more", tools + "   ", true, true},
		{"the page and as much again", tools + strings.Repeat(" ", len(tools)), true, false},
	} {
		buf := []byte(c.buffer)
		page, ok := toolList(buf[:len(tools)])
		if !ok {
			t.Fatal("not a tools array")
		}
		var lasting []byte
		if c.lasts {
			lasting = buf
		}
		var set ToolSet
		set.AddPage(&page, lasting)
		raw := set.list.Raw(0)
		if got := &raw[0] == &buf[1]; got != c.kept {
			t.Errorf("%s: the set keeps the page's bytes: %v, want %v", c.name, got, c.kept)
		}
		if name, _ := set.list.Name(1); name != "write" {
			t.Errorf("%s: the second tool is %q", c.name, name)
		}
	}
	one, other := make([]byte, len(tools)), make([]byte, len(tools))
	copy(one, tools)
	copy(other, tools)
	if keepable(one, other) {
		t.Error("a page outside the lasting buffer is keepable")
	}
}
