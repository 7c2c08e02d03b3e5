package readers

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

// mcpRewind is the cache directory of mcp-rewind, a record/replay proxy for
// Streamable HTTP (spec §2.2 item 4): each recorded exchange is up to four
// files, "<n> <key>.req.json" (the request: URL, headers, body),
// ".res.json" (the raw SSE body of the answer), ".res-head.json" (status
// and headers) and ".json" (the distilled result replay serves). Only the
// distilled files are needed for replay, so a committed cache may hold
// nothing else. Exchanges are replayed in sequence order; the proxy answers
// notifications with 202 and caches none.
type mcpRewind struct{}

func (mcpRewind) Name() string       { return "mcp-rewind" }
func (mcpRewind) Patterns() []string { return nil } // a directory, never a file

// Detect recognises only the manifest of a cache directory Resolve found.
func (mcpRewind) Detect(head []byte) bool {
	_, ok := manifestDir("mcp-rewind", head)
	return ok
}

// rewindKeys are the cache keys of the methods mcp-rewind caches (a method
// with its slashes as underscores; tools/call adds the tool name and a hash
// of the arguments).
var rewindKeys = map[string]string{
	"initialize":               "initialize",
	"tools_list":               "tools/list",
	"resources_list":           "resources/list",
	"resources_templates_list": "resources/templates/list",
	"resources_read":           "resources/read",
	"prompts_list":             "prompts/list",
	"prompts_get":              "prompts/get",
	"ping":                     "ping",
	"server_discover":          "server/discover",
}

// rewindFile is a cache file name taken apart.
type rewindFile struct {
	name string
	n    int64
	key  string
	kind string // "req", "res", "res-head", or "" for the distilled result
}

func parseRewindName(name string) (rewindFile, bool) {
	if f, ok := parseUnnamed(name); ok {
		return f, true
	}
	num, rest, ok := strings.Cut(name, " ")
	if !ok || num == "" || rest == "" {
		return rewindFile{}, false
	}
	n, ok := rewindNumber(num)
	if !ok {
		return rewindFile{}, false
	}
	rest, ok = strings.CutSuffix(rest, ".json")
	if !ok {
		return rewindFile{}, false
	}
	f := rewindFile{name: name, n: n, key: rest}
	for _, kind := range [...]string{"req", "res-head", "res"} {
		if k, ok := strings.CutSuffix(rest, "."+kind); ok {
			f.key, f.kind = k, kind
			break
		}
	}
	return f, f.key != ""
}

// parseUnnamed reads the name of an exchange mcp-rewind gives no key (every
// method but initialize, the lists and tools/call, and the client's answers
// to server requests): "<n>.req.json", "<n>.res.json", "<n>.res-head.json",
// never a distilled "<n>.json".
func parseUnnamed(name string) (rewindFile, bool) {
	num, rest, ok := strings.Cut(name, ".")
	if !ok {
		return rewindFile{}, false
	}
	n, ok := rewindNumber(num)
	if !ok {
		return rewindFile{}, false
	}
	switch rest {
	case "req.json", "res.json", "res-head.json":
		return rewindFile{name: name, n: n, kind: strings.TrimSuffix(rest, ".json")}, true
	}
	return rewindFile{}, false
}

