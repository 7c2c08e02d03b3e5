package readers

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

// har is HAR 1.2 (spec §2.2 item 3): the HTTP archive browsers' devtools,
// mitmproxy and Charles export, read for its Streamable HTTP traffic, and
// mcpsnoop's call-level export (mcp:// entries). The document is walked
// entry by entry, so a HAR of hundreds of MB is read in bounded memory.
type har struct{}

func (har) Name() string       { return "har" }
func (har) Patterns() []string { return []string{"*.har"} }

// Detect: a JSON object whose first member is "log", an object — the whole
// of a HAR's top level, and nothing another format starts with.
func (har) Detect(head []byte) bool {
	i := jsonscan.SkipSpace(head, 0)
	if i >= len(head) || head[i] != '{' {
		return false
	}
	i = jsonscan.SkipSpace(head, i+1)
	end, err := jsonscan.SkipString(head, i)
	if err != nil || i >= len(head) || string(head[i:end]) != `"log"` {
		return false
	}
	i = jsonscan.SkipSpace(head, end)
	if i >= len(head) || head[i] != ':' {
		return false
	}
	i = jsonscan.SkipSpace(head, i+1)
	return i < len(head) && head[i] == '{'
}

func (har) Read(name string, r io.Reader, c *session.Correlator, o Options) error {
	js := newJSONStream(r, o)
	rd := &harReader{name: name, c: c, gap: noteGap{recorder: "mcpsnoop's call-level HAR"}}
	err := js.object(func(key string) error {
		if key != "log" {
			return js.skip()
		}
		return js.object(func(key string) error {
			if key != "entries" {
				return js.skip()
			}
			return js.records(func() error {
				line := js.line
				if _, err := js.peek(); err == nil {
					line = js.line // the line the entry starts on
				}
				raw, err := js.capture(o.MaxEnvelope)
				switch {
				case errors.Is(err, errValueTooLarge):
					rd.overLimit(js.prefix(), line, o.MaxEnvelope)
					return nil
				case err != nil:
					return err
				}
				rd.entry(raw, line, nil)
				return nil
			}, func(line, next int) {
				rd.entries++
				c.Damage(session.Damage{File: name, Line: line, Reason: "a HAR entry nested too deeply", Lost: unreadRecord("HAR entry", next)}, session.Survived{})
			})
		})
	})
	rd.flushAll()
	var se *streamError
	switch {
	case errors.As(err, &se) && rd.entries == 0:
		return &NotCaptureError{File: name, Line: se.line, Reason: "a HAR that is not valid JSON: " + se.msg}
	case errors.Is(err, errBrokenOff): // reported where it broke
	case errors.As(err, &se):
		c.Damage(session.Damage{File: name, Line: se.line, Reason: "the HAR breaks off: " + se.msg, Lost: brokenDocument("HAR", se)}, session.Survived{})
	case err != nil:
		return fmt.Errorf("%s:%d: %w", name, js.line, err)
	}
	if c.Finish() != nil {
		return &NotCaptureError{File: name, Reason: fmt.Sprintf("no MCP traffic in the HAR: none of its %d %s is a JSON-RPC exchange", rd.entries, plural(rd.entries, "entry", "entries"))}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// harReader turns HAR entries into frames.
type harReader struct {
	name    string
	c       *session.Correlator
	entries int

	endpoints map[string]bool   // URLs (without query) that carried JSON-RPC POSTs
	current   map[string]string // endpoint URL → the session its entries without Mcp-Session-Id join
	legacy    map[string]string // a legacy SSE stream's POST URL (query included) → its session
	waiting   []heldEntry       // frames of endpoints whose session is not known yet
	held      int               // their bytes

	calls map[string]int64 // call-level export: label → the last request id given
	gap   noteGap
}

// overLimit reads an entry past the size limit as far as its first max
// bytes go (spec §2.1, fail closed): its request, and what they hold of
// its answer, the last frame marked past the limit. When they hold no
// request, the entry is damage that fails the gate.
func (rd *harReader) overLimit(prefix []byte, line, max int) {
	closed, body := closeRecord(prefix, harBodies[:]...)
	at := cutElsewhere
	if body >= 0 {
		at = body + cutRequest
	}
	if closed != nil && rd.entry(closed, line, &entryCut{at: at, max: max}) {
		return
	}
	if closed == nil {
		rd.entries++
	}
	rd.c.Damage(session.Damage{File: rd.name, Line: line, Reason: fmt.Sprintf("a HAR entry of more than %s was skipped: its first %[1]s hold no request", sizeText(max)),
		Lost: tooLargeLost("a HAR entry", max)}, session.Survived{})
}

// Where the cut of an entry past the size limit fell: in one of its
// bodies (harBodies, in this order), or elsewhere.
const (
	cutElsewhere = iota
	cutRequest
	cutResponse
)

var harBodies = [...]bodyPath{{"request", "postData", "text"}, {"response", "content", "text"}}

// entryCut is where an entry read only as far as the size limit was cut.
type entryCut struct {
	at  int // the body the cut fell in: cutRequest, cutResponse or cutElsewhere
	max int // the limit
}

// heldEntry is an entry's frames kept until its session is known.
type heldEntry struct {
	endpoint string
	frames   []*session.Frame
	damage   []heldDamage
}

// heldDamage is damage with the direction of the frame it cost.
type heldDamage struct {
	session.Damage
	dir session.Direction
}

// Bounds on the entries held for a session id not seen yet.
const (
	maxHeldEntries  = 32
	maxHeldHARBytes = 8 << 20
	maxEndpoints    = 1024
)

// harEntry is what one HAR entry says, decoded.
type harEntry struct {
	index   int
	line    int
	started time.Time
	elapsed float64 // milliseconds; < 0 when not recorded

	// The bodies are decoded in the entry's own bytes (the stream's
	// buffer), valid until the next entry is read: a frame kept longer
	// takes a copy (hold).
	raw         []byte
	method, url string
	reqHeaders  httpHeaders
	reqBody     []byte
	hasReqBody  bool

	status     int
	statusText string
	resHeaders httpHeaders
	mimeType   string
	resBody    []byte
	hasResBody bool

	cut *entryCut // an entry past the size limit, read as far as it allows
}

// entry reads one entry; cut is set for one past the size limit, whose
// first bytes raw holds, closed (closeRecord). It reports false for such an
// entry when they hold no request: nothing was read.
func (rd *harReader) entry(raw []byte, line int, cut *entryCut) bool {
	rd.entries++
	e := harEntry{index: rd.entries, line: line, elapsed: -1, raw: raw, cut: cut}
	var request, response []byte
	err := jsonscan.EachMember(raw, func(name, val []byte) {
		switch string(name) {
		case "startedDateTime":
			s, _ := jsonscan.String(val)
			e.started, _ = time.Parse(time.RFC3339Nano, s)
		case "time":
			if v, err := strconv.ParseFloat(string(val), 64); err == nil {
				e.elapsed = v
			}
		case "request":
			request = val
		case "response":
			response = val
		}
	})
	if err != nil && cut != nil {
		return false
	}
	if err != nil {
		d := session.Damage{File: rd.name, Line: line, Reason: "a HAR entry that is not a JSON object: " + err.Error()}
		if jsonscan.TooDeep(err) {
			d.Lost = unreadRecord("HAR entry", -1)
		}
		rd.c.Damage(d, session.Survived{})
		return true
	}
	e.request(request)
	e.response(response)
	if cut != nil && !e.requestKept() {
		return false
	}
	if cut != nil && cut.at == cutRequest {
		e.reqBody = clipJSON(e.reqBody)
	}
	if u, err := url.Parse(e.url); err == nil && u.Scheme == "mcp" {
		rd.callEntry(&e, u)
		return true
	}
	rd.httpEntry(&e)
	return true
}

// requestKept reports an entry cut at the size limit after its request:
// its method, its URL and, for a POST, its body (cut or not), which a
// call of mcpsnoop's export without params does without.
func (e *harEntry) requestKept() bool {
	return e.method != "" && e.url != "" && (e.method != "POST" || e.hasReqBody || strings.HasPrefix(e.url, "mcp:"))
}

// cutInAnswer reports an entry cut inside its answer's body: the answer
// was recorded, though its status may lie past the cut (writers that sort
// members put "content" before "status").
func (e *harEntry) cutInAnswer() bool { return e.cut != nil && e.cut.at == cutResponse }

// markOverLimit marks f, the last frame of an entry cut at the size limit,
// as read only so far: what was cut is not judged as the frame's shape.
func (e *harEntry) markOverLimit(f *session.Frame) {
	f.Truncated = true
	f.EnvelopeProblems = append(f.EnvelopeProblems, session.EnvelopeProblem{Fault: session.OverLimit, Member: "size", Problem: recordTooLargeProblem("HAR entry", e.cut.max)})
}

// pastCut is the damage of an answer that lies past the cut: the request
// is not left pending, and the marked frame fails the gate.
func (e *harEntry) pastCut(file string) session.Damage {
	return session.Damage{File: file, Line: e.line, Reason: fmt.Sprintf("the answer lies past the first %s of this HAR entry, the most mcpcheck reads", sizeText(e.cut.max))}
}

func (e *harEntry) request(raw []byte) {
	var params []byte
	_ = jsonscan.EachMember(raw, func(name, val []byte) {
		switch string(name) {
		case "method":
			e.method, _ = jsonscan.String(val)
			e.method = strings.ToUpper(e.method)
		case "url":
			e.url, _ = jsonscan.String(val)
		case "headers":
			e.reqHeaders = harHeaders(val)
		case "postData":
			_ = jsonscan.EachMember(val, func(name, val []byte) {
				switch string(name) {
				case "text":
					if body, ok := unquoteInPlace(val); ok {
						e.reqBody, e.hasReqBody = body, true
					}
				case "params":
					params = val
				}
			})
		}
	})
	if !e.hasReqBody && params != nil {
		e.reqBody, e.hasReqBody = rebuildParams(params)
	}
}

// rebuildParams makes the JSON body a HAR writer listed only as
// postData.params. chrome-har (the writer puppeteer and playwright tooling
// use) lists each top-level member of a JSON body as a name/value pair
// whose value is the member's JSON value itself, not JSON text:
// {"name":"id","value":0}, {"name":"jsonrpc","value":"2.0"} (a string that
// stays a string). An array member is listed once per element under its
// name, and a top-level array (a batch) is listed under its indexes "0",
// "1", …. So a name listed twice is an array again, and pairs named 0…n-1
// in order are the batch. A pair without a value is null. What the writer
// lost cannot be rebuilt: an array member of one element reads as that
// element, an empty one is gone.
func rebuildParams(raw []byte) ([]byte, bool) {
	els := jsonscan.Elements(raw)
	if len(els) == 0 {
		return nil, false
	}
	type member struct {
		name   string
		values [][]byte
	}
	var members []member
	at := map[string]int{}
	for _, el := range els {
		var name string
		value := []byte("null")
		_ = jsonscan.EachMember(el, func(n, v []byte) {
			switch string(n) {
			case "name":
				name, _ = jsonscan.String(v)
			case "value":
				// the document's layout, not the body's: compact it
				var c bytes.Buffer
				if json.Compact(&c, v) == nil {
					value = c.Bytes()
				}
			}
		})
		if i, ok := at[name]; ok {
			members[i].values = append(members[i].values, value)
			continue
		}
		at[name] = len(members)
		members = append(members, member{name: name, values: [][]byte{value}})
	}
	batch := true
	for i, m := range members {
		if m.name != strconv.Itoa(i) || len(m.values) != 1 || jsonscan.FirstByte(m.values[0]) != '{' {
			batch = false
			break
		}
	}
	var b bytes.Buffer
	if batch {
		b.WriteByte('[')
		for i, m := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(m.values[0])
		}
		b.WriteByte(']')
		return b.Bytes(), true
	}
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(m.name))
		b.WriteByte(':')
		if len(m.values) == 1 {
			b.Write(m.values[0])
			continue
		}
		b.WriteByte('[')
		b.Write(bytes.Join(m.values, []byte{','}))
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

func (e *harEntry) response(raw []byte) {
	var text []byte
	base64Text := false
	_ = jsonscan.EachMember(raw, func(name, val []byte) {
		switch string(name) {
		case "status":
			if n, err := strconv.ParseFloat(string(val), 64); err == nil {
				e.status = int(n)
			}
		case "statusText":
			e.statusText, _ = jsonscan.String(val)
		case "headers":
			e.resHeaders = harHeaders(val)
		case "content":
			_ = jsonscan.EachMember(val, func(name, val []byte) {
				switch string(name) {
				case "mimeType":
					e.mimeType, _ = jsonscan.String(val)
				case "text":
					if body, ok := unquoteInPlace(val); ok {
						text, e.hasResBody = body, true
					}
				case "encoding":
					enc, _ := jsonscan.String(val)
					base64Text = strings.EqualFold(enc, "base64")
				}
			})
		}
	})
	if !base64Text && e.hasResBody && e.cutInAnswer() && cutBase64(text) {
		base64Text = true // its "encoding", written after "text", lay past the cut
	}
	if base64Text && e.hasResBody && e.cutInAnswer() {
		text = bytes.TrimSpace(text)
		text = text[:len(text)/4*4] // whole groups: a prefix of the decoded body
	}
	if base64Text && e.hasResBody {
		if dec, ok := decodeBase64InPlace(bytes.TrimSpace(text)); ok {
			text = dec
		}
	}
	e.resBody = text
}

// cutBase64 reports a body cut at the size limit that begins as base64
// of an MCP answer: playwright's recordHar (testdata/recorders) writes a
// content's "encoding" after its "text", so past a cut in the text it is
// not known. A JSON-RPC answer or an event stream holds a brace or a
// colon, so it never begins with base64's letters; a text that does is
// taken for base64 when its first groups decode to the start of one. The
// rest of it is left to the decoder, which declines what is not base64
// throughout.
func cutBase64(text []byte) bool {
	text = bytes.TrimSpace(text)
	head := text[:min(len(text), 16)/4*4]
	if len(head) < 8 {
		return false
	}
	for _, c := range head {
		if !isBase64Letter(c) {
			return false
		}
	}
	var out [12]byte
	n, err := base64.StdEncoding.Decode(out[:], head)
	if err != nil {
		return false
	}
	dec := bytes.TrimLeft(bytes.TrimPrefix(out[:n], []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(dec) > 0 && (dec[0] == '{' || dec[0] == '[' || dec[0] == ':') {
		return true
	}
	for _, field := range []string{"data", "event", "id:", "retr"} {
		if bytes.HasPrefix(dec, []byte(field)) {
			return true
		}
	}
	return false
}

// decodeBase64InPlace decodes b, standard base64 padded or not (and
// with line breaks anywhere, which base64 skips), in its own bytes, so
// that a large body is not held twice. What is not base64 throughout it
// declines, leaving b as it was.
func decodeBase64InPlace(b []byte) ([]byte, bool) {
	letters, pads, breaks := 0, 0, false
	for _, c := range b {
		switch {
		case c == '\r' || c == '\n':
			breaks = true
		case c == '=':
			pads++
		case pads == 0 && isBase64Letter(c):
			letters++
		default:
			return b, false // another byte, or a letter after the padding
		}
	}
	if pads > 2 || pads > 0 && (letters+pads)%4 != 0 || letters%4 == 1 {
		return b, false
	}
	data := b
	if breaks {
		data = data[:0]
		for _, c := range b {
			if c != '\r' && c != '\n' {
				data = append(data, c)
			}
		}
	}
	data = data[:letters]
	// a chunk's output, three quarters of it, ends before the next
	// chunk's input starts, so nothing is written over unread input
	var out [3 << 10]byte
	n := 0
	for from := 0; from < len(data); from += 4 << 10 {
		m, _ := base64.RawStdEncoding.Decode(out[:], data[from:min(from+4<<10, len(data))]) // every letter was checked
		n += copy(b[n:], out[:m])
	}
	return b[:n], true
}

func isBase64Letter(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/'
}

// answered is when the entry's answer was complete.
func (e *harEntry) answered() time.Time {
	if e.started.IsZero() || e.elapsed < 0 {
		return e.started
	}
	return e.started.Add(time.Duration(e.elapsed * float64(time.Millisecond)))
}

// responseType is the answer's media type, from its Content-Type header,
// else from the content's mimeType when there is content (devtools write
// "x-unknown" for none).
func (e *harEntry) responseType() string {
	if ct := e.resHeaders.get("Content-Type"); ct != "" {
		return ct
	}
	if len(e.resBody) == 0 || e.mimeType == "x-unknown" {
		return ""
	}
	return e.mimeType
}

// httpEntry reads a Streamable HTTP exchange: the page's own documents and
// scripts, CORS preflights and anything else that is not MCP traffic are
// passed over.
func (rd *harReader) httpEntry(e *harEntry) {
	endpoint := endpointOf(e.url)
	mcpHeaders := e.reqHeaders.get("Mcp-Session-Id") != "" || e.reqHeaders.get("MCP-Protocol-Version") != "" || e.reqHeaders.get("Mcp-Method") != ""
	known := rd.endpoints[endpoint] || rd.legacy[e.url] != ""
	body := bytes.TrimSpace(e.reqBody)
	isJSON := false
	switch e.method {
	case "POST":
		switch {
		case jsonRPCBody(body):
			isJSON = true
			rd.endpoint(endpoint)
		case mcpHeaders || known:
		default:
			return
		}
	case "GET":
		sse := strings.Contains(strings.ToLower(e.responseType()), "text/event-stream") || looksLikeSSE(e.resBody)
		if !mcpHeaders && !known && !(sse && rd.mcpStream(e.resBody)) {
			return
		}
	case "DELETE":
		if !mcpHeaders && !known {
			return
		}
	default:
		return // OPTIONS (CORS preflights), HEAD, PUT …
	}

	conn := "entry " + strconv.Itoa(e.index)
	base := session.Frame{File: rd.name, Line: e.line, Transport: "http", ConnID: conn}
	var frames []*session.Frame
	var damage []heldDamage
	if e.method == "POST" {
		f := base
		f.Direction, f.Time = session.ClientToServer, e.started
		e.reqHeaders.setRequest(&f)
		switch {
		case !e.hasReqBody || len(body) == 0:
			damage = append(damage, heldDamage{session.Damage{File: rd.name, Line: e.line, Reason: "the HAR kept no body of this POST"}, session.ClientToServer})
		case isJSON || validJSON(body):
			f.Raw = body
			frames = append(frames, &f)
		default:
			f.Text, f.HasText = string(e.reqBody), true
			frames = append(frames, &f)
		}
	}
	if e.status > 0 || e.cutInAnswer() { // 0: the exchange failed or was aborted before an answer
		ans := answer{
			base:  base,
			body:  e.resBody,
			isSSE: strings.Contains(strings.ToLower(e.responseType()), "text/event-stream") || (looksLikeSSE(e.resBody) && !validJSON(bytes.TrimSpace(e.resBody))),
			line:  func(int) int { return e.line },
		}
		if e.cutInAnswer() {
			ans.cut = true
			if !ans.isSSE {
				ans.body = clipJSON(ans.body)
			}
		}
		ans.base.Direction, ans.base.Time, ans.base.Status = session.ServerToClient, e.answered(), e.status
		ans.base.ContentType = e.responseType()
		ans.base.AuthChallenge = e.resHeaders.get("WWW-Authenticate")
		from := len(frames)
		ans.frames(func(f *session.Frame) { frames = append(frames, f) },
			func(d session.Damage) { damage = append(damage, heldDamage{d, session.ServerToClient}) })
		if ans.isSSE {
			rd.legacyEndpoint(e.url, frames[from:])
		}
	}
	switch {
	case e.cut == nil:
	case len(frames) == 0: // a stream whose first bytes hold no event
		damage = append(damage, heldDamage{session.Damage{File: rd.name, Line: e.line, Reason: fmt.Sprintf("a HAR entry of more than %s was skipped: its first %[1]s hold no frame", sizeText(e.cut.max)),
			Lost: tooLargeLost("a HAR entry", e.cut.max)}, session.ServerToClient})
	default:
		e.markOverLimit(frames[len(frames)-1])
		if e.status == 0 && !e.cutInAnswer() {
			damage = append(damage, heldDamage{e.pastCut(rd.name), session.ServerToClient})
		}
	}

	// The session: the exchange's Mcp-Session-Id (the answer carries it
	// when initialize assigns it), else the one its endpoint is in.
	id := e.reqHeaders.get("Mcp-Session-Id")
	if id == "" {
		id = e.resHeaders.get("Mcp-Session-Id")
	}
	if id == "" {
		id = rd.legacy[e.url]
	}
	switch {
	case id != "":
		rd.flush(endpoint, id)
		if e.method == "DELETE" {
			delete(rd.current, endpoint) // the session ends; the next one gets a new id
		} else {
			rd.setCurrent(endpoint, id)
		}
	case rd.current[endpoint] != "":
		id = rd.current[endpoint]
	default:
		rd.hold(heldEntry{endpoint: endpoint, frames: frames, damage: damage})
		return
	}
	rd.emit(id, endpoint, frames, damage)
}

// mcpStream reports a GET's event stream that is MCP's: its first event is
// JSON-RPC, or the legacy transport's endpoint event.
func (rd *harReader) mcpStream(body []byte) bool {
	found, first := false, true
	eachSSEEvent(body, func(ev sseEvent) {
		if first {
			found = ev.Type == "endpoint" || jsonRPCBody(bytes.TrimSpace(ev.Data))
			first = false
		}
	})
	return found
}

// legacyEndpoint remembers where the legacy HTTP+SSE transport told the
// client to POST: those POSTs belong to the stream's session.
func (rd *harReader) legacyEndpoint(streamURL string, frames []*session.Frame) {
	for _, f := range frames {
		if !f.HasText || !session.IsEndpoint(f.Text) {
			continue
		}
		base, err1 := url.Parse(streamURL)
		ref, err2 := url.Parse(strings.TrimSpace(f.Text))
		if err1 != nil || err2 != nil {
			continue
		}
		post := base.ResolveReference(ref).String()
		if rd.legacy == nil {
			rd.legacy = map[string]string{}
		}
		if len(rd.legacy) < maxEndpoints {
			rd.legacy[post] = post // the POST URL names the session (it carries its id)
			rd.legacy[streamURL] = post
		}
		rd.endpoint(endpointOf(post))
	}
}

func (rd *harReader) endpoint(u string) {
	if rd.endpoints == nil {
		rd.endpoints = map[string]bool{}
	}
	if len(rd.endpoints) < maxEndpoints {
		rd.endpoints[u] = true
	}
}

func (rd *harReader) setCurrent(endpoint, id string) {
	if rd.current == nil {
		rd.current = map[string]string{}
	}
	if _, ok := rd.current[endpoint]; ok || len(rd.current) < maxEndpoints {
		rd.current[endpoint] = id
	}
}

// emit adds an entry's frames and damage to session id.
func (rd *harReader) emit(id, endpoint string, frames []*session.Frame, damage []heldDamage) {
	label := labelOf(endpoint)
	if id == "" {
		id = rd.name // a request URL the writer left empty
	}
	for _, f := range frames {
		f.SessionID, f.Label = id, label
		rd.c.Add(f)
	}
	// after the frames: the damage is what is left of the entry's answer,
	// which a lost frame excuses only for a request sent before it
	for _, d := range damage {
		rd.c.Damage(d.Damage, session.Survived{SessionID: id, Direction: d.dir})
	}
}

// hold keeps an entry of an endpoint whose session is not known yet (a
// version probe before initialize assigned the session id). Past the
// bounds, or at the end, the endpoint's held entries become a session of
// their own, keyed by the endpoint.
func (rd *harReader) hold(h heldEntry) {
	for _, f := range h.frames {
		rd.held += len(f.Raw) + len(f.Text) // bytes of the entry's own, not of the stream's buffer
	}
	rd.waiting = append(rd.waiting, h)
	flushed := ""
	if len(rd.waiting) > maxHeldEntries || rd.held > maxHeldHARBytes {
		flushed = rd.waiting[0].endpoint
		rd.flush(flushed, flushed)
		rd.setCurrent(flushed, flushed)
	}
	if h.endpoint != flushed {
		// still waiting when the stream reads the next entry over its bytes
		for _, f := range h.frames {
			f.Raw = bytes.Clone(f.Raw)
		}
	}
}

// flush emits the held entries of endpoint into session id, in order.
func (rd *harReader) flush(endpoint, id string) {
	kept := rd.waiting[:0]
	for _, h := range rd.waiting {
		if h.endpoint != endpoint {
			kept = append(kept, h)
			continue
		}
		for _, f := range h.frames {
			rd.held -= len(f.Raw) + len(f.Text)
		}
		rd.emit(id, endpoint, h.frames, h.damage)
	}
	clear(rd.waiting[len(kept):])
	rd.waiting = kept
}

// flushAll ends the file: entries still waiting for a session id form
// sessions keyed by their endpoints.
func (rd *harReader) flushAll() {
	for len(rd.waiting) > 0 {
		e := rd.waiting[0].endpoint
		rd.flush(e, e)
	}
}

// callEntry reads an entry of mcpsnoop's call-level export: one call per
// entry, mcp://LABEL/METHOD[/NAME], the request's params as postData.text,
// the result (200), the error or isError result (500) or nothing (0,
// pending) as content.text. No ids, notifications or headers are recorded:
// each call gets the next id of its session, and its direction is its
// method's (the client's when either side may send it).
func (rd *harReader) callEntry(e *harEntry, u *url.URL) {
	label := u.Host
	sid := cmp.Or(label, rd.name)
	path := strings.TrimPrefix(u.Path, "/")
	if p, err := url.PathUnescape(strings.TrimPrefix(u.EscapedPath(), "/")); err == nil {
		path = p
	}
	method := path
	if strings.HasPrefix(path, "tools/call/") {
		method = "tools/call"
	}
	if rd.calls == nil {
		rd.calls = map[string]int64{}
	}
	rd.calls[sid]++
	id := rd.calls[sid]
	dir := session.MethodDirection(method)
	if dir == session.DirUnknown {
		dir = session.ClientToServer
	}

	body := bytes.TrimSpace(e.resBody)
	if e.cutInAnswer() {
		body = clipJSON(body)
	}
	base := session.Frame{File: rd.name, Line: e.line, SessionID: sid, Label: label}
	if dir == session.ClientToServer {
		rd.gap.request(rd.c, sid, method, rd.name, e.line)
	}
	f := base
	f.Direction, f.Time, f.Raw = dir, e.started, e.callRequest(id, method, body)
	if e.cut != nil && ((e.status == 0 && !e.cutInAnswer()) || !validJSON(body)) {
		// the answer lies past the cut, or what precedes it holds no JSON
		e.markOverLimit(&f)
		rd.c.Add(&f)
		rd.c.Damage(e.pastCut(rd.name), session.Survived{SessionID: sid, Direction: dir.Opposite()})
		return
	}
	rd.c.Add(&f)

	switch {
	case (e.status == 0 && !e.cutInAnswer()) || (e.status < 200 && strings.EqualFold(e.statusText, "pending")):
		return // unanswered when mcpsnoop exported it
	case !validJSON(body):
		rd.c.Damage(session.Damage{File: rd.name, Line: e.line, Reason: "the HAR kept no readable answer of this call"}, session.Survived{SessionID: sid, Direction: dir.Opposite()})
		return
	}
	member := "result"
	if (e.status >= 400 || e.cutInAnswer() && e.status == 0) && isErrorObject(body) { // a cut may leave the status out
		member = "error"
	}
	g := base
	g.Direction, g.Time = dir.Opposite(), e.answered()
	g.Raw = wrapAnswer(e.raw, body, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,%q:`, id, member))
	if e.cut != nil {
		e.markOverLimit(&g)
	}
	rd.c.Add(&g)
	if dir == session.ClientToServer {
		rd.gap.answered(sid, method, member == "result")
	}
}

// callRequest makes the request message of a call of mcpsnoop's export,
// its params written around the body where it was decoded (wrapOutside),
// over anything but answer, the answer's body: 200 MiB of tool arguments
// are not copied. The request is handed on (Correlator.Add, done with its
// bytes when it returns) before the answer is written, so the answer may
// be written over the request in turn.
func (e *harEntry) callRequest(id int64, method string, answer []byte) []byte {
	head := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%s`, id, strconv.Quote(method))
	params := bytes.TrimSpace(e.reqBody)
	if len(params) == 0 || string(params) == "null" || !validJSON(params) {
		return append(head, '}')
	}
	return wrapOutside(e.raw, params, append(head, `,"params":`...), answer)
}

// isErrorObject reports a JSON-RPC error object: a code and a message, and
// none of a result's content.
func isErrorObject(b []byte) bool {
	code, message, content := false, false, false
	jsonscan.Top(b, func(name string, _ []byte) {
		switch name {
		case "code":
			code = true
		case "message":
			message = true
		case "content", "isError", "structuredContent":
			content = true
		}
	})
	return code && message && !content
}
