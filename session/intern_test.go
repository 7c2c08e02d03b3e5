package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// TestKnownStrings: the version and a known method cost no allocation and
// read as jsonscan.String reads them; anything else reads as before.
func TestKnownStrings(t *testing.T) {
	for _, v := range []string{`"2.0"`, `"tools/call"`, `"tools\/call"`, `"x/unknown"`, `7`, `"2.0 "`} {
		want, wantOK := jsonscan.String([]byte(v))
		if got, ok := knownString([]byte(v)); got != want || ok != wantOK {
			t.Errorf("knownString(%s) = %q, %v; want %q, %v", v, got, ok, want, wantOK)
		}
	}
	raw := json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if n := testing.AllocsPerRun(100, func() { decodeMessage(raw) }); n != 0 {
		t.Errorf("decoding a notification of a known method: %v allocations", n)
	}
}

// TestIDCache: ids read through the cache are MakeID's, and an answer's id
// reuses its request's string.
func TestIDCache(t *testing.T) {
	var c idCache
	for _, raw := range []string{`1`, ` 42 `, `"a-1"`, `"a\u002d1"`, `{"x":1}`, `[1]`, `null`, `-0.5e3`, ``, `"` + strings.Repeat("z", 80) + `"`, `42`} {
		if got, want := c.make([]byte(raw)), MakeID([]byte(raw)); got != want {
			t.Errorf("make(%s) = %v, MakeID gives %v", raw, got, want)
		}
	}
	c.make([]byte(`10421`))     // the request
	answer := []byte(` 10421 `) // its answer, from other bytes
	if n := testing.AllocsPerRun(100, func() { c.make(answer) }); n != 0 {
		t.Errorf("an answer's id: %v allocations", n)
	}
}
