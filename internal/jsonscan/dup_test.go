package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEachMemberStrict(t *testing.T) {
	t.Parallel()
	many := func(n int, extra string) string {
		var b strings.Builder
		b.WriteString(`{`)
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		b.WriteString(extra + `"last":true}`)
		return b.String()
	}
	nested := func(depth int, innermost string) string {
		s := innermost
		for i := range depth {
			s = fmt.Sprintf(`{"a%d":1,"b%d":[2],"c":%s}`, i, i, s)
		}
		return s
	}
	cases := []struct {
		json     string
		deep     bool
		name, in string // "" name: no duplicate
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping","id":2}`, false, "id", ""},
		{`{"jsonrpc":"2.0","\u0069d":1,"id":2}`, false, "id", ""},
		{`{"id":1,"params":{"name":"a","name":"b"}}`, false, "", ""},
		{`{"id":1,"params":{"name":"a","name":"b"}}`, true, "name", "params"},
		{`{"result":{"content":[{"type":"text","text":"a"},{"type":"text","type":"image"}]}}`, true, "type", "content"},
		{`{"a":{"x":1},"b":{"x":1},"x":{"a":1,"b":2}}`, true, "", ""},
		{`{"a":{"x":1,"y":{"z":1,"x":3}},"x":2,"y":3,"z":4}`, true, "", ""},
		{`{"a":[{"x":1},{"x":2}],"b":[[{"y":1,"y\u0000":2}]]}`, true, "", ""},
		{`{"a\"b":1,"a\\b":2}`, false, "", ""},
		{`{"a\"b":1,"a\u0022b":2}`, false, `a"b`, ""},
		{many(40, ""), false, "", ""},
		{many(40, `"k3":0,`), false, "k3", ""},
		{many(40, `"k39":0,`), false, "k39", ""},
		{nested(30, `{"x":1,"y":2}`), true, "", ""},
		{nested(30, `{"x":1,"y":2,"x":3}`), true, "x", "c"},
		{nested(30, `{"x":1}`)[:len(nested(30, `{"x":1}`))-1] + `,"a29":5}`, true, "a29", ""},
	}
	for _, c := range cases {
		var members []string
		dup, err := EachMemberStrict([]byte(c.json), c.deep, func(name, _ []byte) { members = append(members, string(name)) })
		if err != nil {
			t.Errorf("%.60s: %v", c.json, err)
			continue
		}
		switch {
		case c.name == "" && dup != nil:
			t.Errorf("%.60s (deep %v): found %+v, want none", c.json, c.deep, dup)
		case c.name != "" && (dup == nil || dup.Name != c.name || dup.In != c.in):
			t.Errorf("%.60s (deep %v): found %+v, want %q in %q", c.json, c.deep, dup, c.name, c.in)
		}
		if len(members) == 0 {
			t.Errorf("%.60s: members not handed out", c.json)
		}
	}
	if _, err := EachMemberStrict([]byte(`{"a":1,"a":`), true, func(_, _ []byte) {}); err == nil {
		t.Error("broken JSON is still an error")
	}
}

// FuzzEachMemberStrict compares the scanner with encoding/json's tokens.
func FuzzEachMemberStrict(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1,"c":[{"d":1,"d":2}]},"e":1}`))
	f.Add([]byte(`{"x":1,"\u0078":2}`))
	f.Add([]byte(`{"a":{},"a":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || !json.Valid(data) {
			return // invalid UTF-8 names compare as U+FFFD in encoding/json
		}
		dup, err := EachMemberStrict(data, true, func(_, _ []byte) {})
		if err != nil {
			if FirstByte(data) == '{' {
				t.Fatalf("valid JSON object rejected: %v", err)
			}
			return
		}
		want := firstDuplicate(t, data)
		got := ""
		if dup != nil {
			got = dup.Name
		}
		if got != want {
			t.Fatalf("duplicate %q, want %q", got, want)
		}
	})
}

// firstDuplicate is the reference: the first name repeated within one
// object, in document order, by encoding/json's tokenizer.
func firstDuplicate(t *testing.T, data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object bool
		names  map[string]bool
		key    bool // the next string token is a member name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return ""
		}
		if err != nil {
			t.Fatalf("reference: %v", err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if name, ok := tok.(string); ok && top != nil && top.object && top.key {
			if top.names[name] {
				return name
			}
			top.names[name] = true
			top.key = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, names: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = true // a value ended: a name comes next
		}
	}
}

// An object that moved to a map gives its stack places to the objects
// nested in it: thousands of small property objects inside a large
// properties object allocate nothing of their own, and duplicates are
// still found at both levels. Not parallel: it counts allocations.
func TestLargeObjectLeavesTheStackToItsMembers(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"a":{"b":{"c":{"type":"object","properties":{`)
	for i := 0; i < 5000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"field_%d":{"type":"string","pattern":"^x$","description":"d"}`, i)
	}
	b.WriteString(`}}}}}`)
	doc := []byte(b.String())
	allocs := testing.AllocsPerRun(5, func() {
		if dup, err := EachMemberStrict(doc, true, func(name, val []byte) {}); err != nil || dup != nil {
			t.Fatal(dup, err)
		}
	})
	if allocs > 100 { // the one map of the properties object, as it grows (not one per property)
		t.Errorf("%v allocations for one large object of small ones", allocs)
	}
	late := bytes.Replace(doc, []byte(`"field_4999":{"type":"string","pattern"`), []byte(`"field_4999":{"type":"string","type"`), 1)
	if dup, _ := EachMemberStrict(late, true, func(name, val []byte) {}); dup == nil || dup.Name != "type" {
		t.Errorf("a duplicate in the last small object: %+v", dup)
	}
	again := bytes.Replace(doc, []byte(`"field_4999"`), []byte(`"field_7"`), 1)
	if dup, _ := EachMemberStrict(again, true, func(name, val []byte) {}); dup == nil || dup.Name != "field_7" {
		t.Errorf("a duplicate in the large object: %+v", dup)
	}
}
