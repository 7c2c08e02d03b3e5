package toolschema

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// decode reads what jsonschema.UnmarshalJSON reads, the same way.
func TestDecodeMatchesUnmarshalJSON(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-1.5e+10`, `"x"`,
		` { "a" : [1, 2.0, "three", {"b": null}], "c": "\u00e9\n\"q\"", "d": {}, "e": [] } `,
		`{"big":9007199254740993,"a":1,"a":2}`,
		`"\ud83d\ude00 \/ \\"`,
	} {
		want, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(in)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := decode([]byte(in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, %v; want %#v", in, got, err, want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `[1 2]`, `tru`, `01`, `"a`, `{} {}`, `{"a":1]`, strings.Repeat("[", 20000)} {
		if v, err := decode([]byte(bad)); err == nil {
			t.Errorf("%q decoded as %#v", bad, v)
		}
	}
}
