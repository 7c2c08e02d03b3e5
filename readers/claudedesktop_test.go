package readers

import (
	"strings"
	"testing"
)

// mcp.log: "[level] [NAME]", two servers interleaved, one session each.
func TestClaudeDesktopMainLog(t *testing.T) {
	t.Parallel()
	l := readFixture(t, "claude-desktop/mcp.log")
	sameLines(t, "sessions", l.sessions, []string{"weather[weather] 18 frames", "filesystem[filesystem] 17 frames"})
	for _, want := range []string{
		`1 stderr unpaired text "Initializing server..."`,
		"5 c2s opened", "6 c2s opened", "7 s2c answered", "13 s2c answered",
		"31 c2s opened", // get_forecast never answered: pending
	} {
		if !contains(l.got, want) {
			t.Errorf("no frame %q in:\n%s", want, strings.Join(l.got, "\n"))
		}
	}
	if len(l.damage) > 0 {
		t.Errorf("damage %v", l.damage)
	}
}

// mcp-server-NAME.log: "[NAME] [level]", the server's stderr without a
// prefix, a pretty-printed message over 13 lines, and a restart after the
// server crashed, which starts a second session of the same server.
func TestClaudeDesktopServerLog(t *testing.T) {
	t.Parallel()
	l := readFixture(t, "claude-desktop/mcp-server-notes.log")
	sameLines(t, "sessions", l.sessions, []string{"notes[notes] 33 frames", "notes#2[notes] 9 frames"})
	for _, want := range []string{
		`4 stderr unpaired text "notes-server 2.1.0: root /Users/dana/notes (212 notes)"`,
		"11 s2c answered", // the pretty-printed resources/list result
		"24 s2c answered", // the line after it is the next entry
		`33 stderr unpaired text "        throw new Error(` + "`note is locked: ${path}`" + `);"`,
		`44 stderr unpaired text "Server disconnected. For troubleshooting guidance, please visit our [debugging documentation](https://modelcontextprotocol.io/docs/tools/debugging) {\"context\":\"connection\"}"`,
		"48 c2s opened", "51 s2c answered",
	} {
		if !contains(l.got, want) {
			t.Errorf("no frame %q in:\n%s", want, strings.Join(l.got, "\n"))
		}
	}
	if len(l.damage) > 0 {
		t.Errorf("damage %v", l.damage)
	}
}

// The client's JSON parse errors are what a server wrote to stdout: s2c
// text, whose metadata (on the next lines) is not stderr.
func TestClaudeDesktopPollution(t *testing.T) {
	t.Parallel()
	l := readFixture(t, "claude-desktop/mcp-server-weather.log")
	var text []string
	for _, g := range l.got {
		if strings.Contains(g, " text ") {
			text = append(text, g)
		}
	}
	sameLines(t, "text frames", text, []string{
		`1 stderr unpaired text "Initializing server..."`,
		`2 stderr unpaired text "Server started and connected successfully"`,
		`4 s2c unpaired text "Weather MC…"`,
		`16 s2c unpaired text "Using the …"`,
		`33 s2c unpaired text "fetching h…"`,
	})
}

func TestClaudeDesktopLines(t *testing.T) {
	t.Parallel()
	const init = `{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1.0"}},"jsonrpc":"2.0","id":0}`
	l := readLog(t, "mcp.log", lines(
		"2024-11-28T09:27:43.719Z [info] Attempting to connect to MCP server neo4j...",
		"2025-02-01T13:51:41.700Z [info] [homeassistant] Message from client: "+init+"\r",
		`2025-02-01T13:51:41.860Z [error] Error in MCP connection to server homeassistant: SyntaxError: Unexpected token 'S', "[Sun 00:51:"... is not valid JSON`,
		`2025-02-01T13:51:41.861Z [error] Error in MCP connection to server homeassistant: SyntaxError: No number after minus sign in JSON at position 1 (line 1 column 2)`,
		"2025-02-01T13:51:41.862Z [info] [homeassistant] Message from client: method=\"tools/list\" id=1 params",
		"2025-02-01T13:51:41.863Z [info] [homeassistant] Message from server: {",
		`  "jsonrpc": "2.0",`,
		"2025-02-01T13:51:41.864Z [homeassistant] [info] Server started and connected successfully { metadata: undefined }",
		"2025-02-01T13:51:41.865Z [info] [homeassistant] Message from server: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"text\":\"a",
		"2025-02-01T13:51:41.866Z [warn] [homeassistant] Message from server: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}",
	))
	sameLines(t, "frames", l.got, []string{
		"2 c2s opened",
		`3 s2c unpaired text "[Sun 00:51:…"`,
		`4 s2c unpaired text "(the line is not in the log; the client's parser said: No number after minus sign in JSON at position 1 (line 1 column 2))"`,
		`8 stderr unpaired text "Server started and connected successfully"`,
	})
	sameLines(t, "damage", l.damage, []string{
		`homeassistant 5 the log kept only a summary of this message: "method=\"tools/list\" id=1 params"`,
		"homeassistant 6 the log breaks off inside a message",
		"homeassistant 9 the logged message breaks off inside a string",
		"homeassistant 10 the log ends inside a message",
	})
}

