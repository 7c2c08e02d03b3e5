package readers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/internal/wipe"
	"github.com/mcpcheck/mcpcheck/session"
)

// claudeDesktop reads Claude Desktop's MCP logs (spec §2.2 item 1):
// mcp-server-NAME.log (one server, with its stderr) and mcp.log (every
// server). A line is "TIME [level] [NAME] text" or, in other versions,
// "TIME [NAME] [level] text". "Message from client: {json}" and "Message
// from server: {json}" carry the frames; the client's JSON parse errors are
// its report of a server's stdout pollution; other lines are kept like
// stderr. Each server name is a session, and a new one starts when the
// client restarts the server ("Initializing server...") after traffic.
type claudeDesktop struct{}

func (claudeDesktop) Name() string { return "claude-desktop" }

// Patterns: the per-server logs. mcp.log repeats their traffic (without
// stderr), so a directory contributes only these; mcp.log is read when
// named.
func (claudeDesktop) Patterns() []string { return []string{"mcp-server-*.log"} }

// Detect: a log line comes before any line that starts JSON (stderr lines
// of a server may come first).
func (claudeDesktop) Detect(head []byte) bool {
	for i := 0; i < len(head); {
		line, next := lineAt(head, i)
		switch lineKindOf(line) {
		case claudeLogLine:
			return true
		case jsonLine:
			return false
		}
		i = next
	}
	return false
}

func (claudeDesktop) Read(name string, r io.Reader, c *session.Correlator, o Options) error {
	rd := &desktopReader{name: name, c: c, maxEnvelope: o.MaxEnvelope, servers: map[string]*desktopServer{}}
	base := filepath.Base(name)
	base = strings.TrimSuffix(base, ".gz")
	if strings.HasPrefix(base, "mcp-server-") && strings.HasSuffix(base, ".log") {
		rd.fileServer = strings.TrimSuffix(strings.TrimPrefix(base, "mcp-server-"), ".log")
	}
	lr := newLineReader(r, o)
	rd.wipe = lr.wipe
	for {
		line, long, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var gz gzipError
			if errors.As(err, &gz) && rd.began {
				c.Damage(session.Damage{File: name, Line: lr.line, Reason: "the compressed log breaks off: " + gz.err.Error(), Lost: lostToBreak(gz)}, session.Survived{})
				break
			}
			return fmt.Errorf("%s:%d: %w", name, lr.line, err)
		}
		rd.line(line, lr.line, long)
	}
	rd.endOfLog()
	if c.Finish() != nil {
		return &NotCaptureError{File: name, Reason: "no line of it belongs to an MCP server"}
	}
	return nil
}

// desktopServer is one server name of the log and its current session.
type desktopServer struct {
	name     string
	id       string // session id: the name, then NAME#2, NAME#3 … after restarts
	restarts int
	traffic  bool // the current session has protocol frames
}

type desktopReader struct {
	name, fileServer string
	c                *session.Correlator
	maxEnvelope      int // Options.MaxEnvelope
	began            bool
	servers          map[string]*desktopServer
	current          *desktopServer // the server of the last entry: home of lines without a prefix

	// a message whose JSON goes on over the next lines
	open    bool
	msg     *session.Frame
	extent  jsonExtent
	payload []byte
	tooBig  bool
	wipe    bool

	trailer int // lines left that may continue the last entry (its metadata object)
}

// maxTrailer bounds the lines an entry's metadata may span.
const maxTrailer = 1000

func (rd *desktopReader) server(name string) *desktopServer {
	s := rd.servers[name]
	if s == nil {
		s = &desktopServer{name: name, id: name}
		rd.servers[name] = s
	}
	return s
}

func (rd *desktopReader) frame(s *desktopServer, line int, t time.Time) *session.Frame {
	return &session.Frame{File: rd.name, Line: line, SessionID: s.id, Label: s.name, Time: t, Transport: "stdio"}
}

func (rd *desktopReader) add(f *session.Frame) {
	rd.began = true
	rd.c.Add(f)
}

