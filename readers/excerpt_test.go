package readers

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// A piece that is not JSON is shown, not described by the decoder: its
// beginning, or the text where the decoder gave up.
func TestNotJSONReason(t *testing.T) {
	t.Parallel()
	scan := func(s string) error { _, err := jsonscan.SkipValue([]byte(s), 0, 0); return err }
	long := `{"session_id":"s1","seq":3,"raw":{"jsonrpc":"2.0","id":1,"method":"ping" "x":1},"direction":"c2s","ts":"2026-09-01T10:00:00Z"}`
	for _, c := range []struct{ data, what, want string }{
		{"[INFO] 2026-09-02T02:20:00.070Z mcpsnoop sink reconnected after 1 retry", "a line",
			`a line that is not valid JSON: "[INFO] 2026-09-02T02:20:00.070Z mcpsnoop sink reconnected af…"`},
		{long, "an envelope",
			`an envelope that is not valid JSON at byte 74: "…,\"id\":1,\"method\":\"ping\" \"x\":1},\"directio…"`},
		{"{\"a\":\"é é é é é é é é é é é\" ,, \"b\"}", "an envelope",
			`an envelope that is not valid JSON at byte 42: "…é é é é é é é\" ,, \"b\"}"`},
	} {
		got := notJSONReason(c.what, []byte(c.data), scan(c.data))
		if got != c.want {
			t.Errorf("%.30q:\n got %s\nwant %s", c.data, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%q is not UTF-8", got)
		}
	}
	// an error without a position keeps its words
	if got := notJSONReason("an envelope", []byte(`{"seq":"x"}`), errors.New("seq is not a number")); got != `an envelope that is not valid JSON (seq is not a number): "{\"seq\":\"x\"}"` {
		t.Errorf("got %s", got)
	}
}