// A per-server log may start with the server's stderr; it belongs to the
// server the file is named after.
func TestClaudeDesktopStderrFirst(t *testing.T) {
	t.Parallel()
	l := readLog(t, "logs/mcp-server-git.log", lines(
		"git-mcp 0.3.1 starting",
		"2025-06-13T14:44:29.945Z [git] [info] Server started and connected successfully",
	))
	sameLines(t, "frames", l.got, []string{`1 stderr unpaired text "git-mcp 0.3.1 starting"`, `2 stderr unpaired text "Server started and connected successfully"`})
	sameLines(t, "sessions", l.sessions, []string{"git[git] 2 frames"})
}

func TestClaudeDesktopLineShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line          string
		level, server string
		ok            bool
	}{
		{"2025-06-13T14:44:29.945Z [info] [notes] Message from client: {}", "info", "notes", true},
		{"2025-04-02T02:11:32.477Z [notes] [info] Initializing server...", "info", "notes", true},
		{"2025-04-02T02:11:32Z [my server] [error] x", "error", "my server", true},
		{"2025-04-02T02:11:32.477+02:00 [warn] [a] x", "warn", "a", true},
		{"2024-11-28T09:27:43.719Z [info] Attempting to connect to MCP server neo4j...", "info", "", true},
		{"2025-04-02T02:11:32.477Z [notes] Initializing server...", "", "", false},
		{"2025-04-02 02:11:32.477 [info] [notes] x", "", "", false},
		{"[2025-10-12 13:19:41.618][error]   [maven-tools]Connection state: Error", "", "", false},
		{"2025-04-02T02:11:32.477Z notes: x", "", "", false},
	}
	for _, c := range cases {
		l, ok := parseClaudeLine([]byte(c.line))
		if ok != c.ok || ok && (l.level != c.level || l.server != c.server) {
			t.Errorf("%q: %v %q %q", c.line, ok, l.level, l.server)
		}
	}
}

func TestPollutionExcerpts(t *testing.T) {
	t.Parallel()
	cases := []struct{ text, want string }{
		{`Unexpected token 'S', "Starting s"... is not valid JSON {"context":"connection"}`, "Starting s…"},
		{`Unexpected token 'H', "HowToCook MCP服务器启动成功" is not valid JSON {`, "HowToCook MCP服务器启动成功"},
		{`Unexpected token ''', "  'access-co"... is not valid JSON`, "  'access-co…"},
		{`Unexpected token 'o', ..."ng server "... is not valid JSON`, "…ng server …"},
		{`SyntaxError: "[object Object]" is not valid JSON`, "[object Object]"},
		{`Unexpected non-whitespace character after JSON at position 4 (line 1 column 5)`, "(the line is not in the log; the client's parser said: Unexpected non-whitespace character after JSON at position 4 (line 1 column 5))"},
		{`Unexpected end of JSON input`, "(the line is not in the log; the client's parser said: Unexpected end of JSON input)"},
	}
	for _, c := range cases {
		if got, ok := pollution(c.text); !ok || got != c.want {
			t.Errorf("%q: %v %q, want %q", c.text, ok, got, c.want)
		}
	}
	for _, text := range []string{"Server disconnected. For troubleshooting guidance, please visit our [debugging documentation]", "spawn node ENOENT"} {
		if got, ok := pollution(text); ok {
			t.Errorf("%q read as pollution %q", text, got)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
