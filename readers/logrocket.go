package readers

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

// logRocket is the event payload of LogRocket's MCP replay recorder for Go
// servers (spec §2.2 item 5): RequestEvent objects, each a request the
// server handled with its outcome, or EventBatch objects (appID, sdk,
// release, events) as uploaded. A file may hold one batch, several (one per
// line), an array of either, or events one per line. A batch is walked
// event by event, so hundreds of MB are read in bounded memory.
type logRocket struct{}

func (logRocket) Name() string { return "logrocket" }

// Patterns are deliberately narrow: a directory of captures often holds
// other JSON files.
func (logRocket) Patterns() []string { return []string{"*.logrocket.json", "*.logrocket.jsonl"} }

// Detect: the first object (or the first object of an array) is an
// EventBatch (appID and sdk, or events) or a RequestEvent (startTime,
// durationMs and method, and no JSON-RPC or mcpsnoop member).
func (logRocket) Detect(head []byte) bool {
	names := headMembers(head)
	has := func(n string) bool { return slices.Contains(names, n) }
	switch {
	case has("jsonrpc") || has("session_id") || has("direction"):
		return false
	case has("events") || (has("appID") && has("sdk")):
		return true
	}
	return has("startTime") && has("durationMs") && has("method")
}

// headMembers returns the names of the top-level members of the first
// object of head (or of the first element of a top-level array), as far as
// head reaches.
func headMembers(head []byte) []string {
	i := jsonscan.SkipSpace(head, 0)
	if i < len(head) && head[i] == '[' {
		i = jsonscan.SkipSpace(head, i+1)
	}
	if i >= len(head) || head[i] != '{' {
		return nil
	}
	var names []string
	i++
	for {
		i = jsonscan.SkipSpace(head, i)
		if i >= len(head) || head[i] != '"' {
			return names
		}
		end, err := jsonscan.SkipString(head, i)
		if err != nil {
			return names
		}
		name, _ := jsonscan.String(head[i:end])
		names = append(names, name)
		i = jsonscan.SkipSpace(head, end)
		if i >= len(head) || head[i] != ':' {
			return names
		}
		if i, err = jsonscan.SkipValue(head, jsonscan.SkipSpace(head, i+1), 1); err != nil {
			return names
		}
		i = jsonscan.SkipSpace(head, i)
		if i >= len(head) || head[i] != ',' {
			return names
		}
		i++
	}
}

// truncatedMarker ends a value the recorder cut at its MaxValueLength.
const truncatedMarker = "[truncated by logrocket-mcp-replay-go]"

func (logRocket) Read(name string, r io.Reader, c *session.Correlator, o Options) error {
	js := newJSONStream(r, o)
	rd := &lrReader{name: name, c: c, maxEnvelope: o.MaxEnvelope, ids: map[string]int64{}, gens: map[string]*generation{}, gap: noteGap{recorder: "LogRocket"}}
	var err error
	for err == nil {
		var ch byte
		if ch, err = js.peek(); err != nil {
			break
		}
		switch ch {
		case '{':
			line, atLineStart, col := js.line, js.atLineStart, js.col
			err = rd.object(js)
			js.atLineStart = false // the next object starts a line only if a newline comes first
			if errors.Is(err, errTooDeep) {
				// a top-level object nested too deeply: on to the next one
				var found bool
				found, err = js.resync(atLineStart, col, nil, nil)
				next := js.line
				if !found {
					next, err = 0, errBrokenOff
				}
				c.Damage(session.Damage{File: name, Line: line, Reason: "an event nested too deeply", Lost: unreadRecord("event or batch", next)}, session.Survived{})
			}
		case '[':
			err = js.records(func() error {
				if ch, err := js.peek(); err == nil && ch == '{' {
					return rd.object(js)
				}
				return js.skip()
			}, rd.broken)
		default:
			err = js.fail("%q where an event or a batch should start", ch)
		}
	}
	var se *streamError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, errBrokenOff):
	case errors.As(err, &se) && rd.events == 0:
		return &NotCaptureError{File: name, Line: se.line, Reason: "LogRocket events that are not valid JSON: " + se.msg}
	case errors.As(err, &se):
		c.Damage(session.Damage{File: name, Line: se.line, Reason: "the events break off: " + se.msg, Lost: brokenDocument("LogRocket events", se)}, session.Survived{})
	default:
		return fmt.Errorf("%s:%d: %w", name, js.line, err)
	}
	if c.Finish() != nil {
		return &NotCaptureError{File: name, Reason: "no RequestEvent in it"}
	}
	return nil
}

