package checks_test

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/mcpcheck/mcpcheck/checks"
)

// A server that sends every progress notification with a null token (the
// request carried none) gets one progress-token finding for the token, and
// no request-params finding for any of them: one finding per fact.
func TestNullProgressTokenIsOneFinding(t *testing.T) {
	t.Parallel()
	env := func(seq int, dir, raw string) string {
		return fmt.Sprintf(`{"session_id":"s1","server_label":"fetch","seq":%d,"ts":"2026-09-01T10:00:00.%03dZ","direction":%q,"transport":"stdio","raw":%s}`, seq, seq, dir, raw)
	}
	lines := []string{
		env(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		env(2, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`),
		env(3, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		env(4, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fetch","arguments":{}}}`),
	}
	for i := 0; i < 3; i++ {
		lines = append(lines, env(5+i, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":null,"progress":%d,"total":3}}`, i+1)))
	}
	lines = append(lines, env(8, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`))
	got, err := runFixture("null-token.jsonl", []byte(strings.Join(lines, "\n")+"\n"), All(), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Rule != "progress-token" || got[0].Line != 5 ||
		got[0].Message != "server sent notifications/progress with the progress token null, which is not a string or an integer" {
		t.Errorf("findings:\n%s\nwant one progress-token at line 5", listFindings(got))
	}
}
