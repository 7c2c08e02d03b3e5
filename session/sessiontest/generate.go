// Package sessiontest generates realistic mcpsnoop captures of any size for
// benchmarks and memory tests, without holding them in memory or on disk.
package sessiontest

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Capture returns a reader of a capture of at least size bytes: sessions of
// a stdio filesystem server (initialize, tools/list, then tool calls with
// results, one in a thousand reporting isError, and stderr lines), each session
// about sessionBytes long. The content is deterministic.
func Capture(size, sessionBytes int64) io.Reader {
	return &generator{limit: size, perSession: sessionBytes}
}

type generator struct {
	limit, perSession int64
	written           int64
	buf               []byte
	session           int
	sessionWritten    int64
	seq               int
	id                int
	clock             time.Time
	started           bool
}

func (g *generator) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.written >= g.limit && !g.started {
			return 0, io.EOF
		}
		g.next()
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// next appends the next envelope(s) to buf.
func (g *generator) next() {
	if !g.started {
		g.startSession()
		return
	}
	if g.sessionWritten >= g.perSession || g.written >= g.limit {
		g.started = false
		return
	}
	g.id++
	tool := tools[g.id%len(tools)]
	g.envelope("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"path":"/srv/sandbox/notes/file-%d.md"}}}`, g.id, tool, g.id))
	if g.id%50 == 0 {
		g.text("stderr", fmt.Sprintf("reading /srv/sandbox/notes/file-%d.md", g.id))
	}
	if g.id%1000 == 0 {
		g.envelope("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ENOENT: no such file or directory, open '/srv/sandbox/notes/file-%d.md'"}],"isError":true}}`, g.id, g.id))
		return
	}
	body := strings.Repeat("A line of the file's contents, long enough to look like real text. ", 1+g.id%12)
	g.envelope("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}],"structuredContent":{"content":%q}}}`, g.id, body, body))
}

var tools = []string{"read_text_file", "list_directory", "get_file_info", "search_files", "directory_tree"}

// toolDefinitions is the listing of the tools the generated calls use: a
// server lists what its client calls.
func toolDefinitions() string {
	defs := make([]string, len(tools))
	for i, name := range tools {
		defs[i] = fmt.Sprintf(`{"name":%q,"description":"Filesystem tool %s","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`, name, name)
	}
	return strings.Join(defs, ",")
}

func (g *generator) startSession() {
	g.session++
	g.started, g.sessionWritten, g.seq, g.id = true, 0, 0, 0
	if g.clock.IsZero() {
		g.clock = time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	}
	g.envelope("meta", `{"command":["node","server-filesystem/dist/index.js","/srv/sandbox"],"cwd":"/srv"}`)
	g.envelope("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-client","version":"1.0.0"}}}`)
	g.text("stderr", "Secure MCP Filesystem Server running on stdio")
	g.envelope("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"secure-filesystem-server","version":"0.2.0"}}}`)
	g.envelope("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	g.envelope("c2s", `{"jsonrpc":"2.0","id":-1,"method":"tools/list"}`)
	g.envelope("s2c", `{"jsonrpc":"2.0","id":-1,"result":{"tools":[`+toolDefinitions()+`]}}`)
}

func (g *generator) envelope(dir, raw string) {
	g.write(fmt.Sprintf(`{"session_id":"bench-%d","server_label":"filesystem","seq":%d,"ts":%q,"direction":%q,"transport":"stdio","raw":%s}`+"\n",
		g.session, g.tick(), g.clock.Format(time.RFC3339Nano), dir, raw))
}

func (g *generator) text(dir, text string) {
	g.write(fmt.Sprintf(`{"session_id":"bench-%d","server_label":"filesystem","seq":%d,"ts":%q,"direction":%q,"transport":"stdio","text":%q}`+"\n",
		g.session, g.tick(), g.clock.Format(time.RFC3339Nano), dir, text))
}

func (g *generator) tick() int {
	g.seq++
	g.clock = g.clock.Add(1500 * time.Microsecond)
	return g.seq
}

func (g *generator) write(s string) {
	g.buf = append(g.buf, s...)
	g.written += int64(len(s))
	g.sessionWritten += int64(len(s))
}