type lrReader struct {
	name        string
	c           *session.Correlator
	maxEnvelope int // Options.MaxEnvelope
	events      int
	appID       string           // of the batch being read
	ids         map[string]int64 // per session: the last request id given
	gens        map[string]*generation
	gap         noteGap
}

// overLimit reads an event of a batch past the size limit as far as its
// first bytes go (spec §2.1, fail closed): a value they cut in half is
// left out (jsonscan.ClipPrefix), and the last frame is marked past the
// limit. When they hold no RequestEvent, the event is damage that fails
// the gate.
func (rd *lrReader) overLimit(line int, prefix []byte) {
	if clipped := jsonscan.ClipPrefix(prefix); clipped != nil && rd.readEvent(line, clipped, rd.maxEnvelope) {
		return
	}
	rd.skippedOverLimit(line)
}

// singleOverLimit reads a single event past the size limit as overLimit
// reads one of a batch: its members before the limit, and what the limit
// left of the one it cut (singleEvent.keepCut), with the last frame
// marked past the limit. When they hold no RequestEvent, the event is
// damage that fails the gate.
func (rd *lrReader) singleOverLimit(line int, ev *singleEvent) {
	if !rd.decodeEvent(line, lrBuffers{ev.answerBuf, ev.paramsBuf}, ev.each, rd.maxEnvelope) {
		rd.skippedOverLimit(line)
	}
}

// skippedOverLimit reports an event past the size limit whose first bytes
// hold no RequestEvent (spec §2.1, fail closed).
func (rd *lrReader) skippedOverLimit(line int) {
	rd.c.Damage(session.Damage{File: rd.name, Line: line, Reason: fmt.Sprintf("an event of more than %s was skipped: its first %[1]s hold no RequestEvent", sizeText(rd.maxEnvelope)),
		Lost: tooLargeLost("an event", rd.maxEnvelope)}, session.Survived{})
}

// broken reports an event nested too deeply to read (jsonStream.records).
func (rd *lrReader) broken(line, next int) {
	rd.events++
	rd.c.Damage(session.Damage{File: rd.name, Line: line, Reason: "an event nested too deeply", Lost: unreadRecord("event", next)}, session.Survived{})
}

// generation counts the initializes of one server process.
type generation struct {
	n           int
	initialized bool
}

// keptMember is a top-level member kept while it is not known whether its
// object is a batch or an event.
type keptMember struct {
	name string
	val  []byte
}

// object reads a batch (its events one by one) or a single event.
func (rd *lrReader) object(js *jsonStream) error {
	line := js.line
	var single singleEvent
	batch := false
	err := js.object(func(name string) error {
		if name == "events" {
			batch = true
			if ch, err := js.peek(); err != nil || ch != '[' {
				return js.skip()
			}
			return js.records(func() error {
				at := js.line
				if _, err := js.peek(); err == nil {
					at = js.line
				}
				raw, err := js.capture(rd.maxEnvelope)
				switch {
				case errors.Is(err, errValueTooLarge):
					rd.overLimit(at, js.prefix())
					return nil
				case err != nil:
					return err
				}
				rd.event(at, raw, func(fn func(name, val []byte)) error { return jsonscan.EachMember(raw, fn) })
				return nil
			}, rd.broken)
		}
		val, err := single.keep(js, name, rd.maxEnvelope)
		if name == "appID" && val != nil {
			rd.appID, _ = jsonscan.String(val)
		}
		return err
	})
	switch {
	case err != nil || batch:
		return err
	case single.over:
		rd.singleOverLimit(line, &single)
		return nil
	}
	rd.decodeEvent(line, lrBuffers{single.answerBuf, single.paramsBuf}, single.each, 0)
	return nil
}

