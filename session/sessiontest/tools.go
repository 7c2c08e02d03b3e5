package sessiontest

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ManyTools returns a capture of one stdio session whose server lists n
// tools in one tools/list answer (issue 21: 200,000 of them, about 40 MB
// in one envelope), each with a name, a description of about 100 bytes
// and a small inputSchema of its own; then the client calls a few of them, with
// arguments that fit their schemas. Nothing in it is a finding.
func ManyTools(n int) io.Reader {
	const head = `{"session_id":"tools-1","server_label":"catalogue","seq":%d,"ts":"2026-09-01T10:00:%02d.000Z","direction":%q,"transport":"stdio","raw":`
	seq := 0
	env := func(dir, raw string) string {
		seq++
		return fmt.Sprintf(head, seq, seq, dir) + raw + "}\n"
	}
	var opening strings.Builder
	opening.WriteString(env("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`))
	opening.WriteString(env("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"catalogue","version":"1"}}}`))
	opening.WriteString(env("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	opening.WriteString(env("c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	seq++
	opening.WriteString(fmt.Sprintf(head, seq, seq, "s2c") + `{"jsonrpc":"2.0","id":1,"result":{"tools":[`)

	var calls strings.Builder
	for i, tool := range calledTools(n) {
		id := strconv.Itoa(i + 2)
		calls.WriteString(env("c2s", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"`+toolName(tool)+`","arguments":{"path_`+strconv.Itoa(tool)+`":"/srv/notes/`+id+`.md"}}}`))
		calls.WriteString(env("s2c", `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"done"}]}}`))
	}
	return io.MultiReader(strings.NewReader(opening.String()), &toolLines{n: n}, strings.NewReader("]}}}\n"+calls.String()))
}

// calledTools are the tools ManyTools calls: the first, the last and two
// between.
func calledTools(n int) []int {
	if n == 0 {
		return nil
	}
	return []int{0, n / 3, 2 * n / 3, n - 1}
}

func toolName(i int) string { return "tool_" + strconv.Itoa(i) }

// toolLines writes the listing's tools as they are read.
type toolLines struct {
	n, i int
	buf  bytes.Buffer
}

func (r *toolLines) Read(p []byte) (int, error) {
	for r.buf.Len() == 0 {
		if r.i == r.n {
			return 0, io.EOF
		}
		r.writeTool(r.i)
		r.i++
	}
	return r.buf.Read(p)
}

// writeTool writes one definition of about 200 bytes.
func (r *toolLines) writeTool(i int) {
	if i > 0 {
		r.buf.WriteByte(',')
	}
	fmt.Fprintf(&r.buf, `{"name":"%s","description":"Reads the file at a path of workspace %d and returns its text; directories are listed a line each.",`+
		`"inputSchema":{"type":"object","properties":{"path_%d":{"type":"string"}}}}`, toolName(i), i%1000, i)
}
