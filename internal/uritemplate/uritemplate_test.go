package uritemplate

import "testing"

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		template, uri string
		want          bool
	}{
		{"file:///{path}", "file:///notes.txt", true},
		{"file:///{path}", "file:///dir/notes.txt", false}, // a simple expansion is one segment
		{"file:///{+path}", "file:///dir/notes.txt", true},
		{"notes://{id}/body", "notes://42/body", true},
		{"notes://{id}/body", "notes://42/title", false},
		{"db://tables{/schema,table}", "db://tables/public/users", true},
		{"search://q{?term,limit}", "search://q?term=x&limit=3", true},
		{"search://q{?term,limit}", "search://q", true},
		{"weather://{city}.json", "weather://paris.json", true},
		{"weather://{city}.json", "weather://paris.xml", false},
		{"a+b://{x}", "a+b://1", true}, // literals are literal, not regexp
		{"a+b://{x}", "aab://1", false},
		{"file:///{path", "file:///x", false}, // not well formed: matches nothing
		{"file:///{}", "file:///", false},
	} {
		tpl, _ := Compile(c.template)
		if got := tpl.Match(c.uri); got != c.want {
			t.Errorf("%s matches %s: %v, want %v", c.template, c.uri, got, c.want)
		}
	}
	if _, ok := Compile("file:///{path"); ok {
		t.Error("an unclosed expression compiles")
	}
}