func (rd *desktopReader) damage(s *desktopServer, line int, dir session.Direction, reason string) {
	rd.began = true
	rd.c.Damage(session.Damage{File: rd.name, Line: line, Reason: reason}, session.Survived{SessionID: s.id, Direction: dir})
}

// line reads one line of the log.
func (rd *desktopReader) line(b []byte, n int, long bool) {
	entry, isEntry := parseClaudeLine(b)
	if rd.open {
		if !isEntry {
			rd.more(b, long)
			return
		}
		rd.torn("the log breaks off inside a message")
	}
	if !isEntry {
		if rd.trailer > 0 {
			rd.trailer--
			if t := bytes.TrimRight(b, " \t\r"); len(t) == 1 && (t[0] == '}' || t[0] == ']') {
				rd.trailer = 0 // the metadata object closed
			}
			return
		}
		rd.stderr(b, n)
		return
	}
	rd.trailer = 0
	rd.entry(entry, n, long)
}

// stderr keeps a line without a prefix: in a per-server log, what the
// server wrote to stderr.
func (rd *desktopReader) stderr(b []byte, n int) {
	s := rd.current
	if s == nil && rd.fileServer != "" {
		s = rd.server(rd.fileServer)
		rd.current = s
	}
	if s == nil {
		return // mcp.log: a line of no server
	}
	f := rd.frame(s, n, time.Time{})
	f.Direction, f.Text, f.HasText = session.Stderr, string(bytes.TrimRight(b, "\r")), true
	rd.add(f)
}

var (
	fromClient   = []byte("Message from client:")
	fromServer   = []byte("Message from server:")
	connectError = "Error in MCP connection to server "
)

func (rd *desktopReader) entry(e claudeLine, n int, long bool) {
	text := e.text
	name := e.server
	if name == "" {
		// mcp.log names the server in the text of a connection error
		rest, ok := strings.CutPrefix(string(text), connectError)
		i := strings.Index(rest, ": ")
		if !ok || i <= 0 {
			rd.current = nil // a line of the app itself; what continues it is no server's
			return
		}
		name, text = rest[:i], []byte(rest[i+2:])
	}
	s := rd.server(name)
	rd.current = s
	dir := session.DirUnknown
	switch {
	case bytes.HasPrefix(text, fromClient):
		dir, text = session.ClientToServer, text[len(fromClient):]
	case bytes.HasPrefix(text, fromServer):
		dir, text = session.ServerToClient, text[len(fromServer):]
	}
	if dir != session.DirUnknown {
		rd.message(s, dir, bytes.TrimLeft(text, " "), n, e.time, long)
		return
	}
	if e.level == "error" {
		if what, ok := pollution(string(text)); ok {
			s.traffic = true
			f := rd.frame(s, n, e.time)
			f.Direction, f.Text, f.HasText = session.ServerToClient, what, true
			rd.add(f)
			rd.trailerAfter(text)
			return
		}
	}
	if string(bytes.TrimSpace(text)) == "Initializing server..." && s.traffic {
		s.restarts++ // the client starts the server again: a new connection
		s.id, s.traffic = name+"#"+strconv.Itoa(s.restarts+1), false
	}
	f := rd.frame(s, n, e.time)
	f.Direction, f.Text, f.HasText = session.Stderr, string(bytes.TrimSuffix(text, []byte(" { metadata: undefined }"))), true
	rd.add(f)
	rd.trailerAfter(text)
}

// trailerAfter: an entry that ends opening an object ("… { ") goes on with
// its metadata on the next lines, up to a line that closes it.
func (rd *desktopReader) trailerAfter(text []byte) {
	if t := bytes.TrimRight(text, " \t\r"); len(t) > 0 && (t[len(t)-1] == '{' || t[len(t)-1] == '[') {
		rd.trailer = maxTrailer
	}
}

