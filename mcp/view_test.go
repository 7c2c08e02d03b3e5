package mcp

import "testing"

func TestViewsDecodeOnFirstUseAndCache(t *testing.T) {
	t.Parallel()
	params := []byte(`{"name":"read","arguments":{"path":"/a"},"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
	v := NewView("tools/call", params, nil)
	if v.done != 0 {
		t.Fatal("decoded before anything was asked")
	}
	call, ok := v.CallTool()
	if !ok || call.Name != "read" || !call.HasName || string(call.Arguments) != `{"path":"/a"}` {
		t.Fatalf("CallTool %+v %v", call, ok)
	}
	again, _ := v.CallTool()
	if again != call {
		t.Error("a second ask decoded again")
	}
	if m := v.Meta(); m.ProtocolVersion != "2026-07-28" || string(m.ProgressToken) != "7" || !m.Has("progressToken") {
		t.Errorf("Meta %+v", m)
	}
	if _, ok := v.ListTools(); ok {
		t.Error("a tools/call is not a tools/list")
	}
}

func TestToolResultAndListing(t *testing.T) {
	t.Parallel()
	res := []byte(`{"content":[{"type":"text","text":"a\nb"},{"type":"resource_link","uri":"file:///x"}],"structuredContent":{"n":1},"isError":true}`)
	r, ok := NewView("tools/call", nil, res).ToolResult()
	if !ok || !r.IsError || len(r.Content) != 2 || r.Content[0].Text != "a\nb" || r.Content[1].URI != "file:///x" || string(r.StructuredContent) != `{"n":1}` {
		t.Fatalf("ToolResult %+v", r)
	}
	list := []byte(`{"tools":[{"name":"x","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},{"title":"no name"}],"nextCursor":"c"}`)
	l, ok := NewView("tools/list", nil, list).ListTools()
	if !ok || l.Malformed || !l.HasCursor || l.NextCursor != "c" || l.Tools.Len() != 2 || l.Tools.Tool(1).HasName {
		t.Fatalf("ListTools %+v", l)
	}
	var set ToolSet
	set.AddPage(&l.Tools, nil)
	name := l.Tools.Tool(0).Name
	list[19] = 'X' // the name: the reader reuses its buffer, the page's strings are copies
	list[40] = 'X' // inside inputSchema: the set must own its bytes
	if x, ok := set.Lookup("x"); !ok || string(x.InputSchema) != `{"type":"object"}` || x.Name != "x" || name != "x" {
		t.Errorf("Lookup x: %+v, the page's name %q", x, name)
	}
	if bad, _ := NewView("tools/list", nil, []byte(`{"tools":{}}`)).ListTools(); !bad.Malformed {
		t.Error("tools that is not an array is malformed")
	}
}

func TestCapabilities(t *testing.T) {
	t.Parallel()
	c := Capabilities{Raw: []byte(`{"tools":{"listChanged":true},"prompts":null,"resources":{"subscribe":false},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)}
	if !c.Has("tools") || c.Has("prompts") || !c.Has("resources") || c.Flag("resources", "subscribe") || !c.Flag("tools", "listChanged") || !c.Extension("io.modelcontextprotocol/tasks") || c.Has("logging") {
		t.Errorf("capabilities misread")
	}
	if (Capabilities{}).Known() || !c.Known() {
		t.Error("Known")
	}
}

func TestLazyViewsDecodeOnce(t *testing.T) {
	t.Parallel()
	calls := 0
	level := &Lazy[string]{Decode: func(v *View) string {
		calls++
		return str(Member(v.Params(), "level"))
	}}
	v := NewView("logging/setLevel", []byte(`{"level":"debug"}`), nil)
	if level.Of(v) != "debug" || level.Of(v) != "debug" || calls != 1 {
		t.Errorf("lazy view decoded %d times", calls)
	}
	v.Reset("logging/setLevel", []byte(`{"level":"info"}`), nil)
	if level.Of(v) != "info" || calls != 2 {
		t.Error("a reset view must decode again")
	}
}

// A view seeded with the reader's decode answers from it: none of the
// common members is decoded from the raw bytes again.
func TestSeededViewReadsTheReadersDecode(t *testing.T) {
	t.Parallel()
	params := []byte(`{"name":"read","arguments":{"path":"/a"},"_meta":{"progressToken":7}}`)
	var p ParamFields
	DecodeParams(params, &p)
	p.Name = "seeded" // what the view says comes from the seed, not from params
	p.Meta.ProtocolVersion = "seeded"
	v := NewView("tools/call", params, nil)
	v.Seed(&p, nil)
	if call, ok := v.CallTool(); !ok || call.Name != "seeded" || string(call.Arguments) != `{"path":"/a"}` {
		t.Errorf("CallTool %+v %v", call, ok)
	}
	if m := v.Meta(); m.ProtocolVersion != "seeded" || string(m.ProgressToken) != "7" {
		t.Errorf("Meta %+v", m)
	}
	if v.ParamFields() != &p || v.ResultFields() != nil {
		t.Error("the seed is the view's decode")
	}

	result := []byte(`{"content":[{"type":"text","text":"x"}],"isError":false,"resultType":"complete","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
	var r ResultFields
	DecodeResult(result, &r)
	r.IsError = true
	v = NewView("tools/call", nil, result)
	v.Seed(nil, &r)
	if tr, ok := v.ToolResult(); !ok || !tr.IsError || len(tr.Content) != 1 || tr.Content[0].Text != "x" {
		t.Errorf("ToolResult %+v %v", tr, ok)
	}
	if rt, ok := v.ResultType(); !ok || rt != "complete" {
		t.Errorf("ResultType %q %v", rt, ok)
	}
	if v.Meta().ProtocolVersion != "2026-07-28" {
		t.Error("a response's _meta is its result's")
	}
	if _, ok := v.CallTool(); ok {
		t.Error("a view seeded without params has no tools/call params")
	}
}

// An unseeded view decodes the common members itself, as the reader would.
func TestUnseededViewDecodesTheCommonMembers(t *testing.T) {
	t.Parallel()
	v := NewView("notifications/cancelled", []byte(`{"requestId":3,"reason":"x"}`), []byte(`{"isError":true}`))
	if p := v.ParamFields(); p == nil || string(p.RequestID) != "3" {
		t.Errorf("ParamFields %+v", p)
	}
	if r := v.ResultFields(); r == nil || !r.IsError {
		t.Errorf("ResultFields %+v", r)
	}
	if NewView("x", []byte(`[1]`), []byte(`"s"`)).ParamFields() != nil || NewView("x", nil, []byte(`"s"`)).ResultFields() != nil {
		t.Error("params or a result that is not an object has no fields")
	}
}

// Of a member name used twice, every decode keeps the last value.
func TestDuplicateMembersLastWins(t *testing.T) {
	t.Parallel()
	v := NewView("tools/call", []byte(`{"name":"a","name":"b","_meta":{"progressToken":1},"_meta":{"progressToken":2}}`),
		[]byte(`{"isError":false,"isError":true}`))
	if call, _ := v.CallTool(); call.Name != "b" {
		t.Errorf("name %q", call.Name)
	}
	if m := v.Meta(); string(m.ProgressToken) != "2" {
		t.Errorf("progressToken %s", m.ProgressToken)
	}
	if !v.ResultFields().IsError || string(Member(v.Params(), "name")) != `"b"` {
		t.Error("isError or Member kept a first value")
	}
}

// Reading a tool of a set costs no allocation: its strings share the set's
// copy of the listing (escaped ones aside), and a lookup hashes the name
// into a table built once.
func TestToolSetReadsWithoutAllocating(t *testing.T) {
	set, ok := NewToolSet([]byte(`[{"name":"read","title":"Read","description":"Reads a file.","inputSchema":{"type":"object"}},{"name":"w\u0072ite","description":"Writes"},{"name":"read","description":"second"}]`))
	if !ok || set.Len() != 3 {
		t.Fatalf("NewToolSet: %v, %d tools", ok, set.Len())
	}
	if w, ok := set.Lookup("write"); !ok || w.Description != "Writes" {
		t.Fatalf("an escaped name is not found: %+v", w)
	}
	if r, _ := set.Lookup("read"); r.Description != "Reads a file." {
		t.Errorf("of two tools of one name Lookup found %q, not the first", r.Description)
	}
	if _, ok := set.Lookup("reads"); ok {
		t.Error("a name not listed is found")
	}
	allocs := testing.AllocsPerRun(100, func() {
		tool := set.Tool(0)
		if _, ok := set.Lookup("read"); !ok || tool.Title != "Read" {
			t.Fatal("read is lost")
		}
	})
	if allocs != 0 {
		t.Errorf("reading a tool and looking one up allocate %.0f times, want 0", allocs)
	}
}
