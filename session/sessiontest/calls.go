package sessiontest

import (
	"fmt"
	"io"
	"strconv"
	"time"
)

// Calls returns a reader of a capture of exactly calls tools/call requests
// with the traffic mix of a busy CI run: sessions of perSession calls each
// (initialize, a 20-tool tools/list, then the calls), 200–2000-byte text
// results, about 1% isError results, 0.5% -32602 answers to badly typed
// arguments, 1% calls with progress notifications, 2% small groups of
// concurrent calls answered out of order, and occasional stderr lines. The
// content is deterministic: the same arguments give the same bytes.
func Calls(calls, perSession int) io.Reader {
	if perSession <= 0 {
		perSession = calls
	}
	return &callGen{total: calls, perSession: perSession, rng: 0x9e3779b97f4a7c15}
}

type callGen struct {
	total, perSession int
	done              int // calls written
	inSession         int // calls written in the current session
	session, seq, id  int
	progress          int
	clock             time.Time
	started           bool
	rng               uint64
	buf               []byte
	off               int
	pending           []pendingCall // requests of a concurrent group awaiting answers
}

type pendingCall struct {
	id, tool int
	kind     callKind
}

type callKind uint8

const (
	callOK callKind = iota
	callToolError
	callBadParams
	callProgress
)

func (g *callGen) Read(p []byte) (int, error) {
	for g.off == len(g.buf) {
		if g.done >= g.total && !g.started {
			return 0, io.EOF
		}
		g.buf, g.off = g.buf[:0], 0
		g.next()
	}
	n := copy(p, g.buf[g.off:])
	g.off += n
	return n, nil
}

// rand is xorshift64*: deterministic and cheap enough not to dominate the
// generation of gigabytes.
func (g *callGen) rand(n int) int {
	g.rng ^= g.rng >> 12
	g.rng ^= g.rng << 25
	g.rng ^= g.rng >> 27
	return int((g.rng * 2685821657736338717) >> 33 % uint64(n))
}

func (g *callGen) next() {
	if !g.started {
		g.startSession()
		return
	}
	if g.done >= g.total || g.inSession >= g.perSession {
		g.started = false // the next session starts with a fresh initialize
		return
	}
	group := 1
	if g.rand(1000) < 6 { // 0.6% of iterations open a group of 2–4 calls: ~2% of calls
		group = 2 + g.rand(3)
	}
	if rest := min(g.total-g.done, g.perSession-g.inSession); group > rest {
		group = rest
	}
	g.pending = g.pending[:0]
	for range group {
		g.id++
		c := pendingCall{id: g.id, tool: g.rand(len(benchTools))}
		switch r := g.rand(1000); {
		case r < 10:
			c.kind = callToolError
		case r < 15:
			c.kind = callBadParams
		case r < 25 && group == 1:
			c.kind = callProgress
		}
		g.request(c)
		g.pending = append(g.pending, c)
		g.done++
		g.inSession++
	}
	if g.rand(100) == 0 {
		g.stderrLine(fmt.Sprintf("[%s] handled %d requests", benchTools[g.pending[0].tool].name, g.id))
	}
	// A group's answers come back in reverse order: the server finished the
	// later calls first.
	for i := len(g.pending) - 1; i >= 0; i-- {
		g.answer(g.pending[i])
	}
}

func (g *callGen) request(c pendingCall) {
	t := benchTools[c.tool]
	b := g.open("c2s")
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(c.id), 10)
	b = append(b, `,"method":"tools/call","params":{"name":"`...)
	b = append(b, t.name...)
	b = append(b, `","arguments":{`...)
	if c.kind == callBadParams {
		b = append(b, `"`...)
		b = append(b, t.arg...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, int64(c.id), 10) // a number where a string is declared
	} else {
		b = append(b, `"`...)
		b = append(b, t.arg...)
		b = append(b, `":"/srv/work/src/module-`...)
		b = strconv.AppendInt(b, int64(c.id%997), 10)
		b = append(b, `/file.go"`...)
	}
	b = append(b, '}')
	if c.kind == callProgress {
		g.progress++
		b = append(b, `,"_meta":{"progressToken":"p-`...)
		b = strconv.AppendInt(b, int64(g.progress), 10)
		b = append(b, `"}`...)
	}
	b = append(b, `}}`...)
	g.close(b)
}

func (g *callGen) answer(c pendingCall) {
	switch c.kind {
	case callProgress:
		steps := 1 + g.rand(3)
		for i := 1; i <= steps; i++ {
			b := g.open("s2c")
			b = append(b, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-`...)
			b = strconv.AppendInt(b, int64(g.progress), 10)
			b = append(b, `","progress":`...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, `,"total":`...)
			b = strconv.AppendInt(b, int64(steps+1), 10)
			b = append(b, `,"message":"indexing"}}`...)
			g.close(b)
		}
	case callBadParams:
		b := g.open("s2c")
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = strconv.AppendInt(b, int64(c.id), 10)
		b = append(b, `,"error":{"code":-32602,"message":"Invalid arguments for tool `...)
		b = append(b, benchTools[c.tool].name...)
		b = append(b, `: expected string, received number at `...)
		b = append(b, benchTools[c.tool].arg...)
		b = append(b, `"}}`...)
		g.close(b)
		return
	case callToolError:
		b := g.open("s2c")
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = strconv.AppendInt(b, int64(c.id), 10)
		b = append(b, `,"result":{"content":[{"type":"text","text":"ENOENT: no such file or directory, open '/srv/work/src/module-`...)
		b = strconv.AppendInt(b, int64(c.id%997), 10)
		b = append(b, `/file.go'"}],"isError":true}}`...)
		g.close(b)
		return
	}
	b := g.open("s2c")
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(c.id), 10)
	b = append(b, `,"result":{"content":[{"type":"text","text":"`...)
	b = g.text(b, 200+g.rand(1801))
	b = append(b, `"}]}}`...)
	g.close(b)
}

