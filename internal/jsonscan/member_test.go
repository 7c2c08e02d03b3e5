package jsonscan

import "testing"

func TestMemberLastWins(t *testing.T) {
	t.Parallel()
	cases := []struct{ obj, name, want string }{
		{`{"a":1,"b":2}`, "b", "2"},
		{`{"a":1,"a":2}`, "a", "2"},
		{`{"a":1,"\u0061":3}`, "a", "3"}, // names compare unescaped
		{`{"a":{"x":1},"b":2}`, "a", `{"x":1}`},
		{` {"a":true} `, "a", "true"},
		{`{"a":1}`, "b", ""},
		{`[{"a":1}]`, "a", ""},
		{``, "a", ""},
	}
	for _, c := range cases {
		if got := string(Member([]byte(c.obj), c.name)); got != c.want {
			t.Errorf("Member(%s, %q) = %q, want %q", c.obj, c.name, got, c.want)
		}
	}
}