// rewindNumber reads an exchange's number: decimal digits only.
func rewindNumber(num string) (int64, bool) {
	if num == "" || strings.Trim(num, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	return n, err == nil
}

// rewindMethod is the method a cache key stands for, and the tool of a
// tools/call key ("tools_call_<name>_<16 hex digits>").
func rewindMethod(key string) (method, tool string) {
	if rest, ok := strings.CutPrefix(key, "tools_call_"); ok {
		if i := strings.LastIndexByte(rest, '_'); i > 0 && len(rest)-i-1 == 16 {
			rest = rest[:i]
		}
		return "tools/call", rest
	}
	return rewindKeys[key], ""
}

// DirFiles claims the numbered cache files of a directory when they show
// it is an mcp-rewind cache: a request, answer or head file, or a distilled
// result under the key of a method mcp-rewind caches.
func (mcpRewind) DirFiles(names []string) []string {
	var files []string
	sure := false
	for _, name := range names {
		f, ok := parseRewindName(name)
		if !ok {
			continue
		}
		files = append(files, name)
		if m, _ := rewindMethod(f.key); f.kind != "" || m != "" {
			sure = true
		}
	}
	if !sure {
		return nil
	}
	return files
}

func (mcpRewind) Read(name string, r io.Reader, c *session.Correlator, o Options) error {
	dir, err := readManifest("mcp-rewind", name, r)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	var files []rewindFile
	for _, n := range (mcpRewind{}).DirFiles(names) {
		f, _ := parseRewindName(n)
		files = append(files, f)
	}
	slices.SortStableFunc(files, func(a, b rewindFile) int {
		if a.n != b.n {
			return compareInt(a.n, b.n)
		}
		return strings.Compare(a.key, b.key)
	})
	rd := &rewindReader{dir: dir, c: c, maxEnvelope: o.MaxEnvelope, session: dir, gap: noteGap{recorder: "mcp-rewind"}}
	for i := 0; i < len(files); {
		j := i
		ex := rewindExchange{n: files[i].n, key: files[i].key}
		for ; j < len(files) && files[j].n == ex.n && files[j].key == ex.key; j++ {
			switch files[j].kind {
			case "req":
				ex.req = files[j].name
			case "res":
				ex.res = files[j].name
			case "res-head":
				ex.head = files[j].name
			default:
				ex.distilled = files[j].name
			}
		}
		if err := rd.exchange(&ex); err != nil {
			return err
		}
		i = j
	}
	if c.Finish() != nil {
		return &NotCaptureError{File: name, Reason: "the mcp-rewind cache holds no exchange"}
	}
	return nil
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

type rewindReader struct {
	dir         string
	c           *session.Correlator
	maxEnvelope int    // Options.MaxEnvelope
	session     string // the session of exchanges that name none: the last one named, else the directory
	gap         noteGap
}

// rewindExchange is the files of one recorded exchange.
type rewindExchange struct {
	n                         int64
	key                       string
	req, res, head, distilled string
}

// readFile reads a cache file whole (they are one message each), up to
// the largest envelope, after room spare bytes: the buffer holds them,
// then the file's bytes.
func (rd *rewindReader) readFile(name string, room int) ([]byte, error) {
	f, err := os.Open(filepath.Join(rd.dir, name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := readSized(f, int64(rd.maxEnvelope)+1, room)
	if err == nil && len(b)-room > rd.maxEnvelope {
		return nil, fmt.Errorf("larger than %s", sizeText(rd.maxEnvelope))
	}
	return b, err
}

// readSized is io.ReadAll of at most limit bytes of f, after room spare
// bytes, into a buffer of their size and f's (and one byte, to see the
// end without growing, which also leaves room for a byte after them):
// grown as append grows it, a 200 MiB file took twice its size.
func readSized(f *os.File, limit int64, room int) ([]byte, error) {
	size := int64(512)
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
		size = min(info.Size()+1, limit)
	}
	b := make([]byte, room, int64(room)+size)
	r := io.LimitReader(f, limit)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew while it was read
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return b, err
		}
	}
}

// jsonFile reads a cache file that must hold a JSON value, after room
// spare bytes (readFile), and returns the value and the buffer it lies
// in; a file that does not hold one is damage, reported against the
// exchange's session.
func (rd *rewindReader) jsonFile(name string, room int, dir session.Direction) (val, buf []byte) {
	b, err := rd.readFile(name, room)
	switch {
	case err != nil:
		rd.damage(name, 1, "unreadable cache file: "+err.Error(), dir)
		return nil, nil
	case !validJSON(b[room:]):
		rd.damage(name, 1, "a cache file that is not JSON", dir)
		return nil, nil
	}
	return bytes.TrimSpace(b[room:]), b
}

func (rd *rewindReader) damage(file string, line int, reason string, dir session.Direction) {
	rd.c.Damage(session.Damage{File: filepath.Join(rd.dir, file), Line: line, Reason: reason}, session.Survived{SessionID: rd.session, Direction: dir})
}

// rewindMessage is a recorded request or response head.
type rewindMessage struct {
	url     string
	status  int
	headers httpHeaders
	body    []byte // the request body (JSON)
}

// parseRewindMessage reads a .req.json or .res-head.json object.
func parseRewindMessage(b []byte) rewindMessage {
	var m rewindMessage
	_ = jsonscan.EachMember(b, func(name, val []byte) {
		switch string(name) {
		case "url":
			m.url, _ = jsonscan.String(val)
		case "status", "statusCode":
			if n, err := strconv.Atoi(string(val)); err == nil {
				m.status = n
			}
		case "headers":
			m.headers = headerMap(val)
		case "body":
			if text, ok := unquoteInPlace(val); ok {
				m.body = bytes.TrimSpace(text) // a body kept as text, decoded in the file's bytes
			} else {
				m.body = val
			}
		}
	})
	return m
}

func (rd *rewindReader) exchange(ex *rewindExchange) error {
	conn := "exchange " + strconv.FormatInt(ex.n, 10)
	var req, head rewindMessage
	if ex.req != "" {
		if b, _ := rd.jsonFile(ex.req, 0, session.ClientToServer); b != nil {
			req = parseRewindMessage(b)
		}
	}
	if ex.head != "" {
		if b, _ := rd.jsonFile(ex.head, 0, session.ServerToClient); b != nil {
			head = parseRewindMessage(b)
		}
	}
	if id := req.headers.get("Mcp-Session-Id"); id != "" {
		rd.session = id
	} else if id := head.headers.get("Mcp-Session-Id"); id != "" {
		rd.session = id
	}
	label := filepath.Base(rd.dir) // Node records the request's path only
	if u, err := url.Parse(req.url); err == nil && u.Host != "" {
		label = labelOf(endpointOf(req.url))
	}
	base := session.Frame{SessionID: rd.session, Label: label, Transport: "http", ConnID: conn}

	// The request: as recorded, else rebuilt from the key (its arguments
	// are then unknown).
	f := base
	f.Direction, f.File, f.Line = session.ClientToServer, filepath.Join(rd.dir, ex.req), 1
	method, reqID := "", []byte(nil)
	switch body := bytes.TrimSpace(req.body); {
	case len(body) > 0:
		req.headers.setRequest(&f)
		f.Raw = body
		jsonscan.Top(body, func(name string, val []byte) {
			switch name {
			case "method":
				method, _ = jsonscan.String(val)
			case "id":
				reqID = val
			}
		})
	case ex.req != "":
		rd.damage(ex.req, 1, "a cached request without a body", session.ClientToServer)
	case ex.key == "":
		// an unnamed exchange whose request file is gone: nothing names it
		rd.damage(cmp.Or(ex.res, ex.head), 1, "the request of this cached answer is not in the cache", session.ClientToServer)
	default:
		m, tool := rewindMethod(ex.key)
		if m == "" {
			m = strings.ReplaceAll(ex.key, "_", "/")
		}
		method, reqID = m, []byte(strconv.FormatInt(ex.n, 10))
		raw := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%s`, ex.n, strconv.Quote(m))
		if tool != "" {
			raw = fmt.Appendf(raw, `,"params":{"name":%s}`, strconv.Quote(tool))
		}
		f.Raw = append(raw, '}')
		f.Truncated = true // only the key was kept: the params are not known
		f.File = filepath.Join(rd.dir, cmp.Or(ex.distilled, ex.res, ex.head))
	}
	if f.Raw != nil {
		if !strings.HasPrefix(method, "notifications/") {
			rd.gap.request(rd.c, rd.session, method, f.File, f.Line)
		}
		rd.c.Add(&f)
	}

	// The answer: the raw body as the server sent it, else the distilled
	// result, else the status alone.
	ans := base
	ans.Direction, ans.Line, ans.Status = session.ServerToClient, 1, head.status
	ans.ContentType = head.headers.get("Content-Type")
	ans.AuthChallenge = head.headers.get("WWW-Authenticate")
	ok := false
	switch {
	case ex.res != "":
		body, err := rd.readFile(ex.res, 0)
		if err != nil {
			rd.damage(ex.res, 1, "unreadable cache file: "+err.Error(), session.ServerToClient)
			break
		}
		if len(bytes.TrimSpace(body)) == 0 {
			if ex.head != "" && head.status != 0 {
				g := ans // a status and no body (a 202)
				g.File = filepath.Join(rd.dir, ex.head)
				rd.c.Add(&g)
				break
			}
			// how mcp-rewind records an answer that is not 2xx: its body
			// file is left empty and no head file is written
			rd.damage(ex.res, 1, "mcp-rewind kept nothing of this answer (an empty answer file and no head file: how it records an HTTP status that is not 2xx); its status and body are unknown", session.ServerToClient)
			break
		}
		// Kept as text, or as a JSON string holding the text.
		wrapped := false
		if t := bytes.TrimSpace(body); jsonscan.FirstByte(t) == '"' && validJSON(t) {
			if text, ok := unquoteInPlace(t); ok {
				body, wrapped = text, true // decoded in the file's bytes
			}
		}
		a := answer{base: ans, body: body,
			isSSE: strings.Contains(strings.ToLower(ans.ContentType), "text/event-stream") || (looksLikeSSE(body) && !validJSON(bytes.TrimSpace(body))),
			line: func(ev int) int {
				if wrapped {
					return 1
				}
				return ev + 1
			}}
		a.base.File = filepath.Join(rd.dir, ex.res)
		a.frames(func(g *session.Frame) {
			ok = ok || answeredWell(g)
			rd.c.Add(g)
		}, func(d session.Damage) {
			rd.c.Damage(d, session.Survived{SessionID: rd.session, Direction: session.ServerToClient})
		})
	case ex.distilled != "":
		g := ans
		g.File = filepath.Join(rd.dir, ex.distilled)
		if g.Raw = rd.distilledAnswer(ex.distilled, reqID); g.Raw == nil {
			break
		}
		ok = answeredWell(&g)
		rd.c.Add(&g)
	case ex.head != "" && head.status != 0:
		g := ans // a status and no body (a 202, an error)
		g.File = filepath.Join(rd.dir, ex.head)
		rd.c.Add(&g)
	}
	rd.gap.answered(rd.session, method, ok)
	return nil
}

// distilledAnswer is the message of a distilled result: the file's value
// when it is a whole JSON-RPC message, else an answer to id with the value
// as its result. The file is read after room for the answer's start, so
// that the answer is written around the value in the bytes it was read
// in (wrapAnswer): a 200 MiB result is held once, not copied. Nil when the
// file is damage.
func (rd *rewindReader) distilledAnswer(name string, id []byte) []byte {
	if id == nil {
		id = []byte("null")
	}
	prefix := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":`, id)
	res, buf := rd.jsonFile(name, len(prefix), session.ServerToClient)
	if res == nil {
		return nil
	}
	full := false
	jsonscan.Top(res, func(name string, _ []byte) { full = full || name == "jsonrpc" })
	if full {
		return res
	}
	return wrapAnswer(buf[:cap(buf)], res, prefix)
}

// answeredWell reports a frame that is a JSON-RPC result (not an error),
// before correlation decodes it.
func answeredWell(f *session.Frame) bool {
	if f.Raw == nil || f.Status >= 400 {
		return false
	}
	result, failed := false, false
	jsonscan.Top(f.Raw, func(name string, _ []byte) {
		switch name {
		case "result":
			result = true
		case "error":
			failed = true
		}
	})
	return result && !failed
}