// text appends about n bytes of JSON-escaped prose: words, some quoted,
// lines ending in escaped newlines, as file contents and command output are.
func (g *callGen) text(b []byte, n int) []byte {
	start, line := len(b), 0
	for len(b)-start < n {
		w := words[g.rand(len(words))]
		switch r := g.rand(40); {
		case r == 0:
			b = append(b, `\"`...)
			b = append(b, w...)
			b = append(b, `\"`...)
		case r == 1 && line > 20:
			b = append(b, `\n`...)
			line = 0
			continue
		default:
			b = append(b, w...)
		}
		b = append(b, ' ')
		line++
	}
	return b
}

var words = []string{
	"func", "return", "the", "error", "value", "package", "import", "context", "request",
	"handler", "server", "client", "nil", "if", "err", "string", "int", "map", "slice",
	"buffer", "read", "write", "file", "path", "module", "test", "result", "config",
	"options", "timeout", "retry", "session", "token", "stream", "json", "encode", "decode",
}

type benchTool struct{ name, desc, arg string }

// benchTools is the listing of a 20-tool development server.
var benchTools = []benchTool{
	{"read_file", "Read the complete contents of a file from the workspace.", "path"},
	{"read_multiple_files", "Read several files at once; failures of one do not stop the others.", "paths_glob"},
	{"write_file", "Create a new file or overwrite an existing one with new content.", "path"},
	{"edit_file", "Make line-based edits to a text file and return a git-style diff.", "path"},
	{"create_directory", "Create a directory, including parents, or succeed silently if it exists.", "path"},
	{"list_directory", "List files and directories in a path with [FILE] and [DIR] prefixes.", "path"},
	{"directory_tree", "Get a recursive tree view of files and directories as JSON.", "path"},
	{"move_file", "Move or rename files and directories.", "source"},
	{"search_files", "Recursively search for files matching a glob pattern.", "pattern"},
	{"get_file_info", "Retrieve size, timestamps and permissions of a file.", "path"},
	{"grep", "Search file contents with a regular expression.", "regex"},
	{"git_status", "Show the working tree status of the repository.", "repo"},
	{"git_diff", "Show changes between the working tree and the index.", "repo"},
	{"git_log", "Show recent commit logs.", "repo"},
	{"run_tests", "Run the test suite of a package and report failures.", "package"},
	{"build", "Build a package and report compiler errors.", "package"},
	{"lint", "Run the linters on a package.", "package"},
	{"format_file", "Format a source file in place.", "path"},
	{"fetch_url", "Fetch a URL and return its body as markdown.", "url"},
	{"run_command", "Run a shell command in the sandbox and return its output.", "command"},
}

func toolListing() []byte {
	b := []byte(`{"tools":[`)
	for i, t := range benchTools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":"`...)
		b = append(b, t.name...)
		b = append(b, `","description":"`...)
		b = append(b, t.desc...)
		b = append(b, `","inputSchema":{"type":"object","properties":{"`...)
		b = append(b, t.arg...)
		b = append(b, `":{"type":"string","description":"The `...)
		b = append(b, t.arg...)
		b = append(b, ` to operate on"}},"required":["`...)
		b = append(b, t.arg...)
		b = append(b, `"],"additionalProperties":false},"annotations":{"readOnlyHint":`...)
		b = strconv.AppendBool(b, i%3 != 2)
		b = append(b, `}}`...)
	}
	return append(b, `]}`...)
}

func (g *callGen) startSession() {
	g.session++
	g.started, g.inSession, g.seq, g.id = true, 0, 0, 0
	if g.clock.IsZero() {
		g.clock = time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	}
	g.raw("meta", `{"command":["node","dev-server/dist/index.js","/srv/work"],"cwd":"/srv/work"}`)
	g.raw("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci-agent","version":"2.3.0"}}}`)
	g.stderrLine("dev-server listening on stdio")
	g.raw("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"dev-server","version":"1.8.2"}}}`)
	g.raw("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	g.raw("c2s", `{"jsonrpc":"2.0","id":"list-1","method":"tools/list"}`)
	g.raw("s2c", `{"jsonrpc":"2.0","id":"list-1","result":`+string(toolListing())+`}`)
}

// open starts an envelope in direction dir; close ends it.
func (g *callGen) open(dir string) []byte {
	g.seq++
	g.clock = g.clock.Add(1500 * time.Microsecond)
	b := append(g.buf, `{"session_id":"ci-run-`...)
	b = strconv.AppendInt(b, int64(g.session), 10)
	b = append(b, `","server_label":"dev-server","seq":`...)
	b = strconv.AppendInt(b, int64(g.seq), 10)
	b = append(b, `,"ts":"`...)
	b = g.clock.AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
	b = append(b, `","direction":"`...)
	b = append(b, dir...)
	b = append(b, `","transport":"stdio","raw":`...)
	return b
}

func (g *callGen) close(b []byte) { g.buf = append(b, "}\n"...) }

func (g *callGen) raw(dir, msg string) { g.close(append(g.open(dir), msg...)) }

func (g *callGen) stderrLine(text string) {
	b := g.open("stderr")
	b = b[:len(b)-len(`"raw":`)]
	b = append(b, `"text":`...)
	b = strconv.AppendQuote(b, text)
	g.buf = append(b, "}\n"...)
}