// message starts the frame of a "Message from …" entry.
func (rd *desktopReader) message(s *desktopServer, dir session.Direction, payload []byte, n int, t time.Time, long bool) {
	s.traffic = true
	if c := jsonscan.FirstByte(payload); c != '{' && c != '[' {
		what := strings.TrimSpace(string(payload))
		if what == "" {
			rd.damage(s, n, dir, "the log names a message but holds none")
			return
		}
		rd.damage(s, n, dir, "the log kept only a summary of this message: "+session.ShortQuote(what, 120))
		return
	}
	if long {
		rd.damage(s, n, dir, fmt.Sprintf("a logged message of more than %s was skipped", sizeText(rd.maxEnvelope)))
		return
	}
	f := rd.frame(s, n, t)
	f.Direction = dir
	rd.msg, rd.extent, rd.tooBig = f, jsonExtent{}, false
	if end, _ := rd.extent.feed(payload); end < 0 && rd.extent.inString {
		rd.msg = nil // a JSON string cannot go on over the next line
		rd.damage(s, n, dir, "the logged message breaks off inside a string")
	} else if end >= 0 {
		rd.finish(payload[:end], payload[end:])
	} else {
		// pretty-printed: the message goes on over the next lines
		rd.open = true
		if rd.wipe {
			wipe.Bytes(rd.payload[:cap(rd.payload)])
		}
		if cap(rd.payload) > 1<<20 {
			rd.payload = nil
		}
		rd.payload = append(rd.payload[:0], payload...)
	}
}

// more continues a message over one more line.
func (rd *desktopReader) more(b []byte, long bool) {
	if long { // where the message ends is lost with the rest of the line
		rd.torn(fmt.Sprintf("a logged message of more than %s was skipped", sizeText(rd.maxEnvelope)))
		return
	}
	b = bytes.TrimRight(b, "\r")
	from := len(rd.payload)
	rd.tooBig = rd.tooBig || from+1+len(b) > rd.maxEnvelope
	chunk := append([]byte{'\n'}, b...)
	end, torn := rd.extent.feed(chunk)
	if !rd.tooBig {
		rd.payload = append(rd.payload, chunk...)
	}
	switch {
	case torn || end < 0 && rd.extent.inString:
		rd.torn("the logged message breaks off inside a string")
	case end >= 0:
		rd.open = false
		if rd.tooBig {
			rd.finish(nil, chunk[end:])
			return
		}
		rd.finish(rd.payload[:from+end], chunk[end:])
	}
}

// torn reports the message under way as damage.
func (rd *desktopReader) torn(reason string) {
	f := rd.msg
	rd.open, rd.msg = false, nil
	rd.began = true
	rd.c.Damage(session.Damage{File: rd.name, Line: f.Line, Reason: reason}, session.Survived{SessionID: f.SessionID, Direction: f.Direction})
}

// finish adds the message whose JSON is raw; rest is what follows it on
// its last line.
func (rd *desktopReader) finish(raw, rest []byte) {
	f := rd.msg
	rd.msg = nil
	switch {
	case rd.tooBig:
		rd.c.Damage(session.Damage{File: rd.name, Line: f.Line, Reason: fmt.Sprintf("a logged message of more than %s was skipped", sizeText(rd.maxEnvelope)),
			Lost: tooLargeLost("a logged message", rd.maxEnvelope)},
			session.Survived{SessionID: f.SessionID, Direction: f.Direction})
	default:
		if _, err := jsonscan.SkipValue(raw, 0, 0); err != nil {
			rd.c.Damage(session.Damage{File: rd.name, Line: f.Line, Reason: notJSONReason("a logged message", raw, err)},
				session.Survived{SessionID: f.SessionID, Direction: f.Direction})
			break
		}
		f.Raw = raw
		rd.add(f)
	}
	rd.trailerAfter(rest)
}

func (rd *desktopReader) endOfLog() {
	if rd.open {
		rd.torn("the log ends inside a message")
	}
}

