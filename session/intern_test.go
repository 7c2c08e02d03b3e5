package session

import (
	"encoding/json"
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
