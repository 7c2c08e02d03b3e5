package sessiontest

import (
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"time"
)

// Generated hostile captures: what an attacker, or a very broken server,
// hands mcpcheck. Each is produced as it is read, never held whole.

// lineReader serves the lines next produces until it returns false.
type lineReader struct {
	next func(buf []byte) ([]byte, bool)
	buf  []byte
	done bool
}

func (r *lineReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.done {
			return 0, io.EOF
		}
		var more bool
		r.buf, more = r.next(r.buf[:0])
		r.done = !more
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

var epoch = time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)

// Chatty returns a capture of one stdio session whose server wrote lines
// lines of log text to stdout, the protocol channel, after a handshake:
// every one an invalid-frame finding (spec §2.4: a million of them is
// normal in CI artifacts).
func Chatty(lines int) io.Reader {
	i := -3
	return &lineReader{next: func(b []byte) ([]byte, bool) {
		i++
		seq := i + 4
		ts := epoch.Add(time.Duration(seq) * time.Millisecond).Format(time.RFC3339Nano)
		switch i {
		case -2:
			b = fmt.Appendf(b, `{"session_id":"chatty-1","server_label":"chatty","seq":%d,"ts":%q,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}}`+"\n", seq, ts)
		case -1:
			b = fmt.Appendf(b, `{"session_id":"chatty-1","server_label":"chatty","seq":%d,"ts":%q,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"chatty","version":"1"}}}}`+"\n", seq, ts)
		case 0:
			b = fmt.Appendf(b, `{"session_id":"chatty-1","server_label":"chatty","seq":%d,"ts":%q,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}`+"\n", seq, ts)
		default:
			b = fmt.Appendf(b, `{"session_id":"chatty-1","seq":%d,"ts":%q,"direction":"s2c","transport":"stdio","text":"[debug] poll %d: queue depth %d"}`+"\n", seq, ts, i, i%17)
		}
		return b, i < lines
	}}
}

// Gzipped compresses r as it is read (a gzip bomb, when r is long and
// repetitive). The fastest level: what mcpcheck reads out of it is the
// same, and at the best one the compressor, not the check, took 360 s of
// a 6.7 GB bomb's run.
func Gzipped(r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		zw, _ := gzip.NewWriterLevel(pw, gzip.BestSpeed)
		_, err := io.Copy(zw, r)
		if err == nil {
			err = zw.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr
}

// Limited is the first n bytes of r.
func Limited(r io.Reader, n int64) io.Reader { return io.LimitReader(r, n) }

// PendingSessions returns a capture of n sessions, one after the other,
// each a single client request that is never answered.
func PendingSessions(n int) io.Reader {
	i := 0
	return &lineReader{next: func(b []byte) ([]byte, bool) {
		i++
		b = fmt.Appendf(b, `{"session_id":"agent-%d","server_label":"fs","seq":1,"ts":%q,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}`+"\n",
			i, epoch.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano))
		return b, i < n
	}}
}

// CleanCalls returns a clean capture of n tool calls, perSession calls to
// a session: handshake, a tools/list of the five tools of Capture, then
// calls answered with results; nothing in it is a finding.
func CleanCalls(n, perSession int) io.Reader {
	session, call, seq, id := 0, perSession, 0, 0
	step := 0 // within a session's opening
	return &lineReader{next: func(b []byte) ([]byte, bool) {
		env := func(dir, raw string) {
			seq++
			b = fmt.Appendf(b, `{"session_id":"calls-%d","server_label":"filesystem","seq":%d,"ts":%q,"direction":%q,"transport":"stdio","raw":%s}`+"\n",
				session, seq, epoch.Add(time.Duration(session)*time.Hour+time.Duration(seq)*time.Millisecond).Format(time.RFC3339Nano), dir, raw)
		}
		if call == perSession {
			session, call, seq, step = session+1, 0, 0, 0
		}
		if step == 0 {
			step = 1
			env("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-client","version":"1.0.0"}}}`)
			env("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"secure-filesystem-server","version":"0.2.0"}}}`)
			env("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			env("c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			env("s2c", `{"jsonrpc":"2.0","id":1,"result":{"tools":[`+toolDefinitions()+`]}}`)
			id = 1
			return b, true
		}
		id++
		call++
		n--
		tool := tools[id%len(tools)]
		env("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"path":"/srv/sandbox/notes/file-%d.md"}}}`, id, tool, id))
		env("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, id, strings.Repeat("contents ", 1+id%8)))
		return b, n > 0
	}}
}

// Endless returns an input that never ends: prefix, then fill forever.
func Endless(prefix string, fill byte) io.Reader {
	return io.MultiReader(strings.NewReader(prefix), Repeating(string(fill)))
}

// Repeating returns text repeated forever (text must not be empty).
func Repeating(text string) io.Reader {
	// a block of whole repetitions, copied from a few KiB at a time
	return &repeating{block: strings.Repeat(text, (4<<10)/len(text)+1)}
}

type repeating struct {
	block string
	at    int // where in block the next byte is
}

func (r *repeating) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.block[r.at:])
		n, r.at = n+c, (r.at+c)%len(r.block)
	}
	return n, nil
}

