package jsonscan

import (
	"strings"
	"testing"
)

func TestClipPrefix(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a":1,"b":[1,2],"c":"xy`, `{"a":1,"b":[1,2]}`},
		{`{"a":1,"b":[1,2],"c":`, `{"a":1,"b":[1,2]}`},
		{`{"a":1,"b":[1,2`, `{"a":1,"b":[1]}`},
		{`{"a":1,"b":[1,2,`, `{"a":1,"b":[1,2]}`},
		{`{"a":{"isError":true,"content":[{"type":"text","text":"aaa`, `{"a":{"isError":true,"content":[{"type":"text"}]}}`},
		{`{"id":12`, `{}`},
		{`{"a":tru`, `{}`},
		{`{"a":true,`, `{"a":true}`},
		{`{"k"`, `{}`},
		{`[[[`, `[[[]]]`},
		{`{"s":"a\"b","t`, `{"s":"a\"b"}`},
		{`"abc`, ``},
	} {
		got := string(ClipPrefix([]byte(c.in)))
		if got != c.want {
			t.Errorf("ClipPrefix(%s) = %s, want %s", c.in, got, c.want)
		}
		if got != "" {
			if _, err := SkipValue([]byte(got), 0, 0); err != nil {
				t.Errorf("ClipPrefix(%s) = %s: %v", c.in, got, err)
			}
		}
	}
}

func TestClipDepth(t *testing.T) {
	deep := `{"a":"[[[","d":` + strings.Repeat("[", MaxDepth+1) + `1` + strings.Repeat("]", MaxDepth+1) + `,"z":{"e":[1]}}`
	_, err := SkipValue([]byte(deep), 0, 0)
	if !TooDeep(err) {
		t.Fatalf("the deep text does not fail as too deep: %v", err)
	}
	got := ClipDepth([]byte(deep), ClipLevel)
	if _, err := SkipValue(got, 0, 0); err != nil {
		t.Fatalf("clipped: %v", err)
	}
	want := `{"a":"[[[","d":` + strings.Repeat("[", ClipLevel-1) + strings.Repeat("]", ClipLevel-1) + `,"z":{"e":[1]}}`
	if string(got) != want {
		t.Errorf("ClipDepth: %.80s… (%d bytes), want %d bytes", got, len(got), len(want))
	}
	if s := `{"a":[[1]]}`; string(ClipDepth([]byte(s), 3)) != `{"a":[[]]}` {
		t.Errorf("ClipDepth(%s, 3) = %s", s, ClipDepth([]byte(s), 3))
	}
	if _, err := SkipValue([]byte(`{"a":1,}`), 0, 0); TooDeep(err) {
		t.Error("a syntax error reads as too deep")
	}
}

// Any cut of a valid text clips to a valid text, and ClipDepth keeps a
// valid text valid.
func FuzzClipPrefix(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[1,2,{"c":"x\"y"}],"d":true}`), 17)
	f.Add([]byte(`[[[{"k":[]}]]]`), 5)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		if _, err := SkipValue(b, 0, 0); err != nil || len(b) == 0 {
			return
		}
		cut = min(max(cut, 0), len(b))
		prefix := append([]byte(nil), b[:cut]...)
		if got := ClipPrefix(prefix); got != nil {
			if _, err := SkipValue(got, 0, 0); err != nil {
				t.Fatalf("ClipPrefix(%q) = %q: %v", b[:cut], got, err)
			}
		}
		if got := ClipDepth(append([]byte(nil), b...), 3); true {
			if _, err := SkipValue(got, 0, 0); err != nil {
				t.Fatalf("ClipDepth(%q) = %q: %v", b, got, err)
			}
		}
	})
}