// pollution recognises the client's report that a line on the server's
// stdout was not JSON (Node's JSON.parse errors) and returns what the
// server wrote, as far as the report shows it.
func pollution(text string) (string, bool) {
	t := strings.TrimPrefix(text, "SyntaxError: ")
	if !strings.Contains(t, " is not valid JSON") && !strings.Contains(t, "in JSON at position") &&
		!strings.Contains(t, "after JSON at position") && !strings.HasPrefix(t, "Unexpected end of JSON input") {
		return "", false
	}
	if line, ok := v8Excerpt(t); ok {
		return line, true
	}
	if i := strings.Index(t, " {"); i >= 0 {
		t = t[:i] // the metadata the log appends
	}
	return "(the line is not in the log; the client's parser said: " + t + ")", true
}

// v8Excerpt reads the excerpt of the input V8 quotes in a JSON.parse
// error: `Unexpected token 'S', "Starting s"... is not valid JSON` (cut
// excerpts end in ..., and start with ... when they do not start the line).
func v8Excerpt(t string) (string, bool) {
	i := strings.Index(t, " is not valid JSON")
	if i < 0 {
		return "", false
	}
	p := t[:i]
	cutEnd := strings.HasSuffix(p, `"...`)
	p = strings.TrimSuffix(p, "...")
	if !strings.HasSuffix(p, `"`) || len(p) < 2 {
		return "", false
	}
	p = p[:len(p)-1]
	var excerpt string
	cutStart := false
	switch {
	case strings.HasPrefix(p, "Unexpected token "):
		j := strings.Index(p, `', `)
		if j < 0 {
			return "", false
		}
		q := p[j+3:]
		if cutStart = strings.HasPrefix(q, `..."`); cutStart {
			q = q[3:]
		}
		if !strings.HasPrefix(q, `"`) {
			return "", false
		}
		excerpt = q[1:]
	case strings.HasPrefix(p, `"`):
		excerpt = p[1:]
	default:
		return "", false
	}
	if cutStart {
		excerpt = "…" + excerpt
	}
	if cutEnd {
		excerpt += "…"
	}
	return excerpt, true
}

// jsonExtent finds where a JSON object or array that starts a payload
// ends, across lines.
type jsonExtent struct {
	depth             int
	inString, escaped bool
}

// feed scans more of the value: end is the offset just after it when it
// ends in b (-1 otherwise); torn is a raw newline inside a string.
func (x *jsonExtent) feed(b []byte) (end int, torn bool) {
	for i, c := range b {
		if x.inString {
			switch {
			case x.escaped:
				x.escaped = false
			case c == '\\':
				x.escaped = true
			case c == '"':
				x.inString = false
			case c == '\n':
				return -1, true
			}
			continue
		}
		switch c {
		case '"':
			x.inString = true
		case '{', '[':
			x.depth++
		case '}', ']':
			if x.depth--; x.depth == 0 {
				return i + 1, false
			}
		}
	}
	return -1, false
}

// lineReader reads lines of any length; a line longer than max is
// reported as long, with only its start kept.
type lineReader struct {
	r    *bufio.Reader
	buf  valueBuf
	max  int
	line int // number of the line last returned
	err  error
	wipe bool
}

func newLineReader(r io.Reader, o Options) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, o.ReadBuffer), max: o.MaxEnvelope, wipe: o.wipes()}
}

// next returns the next line without its newline; it is valid until the
// next call.
func (l *lineReader) next() (line []byte, long bool, err error) {
	if l.err != nil {
		return nil, false, l.err
	}
	if l.wipe { // a handler that kept bytes of an earlier line must see them change
		wipe.Bytes(l.buf.head[:cap(l.buf.head)])
	}
	l.buf.start() // the last line's buffer is not kept when it was large
	for {
		p, err := l.r.ReadSlice('\n')
		if !long && l.buf.len()+len(p) > l.max {
			long = true
			l.buf.truncate(maxJunk)
		}
		if !long {
			l.buf.add(p)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			l.err = err
			if l.buf.len() == 0 && !long {
				return nil, false, err
			}
		}
		l.line++
		return bytes.TrimSuffix(l.buf.bytes(), []byte("\n")), long, nil
	}
}