// singleEvent is what object keeps of a single event: its members, each
// in a buffer of its own, the result's after room for the answer's start
// and the params' after room for the request's, so that each message is
// written around its value where it was read (wrapOutside): 200 MiB of
// answer or of tool arguments are held once, not copied. Its members
// together are held to the size limit of one event.
type singleEvent struct {
	members   []keptMember
	answerBuf []byte // the result's buffer, room first
	paramsBuf []byte // the params' buffer, room first and a spare byte last
	size      int    // the bytes of the members kept
	over      bool   // the members went past the size limit: the one it cut is kept as far as it goes, the rest are skipped
}

// keep reads the value of the member name, and returns it (nil past the
// size limit max).
func (ev *singleEvent) keep(js *jsonStream, name string, max int) ([]byte, error) {
	if ev.over {
		return nil, js.skip()
	}
	room, spare := 0, 0
	switch name {
	case "result":
		room = answerRoom(ev.members)
	case "params":
		room, spare = requestRoom(ev.members), 1 // the spare byte takes the request's closing brace
	}
	buf, err := js.captureOwn(max-ev.size, room, spare)
	if errors.Is(err, errValueTooLarge) {
		ev.over = true
		ev.keepCut(js, name, room, spare)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	val := buf[room : len(buf)-spare]
	ev.hold(name, buf, val)
	ev.size += len(val)
	return val, nil
}

// closersRoom is the spare bytes a member cut at the size limit is kept
// before, for the brackets that close it (jsonscan.ClipPrefix works in
// place when they fit).
const closersRoom = 32

// keepCut keeps what the size limit left of the member name, which it cut
// (jsonStream.prefix), after the same room as a whole one and closed: a
// value cut in half is left out, as in an event of a batch (overLimit).
func (ev *singleEvent) keepCut(js *jsonStream, name string, room, spare int) {
	buf := js.prefixOwn(room, spare+closersRoom)
	if val := jsonscan.ClipPrefix(buf[room : len(buf)-spare-closersRoom]); val != nil {
		ev.hold(name, buf, val)
	}
}

// hold keeps the member name, its value val read into buf.
func (ev *singleEvent) hold(name string, buf, val []byte) {
	switch name {
	case "result":
		ev.answerBuf = buf
	case "params":
		ev.paramsBuf = buf
	}
	ev.members = append(ev.members, keptMember{name, val})
}

// each hands the event's members to fn, as jsonscan.EachMember would.
func (ev *singleEvent) each(fn func(name, val []byte)) error {
	for _, m := range ev.members {
		if !validJSON(m.val) {
			return fmt.Errorf("member %q is not valid JSON", m.name)
		}
		fn([]byte(m.name), m.val)
	}
	return nil
}

// answerRoom is the room a single event's result is read after: the start
// of the answer frames writes around its value, with the recorded id when
// it came first (the recorder writes it first), else one rd.ids counts.
func answerRoom(kept []keptMember) int {
	return len(`{"jsonrpc":"2.0","id":,"result":`) + idRoom(kept)
}

// requestRoom is the room a single event's params are read after: the
// start of the request frames writes around them, with the method when it
// came first (the recorder writes it first), else room for a long one.
func requestRoom(kept []keptMember) int {
	method := len(`"notifications/resources/list_changed"`)
	for _, m := range kept {
		if s, ok := jsonscan.String(m.val); ok && m.name == "method" {
			method = len(strconv.Quote(s))
		}
	}
	return len(`{"jsonrpc":"2.0","id":,"method":,"params":`) + idRoom(kept) + method
}

// idRoom is the room an event's id takes in its messages: the recorded
// one when it came first, else one rd.ids counts.
func idRoom(kept []keptMember) int {
	id := len("-9223372036854775808") // the longest id rd.ids counts
	for _, m := range kept {
		if m.name == "requestID" {
			id = max(id, len(m.val))
		}
	}
	return id
}

// lrEvent is a RequestEvent, decoded.
type lrEvent struct {
	raw             []byte // what the answer's value lies in: the event's bytes, read whole in a batch, or a single event's result buffer (object)
	reqRaw          []byte // what the params lie in: raw in a batch, a single event's params buffer
	start, duration int64
	method, target  string
	requestID       []byte
	params, result  []byte
	errMessage      string
	errCode         int64
	headers         httpHeaders
	serverURL       string
	protocol        string
	instance        string
	seq             int64
	cut             int // the size limit the event was cut at; 0 when read whole
}

func (rd *lrReader) event(line int, raw []byte, each func(fn func(name, val []byte)) error) {
	rd.decodeEvent(line, lrBuffers{raw, raw}, each, 0)
}

// lrBuffers are the bytes an event's answer and request are written in:
// the event's own in a batch, the result's and the params' buffers for a
// single event (object).
type lrBuffers struct{ answer, request []byte }

// readEvent reads an event's bytes cut at the size limit max, closed
// (jsonscan.ClipPrefix); it reports false, having read nothing, when they
// hold no RequestEvent.
func (rd *lrReader) readEvent(line int, raw []byte, max int) bool {
	return rd.decodeEvent(line, lrBuffers{raw, raw}, func(fn func(name, val []byte)) error { return jsonscan.EachMember(raw, fn) }, max)
}

// decodeEvent reads one event; cut is the size limit it was cut at, 0
// when it is whole. A cut one that is not a RequestEvent is not reported:
// it reports false.
func (rd *lrReader) decodeEvent(line int, bufs lrBuffers, each func(fn func(name, val []byte)) error, cut int) bool {
	rd.events++
	e := lrEvent{raw: bufs.answer, reqRaw: bufs.request, cut: cut}
	timed, foreign := false, false
	err := each(func(name, val []byte) {
		switch string(name) {
		case "jsonrpc", "session_id", "direction":
			foreign = true // a JSON-RPC message or an envelope, not an event
		case "startTime", "durationMs":
			timed = true
		}
		switch string(name) {
		case "startTime":
			e.start, _ = jsonscan.Int(val)
		case "durationMs":
			e.duration, _ = jsonscan.Int(val)
		case "method":
			e.method, _ = jsonscan.String(val)
		case "target":
			e.target, _ = jsonscan.String(val)
		case "requestID":
			if k := jsonscan.FirstByte(val); k == '"' || k == '-' || (k >= '0' && k <= '9') {
				e.requestID = val
			}
		case "params":
			e.params = val
		case "result":
			e.result = val
		case "errorMessage":
			e.errMessage, _ = jsonscan.String(val)
		case "errorCode":
			e.errCode, _ = jsonscan.Int(val)
		case "headers":
			e.headers = headerMap(val)
		case "serverUrl":
			e.serverURL, _ = jsonscan.String(val)
		case "protocolVersion":
			e.protocol, _ = jsonscan.String(val)
		case "instanceID":
			e.instance, _ = jsonscan.String(val)
		case "seq":
			e.seq, _ = jsonscan.Int(val)
		}
	})
	if cut > 0 && (err != nil || e.method == "" || foreign || !timed) {
		return false
	}
	if err != nil {
		d := session.Damage{File: rd.name, Line: line, Reason: "an event that is not a JSON object: " + err.Error()}
		if jsonscan.TooDeep(err) {
			d.Lost = unreadRecord("event", -1)
		}
		rd.c.Damage(d, session.Survived{})
		return true
	}
	if e.method == "" || foreign || !timed {
		rd.c.Damage(session.Damage{File: rd.name, Line: line, Reason: "not a RequestEvent (an event has a method and its timing)"}, session.Survived{})
		return true
	}
	rd.frames(&e, line)
	return true
}

// markOverLimit marks f, the last frame of an event cut at the size
// limit, as read only so far: what was cut is not judged as its shape.
func (e *lrEvent) markOverLimit(f *session.Frame) {
	f.Truncated = true
	f.EnvelopeProblems = append(f.EnvelopeProblems, session.EnvelopeProblem{Fault: session.OverLimit, Member: "size", Problem: recordTooLargeProblem("event", e.cut)})
}

// paramsRequired are the requests whose params the protocol requires: an
// event without them had its params left out by the recorder.
var paramsRequired = map[string]bool{
	"initialize": true, "tools/call": true, "prompts/get": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "completion/complete": true,
	"logging/setLevel": true, "tasks/get": true, "tasks/result": true, "tasks/cancel": true,
}

// frames turns an event into its request and its answer: the request with
// the recorded params (the recorder drops _meta), the answer with the
// result, or the error code and message. What the recorder cut or left out
// is marked truncated; a request whose _meta a rule would judge (2026-07-28)
// or whose recorded headers were redacted is marked redacted.
func (rd *lrReader) frames(e *lrEvent, line int) {
	sid := e.headers.get("Mcp-Session-Id")
	if sid == "" {
		// One server process: one session per initialize, since an HTTP
		// server without session ids serves many clients in one process.
		key := cmp.Or(e.instance, rd.name)
		g := rd.gens[key]
		if g == nil {
			g = &generation{}
			if len(rd.gens) < maxGapSessions {
				rd.gens[key] = g
			}
		}
		if e.method == "initialize" {
			if g.initialized {
				g.n++
			}
			g.initialized = true
		}
		sid = key
		if g.n > 0 {
			sid = key + " #" + strconv.Itoa(g.n+1)
		}
	}
	label := rd.appID
	if e.serverURL != "" {
		label = labelOf(endpointOf(e.serverURL))
	}
	f := session.Frame{File: rd.name, Line: line, SessionID: sid, Label: label, Direction: session.ClientToServer}
	if e.serverURL != "" || len(e.headers) > 0 {
		// each request arrived on an HTTP exchange of its own
		f.Transport, f.ConnID = "http", "event "+strconv.Itoa(rd.events)
	}
	e.headers.setRequest(&f)
	for _, v := range [...]string{f.MCPMethod, f.MCPName, f.MCPProtocolVersion, f.Accept, f.ContentType, f.Origin} {
		f.Redacted = f.Redacted || strings.Contains(v, "[REDACTED]")
	}
	for _, h := range f.ParamHeaders {
		f.Redacted = f.Redacted || strings.Contains(h.Value, "[REDACTED]")
	}
	if e.isModern() {
		f.Redacted = true // its _meta, which 2026-07-28 requires, was dropped
	}
	if e.start != 0 {
		f.Time = time.UnixMilli(e.start).UTC()
	}

	notification := strings.HasPrefix(e.method, "notifications/")
	var id []byte
	if !notification {
		// a copy: the request may be written over the recorded one
		id = bytes.Clone(e.requestID)
		if id == nil {
			rd.ids[sid]++
			id = strconv.AppendInt(nil, rd.ids[sid], 10)
		}
	}
	value, isError := resultValue(e.result)
	f.Raw = e.request(id, &f, value)
	answerCut := e.cut > 0 && e.result == nil && e.errMessage == "" // its answer lies past the cut
	if e.cut > 0 && (notification || answerCut) {
		e.markOverLimit(&f)
	}
	if notification {
		rd.gap.notified(sid)
		rd.c.Add(&f)
		return
	}
	rd.gap.request(rd.c, sid, e.method, rd.name, line)
	rd.c.Add(&f)
	if answerCut {
		rd.c.Damage(session.Damage{File: rd.name, Line: line, Reason: fmt.Sprintf("the answer lies past the first %s of this event, the most mcpcheck reads", sizeText(e.cut))},
			session.Survived{SessionID: sid, Direction: session.ServerToClient})
		return
	}

	g := session.Frame{File: rd.name, Line: line, SessionID: sid, Label: label, Direction: session.ServerToClient,
		Transport: f.Transport, ConnID: f.ConnID}
	if e.start != 0 {
		g.Time = time.UnixMilli(e.start + e.duration).UTC()
	}
	var res bytes.Buffer
	fmt.Fprintf(&res, `{"jsonrpc":"2.0","id":%s,`, id)
	ok := false
	switch {
	case e.errMessage != "" && e.result == nil:
		// the Go SDK sends an error without a code of its own as code 0
		fmt.Fprintf(&res, `"error":{"code":%d,"message":%s}`, e.errCode, strconv.Quote(e.errMessage))
	default:
		res.WriteString(`"result":`)
		if e.cut > 0 && isError && jsonscan.FirstByte(value) == '{' && !hasMember(value, "isError") {
			// the value's own flag lies past the cut: the event's stands for it
			res.WriteString(`{"isError":true`)
			if value = bytes.TrimSpace(value[1:]); value[0] != '}' {
				res.WriteByte(',')
			}
			g.Raw = wrapAnswer(e.raw, value, res.Bytes())
		} else if jsonscan.FirstByte(value) == '{' {
			g.Raw = wrapAnswer(e.raw, value, res.Bytes()) // the value is not copied when it can stay where it is
		} else {
			// not captured, or cut to a string at the recorder's limit
			g.Truncated = true
			if isError {
				res.WriteString(`{"content":[],"isError":true}`)
			} else {
				res.WriteString(`{}`)
			}
		}
		ok = !isError
	}
	if g.Raw == nil {
		res.WriteByte('}')
		g.Raw = res.Bytes()
	}
	if e.cut > 0 {
		e.markOverLimit(&g)
	}
	rd.c.Add(&g)
	rd.gap.answered(sid, e.method, ok)
}

// resultValue is the value of a recorded result and its isError flag.
func resultValue(result []byte) (value []byte, isError bool) {
	_ = jsonscan.EachMember(result, func(name, val []byte) {
		switch string(name) {
		case "value":
			value = bytes.TrimSpace(val)
		case "isError":
			isError = jsonscan.Bool(val)
		}
	})
	return value, isError
}

// request makes the event's request message, with the recorded id (nil
// for a notification). Params that are an object or an array are written
// around where they were read (wrapOutside), over anything but answer,
// the answer's value: 200 MiB of tool arguments are not copied. The
// request is handed on (Correlator.Add, done with its bytes when it
// returns) before the answer is written, so the answer may be written
// over the request in turn. What the recorder cut or left out marks f
// truncated.
func (e *lrEvent) request(id []byte, f *session.Frame, answer []byte) []byte {
	head := []byte(`{"jsonrpc":"2.0"`)
	if id != nil {
		head = append(append(head, `,"id":`...), id...)
	}
	head = strconv.AppendQuote(append(head, `,"method":`...), e.method)
	params := bytes.TrimSpace(e.params)
	switch {
	case jsonscan.FirstByte(params) == '{' || jsonscan.FirstByte(params) == '[':
		return wrapOutside(e.reqRaw, params, append(head, `,"params":`...), answer)
	case len(params) > 0 && string(params) != "null", paramsRequired[e.method]:
		// cut to a string at the recorder's limit, or not captured: what
		// survives is the target it addressed
		f.Truncated = true
		switch {
		case e.target == "":
		case strings.HasPrefix(e.method, "resources/"):
			head = fmt.Appendf(head, `,"params":{"uri":%s}`, strconv.Quote(e.target))
		default:
			head = fmt.Appendf(head, `,"params":{"name":%s}`, strconv.Quote(e.target))
		}
	}
	return append(head, '}')
}

// isModern reports an event of 2026-07-28 or later, whose dropped _meta a
// rule would judge.
func (e *lrEvent) isModern() bool {
	v := cmp.Or(e.protocol, e.headers.get("MCP-Protocol-Version"))
	return v != "" && session.NormalizeRevision(v) >= session.ModernRevision
}

// hasMember reports whether the object obj has a member name.
func hasMember(obj []byte, name string) bool {
	found := false
	jsonscan.Top(obj, func(n string, _ []byte) { found = found || n == name })
	return found
}
