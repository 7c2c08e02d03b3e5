package jsonscan

import (
	"strings"
	"testing"
)

func TestFirstText(t *testing.T) {
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
