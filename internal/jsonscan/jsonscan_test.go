package jsonscan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestFirstText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat(`ab\"\u00e9`, 1000)
	cases := []struct {
		content string
		want    string
		ok      bool
	}{
		{`[{"type":"image","data":"AAAA"},{"type":"text","text":"ENOENT: no such file"}]`, "ENOENT: no such file", true},
		{`[{"text":"no type"},{"type":"resource","resource":{}}]`, "", false},
		{`"not an array"`, "", false},
	}
	for _, c := range cases {
		got, ok := FirstText([]byte(c.content), 64)
		if got != c.want || ok != c.ok {
			t.Errorf("FirstText(%s) = %q %v, want %q %v", c.content, got, ok, c.want, c.ok)
		}
	}
	got, ok := FirstText([]byte(`[{"type":"text","text":"`+long+`"}]`), 64)
	if !ok || len(got) == 0 || len(got) > 64 || !strings.HasPrefix(strings.Repeat(`ab"é`, 1000), got) {
		t.Errorf("prefix of a long text: %q %v", got, ok)
	}
}

func TestStrings(t *testing.T) {
	t.Parallel()
	doc := `{"a":"x","b":[1,"y",{"c\"d":"z"},[true,"w"]],"e":{"f":null,"g":"v\n"},"h":{}}`
	var got []string
	err := Strings([]byte(doc), func(path []PathStep, str []byte) {
		p := ""
		for _, s := range path {
			if s.Key != nil {
				p += "." + string(s.Key)
			} else {
				p += fmt.Sprintf("[%d]", s.Index)
			}
		}
		got = append(got, p+"="+string(str))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`.a="x"`, `.b[1]="y"`, `.b[2].c"d="z"`, `.b[3][1]="w"`, `.e.g="v\n"`}
	if !slices.Equal(got, want) {
		t.Errorf("Strings = %q, want %q", got, want)
	}
	for _, bad := range []string{`{"a":"x"`, `["a",]`, `{"a" "b"}`, `"s" 1`, strings.Repeat("[", MaxDepth+2)} {
		if err := Strings([]byte(bad), func([]PathStep, []byte) {}); err == nil {
			t.Errorf("Strings(%.20q): no error", bad)
		}
	}
	var top []string
	if err := Strings([]byte(` "only" `), func(path []PathStep, str []byte) { top = append(top, fmt.Sprintf("%d %s", len(path), str)) }); err != nil || !slices.Equal(top, []string{`0 "only"`}) {
		t.Errorf("a top-level string: %q, %v", top, err)
	}
}
