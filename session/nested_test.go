package session

import (
	"reflect"
	"testing"
)

// A message read with a store decodes its params and result during its one
// walk; what it decodes is what decoding them afterwards gives, for members
// named twice and values of other types too.
func TestParamsAndResultReadInTheWalk(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1},"_meta":{"progressToken":7}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}],"isError":true,"nextCursor":"c"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a"},"params":{"name":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a"},"params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":[1],"params":{"name":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"isError":true},"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"isError":true},"result":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","result":{"isError":true}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working"},"isError":false,"isError":true}}`,
		`{"jsonrpc":"2.0","id":1,"params":{"name":"x"},"result":{"status":"s"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a","name":"b"}}`,
	} {
		want := decodeMessage([]byte(raw))
		got, _, err := readMessage([]byte(raw), 0, 0, &msgStore{})
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got.Kind != want.Kind || got.Problem != want.Problem {
			t.Errorf("%s: kind %v %q, want %v %q", raw, got.Kind, got.Problem, want.Kind, want.Problem)
		}
		if (got.req == nil) != (want.req == nil) || got.req != nil && !reflect.DeepEqual(*got.req, *want.req) {
			t.Errorf("%s: params %+v, want %+v", raw, got.req, want.req)
		}
		if (got.res == nil) != (want.res == nil) || got.res != nil && !reflect.DeepEqual(*got.res, *want.res) {
			t.Errorf("%s: result %+v, want %+v", raw, got.res, want.res)
		}
	}
}
