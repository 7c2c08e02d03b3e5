package mcp

import (
	"strings"
	"testing"
)

func TestDecodeHeaderValue(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"get_weather", "get_weather", true},
		{"=?base64?5pel5pys6Kqe?=", "日本語", true},
		{"=?base64?IGxlYWRpbmcgc3BhY2U?=", " leading space", true}, // padding dropped
		{"=?base64?not base64!?=", "", false},
		{"=?base64?/w==?=", "", false},               // 0xff is not UTF-8
		{"=?BASE64?YQ==?=", "=?BASE64?YQ==?=", true}, // markers are case-sensitive: a plain value
	}
	for _, c := range cases {
		got, ok := DecodeHeaderValue(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("DecodeHeaderValue(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestHeaderAnnotations(t *testing.T) {
	t.Parallel()
	schema := []byte(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"count":{"type":["integer","null"],"x-mcp-header":"Count"},
		"x-mcp-header":{"type":"string"},
		"opts":{"type":"object","properties":{"dry":{"type":"boolean","x-mcp-header":"Dry-Run"}}},
		"again":{"type":"string","x-mcp-header":"region"},
		"ratio":{"type":"number","x-mcp-header":"Ratio"},
		"blank":{"type":"string","x-mcp-header":""},
		"spaced":{"type":"string","x-mcp-header":"Trace Id"},
		"numeric":{"type":"string","x-mcp-header":7},
		"tags":{"type":"array","items":{"type":"string","x-mcp-header":"Tag"}},
		"either":{"anyOf":[{"type":"string","x-mcp-header":"Either"}]},
		"kind":{"type":"string","default":{"x-mcp-header":"NotASchema"},"enum":["a"]}
	},"$defs":{"d":{"type":"string","x-mcp-header":"Def"}}}`)
	got := HeaderAnnotations(schema)
	want := []struct{ path, header, problem string }{
		{"region", "Region", ""},
		{"count", "Count", ""},
		{"opts.dry", "Dry-Run", ""},
		{"again", "region", "already uses it"},
		{"ratio", "Ratio", "not of type string, integer or boolean"},
		{"blank", "", "empty"},
		{"spaced", "Trace Id", "not a valid header name"},
		{"numeric", "", "JSON number, not a string"},
		{"tags", "Tag", "through items"},
		{"either", "Either", "through anyOf"},
		{"", "Def", "through $defs"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d annotations, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if strings.Join(g.Path, ".") != w.path || g.Header != w.header || (w.problem == "") != (g.Problem == "") || !strings.Contains(g.Problem, w.problem) {
			t.Errorf("annotation %d: %+v, want %+v", i, g, w)
		}
	}
	if a := HeaderAnnotations([]byte(`{"type":"object","x-mcp-header":"Root"}`)); len(a) != 1 || !strings.Contains(a[0].Problem, "root") {
		t.Errorf("root annotation: %+v", a)
	}
}

func TestModernViews(t *testing.T) {
	t.Parallel()
	res := []byte(`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m"}},"b":{"method":7}},"requestState":"s"}`)
	r := InputRequired.Of(NewView("tools/call", nil, res))
	if r == nil || !r.HasInputRequests || !r.HasRequestState || len(r.InputRequests) != 2 || r.InputRequests[0].Key != "a" || r.InputRequests[0].Method != "elicitation/create" || r.InputRequests[1].Method != "" {
		t.Fatalf("InputRequired %+v", r)
	}
	if InputRequired.Of(NewView("tools/call", nil, []byte(`{"resultType":"complete","content":[]}`))) != nil {
		t.Error("a complete result is not input_required")
	}
	listen := []byte(`{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a",3]},"_meta":{}}`)
	f := ListenFilter.Of(NewView("subscriptions/listen", listen, nil))
	if f == nil || !f.ToolsListChanged || f.PromptsListChanged || len(f.ResourceSubscriptions) != 1 {
		t.Fatalf("ListenFilter %+v", f)
	}
	n := []byte(`{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}`)
	if id := SubscriptionID(NewView("notifications/tools/list_changed", n, nil)); string(id) != `"sub-1"` {
		t.Errorf("SubscriptionID %s", id)
	}
}
