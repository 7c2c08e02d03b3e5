package readers

import (
	"bytes"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// unquoteTokens are JSON string tokens of every kind a body may be: plain,
// escaped, surrogate pairs and lone halves, invalid UTF-8 (which grows
// when decoded), and tokens that are not JSON strings at all.
var unquoteTokens = []string{
	`""`, `"plain"`, `"a\"b"`, `"\\\/\b\f\n\r\t"`, `"\u00e9t\u00C9"`, `"\u0000"`,
	`"\ud83d\ude00 smile"`, `"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`,
	"\"caf\xc3\xa9 \\n\"", "\"\xff\\n\"", "\"\xe2\x82\\n\"", "\"\xed\xa0\x80\"", "\"\xff\"",
	`"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"aaa\"}],\"isError\":true}}"`,
	`"\x"`, `"\'"`, `""0\b"`, `"\u12"`, `"\u12g4"`, `"\"`, `"a"b"`, "\"a\tb\"", "\"a\\\tb\"", `"`, `x`, `"abc`, `'a'`,
}

// The text decoded in place is what jsonscan.String decodes, for every
// token; where String refuses a token, so does unquoteInPlace.
func TestUnquoteInPlaceDecodesAsString(t *testing.T) {
	t.Parallel()
	for _, tok := range unquoteTokens {
		checkUnquote(t, []byte(tok))
	}
}

func FuzzUnquoteInPlace(f *testing.F) {
	for _, tok := range unquoteTokens {
		f.Add([]byte(tok))
	}
	f.Fuzz(func(t *testing.T, tok []byte) { checkUnquote(t, tok) })
}

func checkUnquote(t *testing.T, tok []byte) {
	t.Helper()
	want, wantOK := jsonscan.String(tok)
	validated := false
	if end, err := jsonscan.SkipString(tok, 0); err == nil && end == len(tok) {
		validated = true
	}
	got, ok := unquoteInPlace(bytes.Clone(tok))
	switch {
	case validated && (ok != wantOK || string(got) != want):
		t.Errorf("%q: in place %q %v, String %q %v", tok, got, ok, want, wantOK)
	case ok && !wantOK, ok && string(got) != want:
		// not a token a walk hands over: still never a text String refuses
		t.Errorf("%q: in place %q, String refuses it", tok, got)
	}
}

// A large escaped body is decoded without allocating: in the bytes it
// was read in.
func TestUnquoteInPlaceAllocatesNothing(t *testing.T) {
	tok := []byte(`"` + string(bytes.Repeat([]byte(`{\"a\":\"\u00e9\ud83d\ude00\"} `), 10_000)) + `"`)
	buf := make([]byte, len(tok))
	allocs := testing.AllocsPerRun(10, func() {
		copy(buf, tok)
		if _, ok := unquoteInPlace(buf); !ok {
			t.Fatal("not decoded")
		}
	})
	if allocs != 0 {
		t.Errorf("%.0f allocations decoding a body in place", allocs)
	}
}

// A call-level answer is written around its body in the entry's bytes
// when there is room, and made in a buffer of its own when there is not
// or when the body is not in the entry (a base64 body decoded apart).
func TestWrapAnswer(t *testing.T) {
	t.Parallel()
	prefix := []byte(`{"id":1,"result":`)
	for _, c := range []struct {
		name, entry string
		at, n       int // where the body lies in entry; n < 0: a copy of it
		inPlace     bool
	}{
		{"room", `{"request":{},"response":{"text":"{}"},"x":1}`, 34, 2, true},
		{"no room before", `{"text":"{}"}`, 9, 2, false},
		{"no room after", `0123456789012345678{}`, 19, 2, false},
		{"not in the entry", `{"request":{},"response":{"text":"{}"},"x":1}`, 34, -2, false},
	} {
		entry := []byte(c.entry)
		body := entry[c.at : c.at+max(c.n, -c.n)]
		if c.n < 0 {
			body = bytes.Clone(body)
		}
		msg := wrapAnswer(entry, body, prefix)
		if string(msg) != `{"id":1,"result":{}}` {
			t.Errorf("%s: %q", c.name, msg)
		}
		if inPlace := &msg[0] == &entry[c.at-min(c.at, len(prefix))]; inPlace != c.inPlace {
			t.Errorf("%s: written in place %v", c.name, inPlace)
		}
	}
}
