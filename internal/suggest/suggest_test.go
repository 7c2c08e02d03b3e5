package suggest

import "testing"

func TestClosest(t *testing.T) {
	t.Parallel()
	commands := []string{"check", "baseline", "suppress", "rules", "explain", "version", "help"}
	signals := []string{"error", "invalid", "warn", "mismatch", "pending", "late-result", "drift", "deprecated", "incomplete", "schema", "contract", "security", "suppression", "none", "all"}
	for _, c := range []struct {
		word       string
		candidates []string
		want       string
	}{
		{"chek", commands, "check"},
		{"CHECK", commands, ""}, // the command itself
		{"explian", commands, "explain"},
		{"supress", commands, "suppress"},
		{"session.jsonl", commands, ""},
		{"notes-7f3a", commands, ""},
		{"warning", signals, "warn"},
		{"errors", signals, "error"},
		{"Drfit", signals, "drift"},
		{"xyz", signals, ""},
		{"fial-on", []string{"fail-on", "format", "output"}, "fail-on"},
		{"tool-erorr", []string{"tool-error", "jsonrpc-error", "http-error"}, "tool-error"},
		{"read_txt_file", []string{"read_file", "read_text_file", "write_file"}, "read_text_file"},
		{"json", []string{"text", "junit", "sarif", "json"}, ""},
		{"jsn", []string{"text", "junit", "sarif", "json"}, "json"},
		{"", commands, ""},
	} {
		if got := Closest(c.word, c.candidates); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"fial", "fail", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3}, {"héllo", "hello", 1}} {
		if got := distance(c.a, c.b); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if got := DidYouMean("chek", []string{"check"}); got != " (did you mean check?)" {
		t.Errorf("DidYouMean = %q", got)
	}
}
