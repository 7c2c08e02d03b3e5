package session

import "testing"

// A frame's View is seeded with the decode correlation reads: rules see the
// very values correlation followed, and nothing is decoded twice.
func TestFrameViewIsTheMessagesDecode(t *testing.T) {
	req := &Frame{Direction: ClientToServer, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","_meta":{"progressToken":"p"}}}`)}
	req.Msg = decodeMessage(req.Raw)
	if req.View().ParamFields() != req.Msg.req || req.Msg.req == nil || req.View().ResultFields() != nil {
		t.Fatal("a request's view is not seeded with its params")
	}
	if m := req.Msg.ParamsMeta(); m != &req.Msg.req.Meta || string(m.ProgressToken) != `"p"` {
		t.Errorf("ParamsMeta %+v", m)
	}
	res := &Frame{Direction: ServerToClient, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`), Call: &Call{Method: "tools/call"}}
	res.Msg = decodeMessage(res.Raw)
	v := res.View()
	if v.ResultFields() != res.Msg.res || !v.ResultFields().IsError || v.Method() != "tools/call" {
		t.Fatal("a response's view is not seeded with its result, or not seen through its call's method")
	}
	if tr, ok := v.ToolResult(); !ok || !tr.IsError {
		t.Error("ToolResult does not read the seeded isError")
	}
}