// Pings returns a capture of one stdio session whose client sends n pings
// that are never answered (issue 21: 1M of them took 627 MiB).
func Pings(n int) io.Reader {
	i := 0
	return &lineReader{next: func(b []byte) ([]byte, bool) {
		i++
		b = fmt.Appendf(b, `{"session_id":"pings-1","server_label":"fs","seq":%d,"ts":%q,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":%d,"method":"ping"}}`+"\n",
			i, epoch.Add(time.Duration(i)*time.Microsecond).Format(time.RFC3339Nano), i)
		return b, i < n
	}}
}

// Labels returns a capture of n sessions of n server labels, each a
// complete tools/list of one tool: a baseline to record for every label.
func Labels(n int) io.Reader {
	i, step := 1, 0
	return &lineReader{next: func(b []byte) ([]byte, bool) {
		ts := epoch.Add(time.Duration(i)*time.Millisecond + time.Duration(step)*time.Microsecond).Format(time.RFC3339Nano)
		head := fmt.Sprintf(`{"session_id":"label-%d","server_label":"server-%d","seq":%d,"ts":%q,"transport":"stdio",`, i, i, step+1, ts)
		if step == 0 {
			b = append(b, head+`"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}`+"\n"...)
			step = 1
			return b, true
		}
		b = append(b, head+`"direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","description":"Echo","inputSchema":{"type":"object"}}]}}}`+"\n"...)
		step = 0
		i++
		return b, i <= n
	}}
}

// DeepSchema returns a capture of one session listing one tool whose
// inputSchema nests depth levels of "items" (issue 21: writing its
// baseline indented every level).
func DeepSchema(depth int) io.Reader {
	schema := `{"type":"object","properties":{"a":` + strings.Repeat(`{"type":"array","items":`, depth) + `{}` + strings.Repeat(`}`, depth) + `}}`
	return strings.NewReader(
		`{"session_id":"deep-1","server_label":"deep","seq":1,"ts":"2026-09-01T10:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}` + "\n" +
			`{"session_id":"deep-1","server_label":"deep","seq":2,"ts":"2026-09-01T10:00:01Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"deep","description":"Deep","inputSchema":` + schema + `}]}}}` + "\n")
}

// BigAnswer returns a capture of one tools/call whose isError answer is
// one envelope of about size bytes.
func BigAnswer(size int) io.Reader {
	return io.MultiReader(strings.NewReader(
		`{"session_id":"big-1","server_label":"big","seq":1,"ts":"2026-09-01T10:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump","arguments":{}}}}`+"\n"+
			`{"session_id":"big-1","server_label":"big","seq":2,"ts":"2026-09-01T10:00:01Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`),
		io.LimitReader(Repeating("a"), int64(size)), strings.NewReader(`"}],"isError":true}}}`+"\n"))
}

// BigHAR returns a HAR of one POSTed tools/call whose isError answer is a
// response body of about size bytes.
func BigHAR(size int) io.Reader {
	entry := func(started, post, body string) string {
		return `{"startedDateTime":"` + started + `","time":5,"request":{"method":"POST","url":"http://localhost:3000/mcp","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"application/json"}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":-1,"postData":{"mimeType":"application/json","text":` +
			post + `}},"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"application/json"}],"cookies":[],"content":{"mimeType":"application/json","text":` + body
	}
	end := `},"redirectURL":"","headersSize":-1,"bodySize":-1},"cache":{},"timings":{"send":0,"wait":5,"receive":0}}`
	return io.MultiReader(strings.NewReader(`{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"pages":[],"entries":[`+
		entry("2026-09-01T10:00:00.000Z", `"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}"`,
			`"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}"`)+end+","+
		entry("2026-09-01T10:00:01.000Z", `"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"dump\",\"arguments\":{}}}"`,
			`"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"`)),
		io.LimitReader(Repeating("a"), int64(size)), strings.NewReader(`\"}],\"isError\":true}}"`+end+`]}}`+"\n"))
}

// DenseListing returns a capture of one session listing one tool whose
// description is size bytes of documentation that says, in every
// sentence, the words tool-poisoning's instruction patterns need (ignore,
// user, tell, keep, send, read, https:, @, <, [) without giving an
// instruction, then tail (issue 21: such text was read at 1 MB/s). The
// same size always makes the same text.
func DenseListing(size int, tail string) io.Reader {
	return strings.NewReader(
		`{"session_id":"dense-1","server_label":"dense","seq":1,"ts":"2026-09-01T10:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}` + "\n" +
			`{"session_id":"dense-1","server_label":"dense","seq":2,"ts":"2026-09-01T10:00:01Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read","description":"` +
			DenseDescription(size) + tail + `","inputSchema":{"type":"object"}}]}}}` + "\n")
}

// DenseDescription is DenseListing's description, without its tail.
func DenseDescription(size int) string {
	words := strings.Fields("ignore the previous result if the user asks; tell the user what to send and keep the data, read files from docker and post https: links with @ and < > [ ] . , the user")
	var b strings.Builder
	b.Grow(size + 16)
	state := uint64(2)
	for b.Len() < size {
		state = state*6364136223846793005 + 1442695040888963407 // a fixed LCG: the same text every run
		b.WriteString(words[(state>>33)%uint64(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}
