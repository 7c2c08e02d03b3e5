package readers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

// jsonrpcFormat is plain JSON-RPC JSONL (spec §2.2 item 2): one message per
// line and no envelope, what tee of both directions of a stdio server
// writes. The file is one session; who sent each message is inferred.
type jsonrpcFormat struct{}

func (jsonrpcFormat) Name() string       { return "jsonrpc" }
func (jsonrpcFormat) Patterns() []string { return []string{"*.jsonl", "*.ndjson"} }

// maxLeadingJunk is how many lines that are not JSON (a server's banner on
// stdout) may come before the first message of a plain JSON-RPC file.
const maxLeadingJunk = 16

// Detect: the first JSON value, after at most maxLeadingJunk lines of text
// and before any Claude Desktop log line, is a JSON-RPC message (or an
// array that starts with one) and not an envelope.
func (jsonrpcFormat) Detect(head []byte) bool {
	junk := 0
	for i := 0; i < len(head); {
		line, next := lineAt(head, i)
		switch lineKindOf(line) {
		case jsonLine:
			return startsJSONRPC(head[i:])
		case claudeLogLine:
			return false
		case textLine:
			if junk++; junk > maxLeadingJunk {
				return false
			}
		}
		i = next
	}
	return false
}

// jsonrpcMembers are the members a JSON-RPC message may have.
var jsonrpcMembers = map[string]bool{"jsonrpc": true, "id": true, "method": true, "params": true, "result": true, "error": true}

// startsJSONRPC reports whether b (possibly cut short) starts with a
// JSON-RPC message or an array whose first element is one: an object with a
// jsonrpc member, or with a method, result or error and nothing but
// JSON-RPC members, and never an envelope's session_id or direction.
func startsJSONRPC(b []byte) bool {
	i := jsonscan.SkipSpace(b, 0)
	if i < len(b) && b[i] == '[' {
		i = jsonscan.SkipSpace(b, i+1)
	}
	if i >= len(b) || b[i] != '{' {
		return false
	}
	version, shape, foreign, envelope := false, false, false, false
	jsonscan.Top(b[i:], func(name string, _ []byte) {
		switch name {
		case "jsonrpc":
			version = true
		case "method", "result", "error":
			shape = true
		case "session_id", "direction":
			envelope = true
		}
		foreign = foreign || !jsonrpcMembers[name]
	})
	return !envelope && (version || shape && !foreign)
}

func (jsonrpcFormat) Read(name string, r io.Reader, c *session.Correlator, o Options) error {
	c.Sequential() // the reader infers directions from the session as correlated so far
	rd := &rpcReader{name: name, id: filepath.Base(name), c: c, maxHeld: c.Limits().MaxHeldBytes}
	sp := newSplitter(r, o)
	rd.sp = sp
	for {
		ch, err := sp.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var gz gzipError
			if errors.As(err, &gz) && rd.began {
				rd.flush()
				c.Damage(session.Damage{File: name, Line: sp.line, Reason: "the compressed capture breaks off: " + gz.err.Error(), Lost: lostToBreak(gz)}, session.Survived{})
				break
			}
			return fmt.Errorf("%s:%d: %w", name, sp.line, err)
		}
		rd.chunk(ch)
	}
	rd.flush()
	if c.Finish() != nil {
		return &NotCaptureError{File: name, Reason: "no JSON-RPC message in it"}
	}
	return nil
}

// rpcReader infers who sent each message of a plain JSON-RPC file: from
// its method (the spec's client and server methods), from the open
// request an answer's id names (both sides number their requests from 0,
// so an id may be open on both: the answer's shape then tells), from the
// request that offered a progress token, for methods either side sends
// (ping) from which side's numbering of requests the id continues, and
// from what only one side may send given the session so far (a 2026-07-28
// client sends no notification but notifications/cancelled, and its
// server no request; progress comes from a side that received requests).
// A message that may be explained by a request recorded after it (tee
// writes to its pipe before its file) waits for the reorder window; what
// stays unknown is reported, never guessed.
type rpcReader struct {
	sp       *splitter
	name, id string
	c        *session.Correlator
	began    bool

	read      int64 // pieces read: the reorder window counts them
	held      []heldFrame
	heldBytes int
	maxHeld   int // session.Limits.MaxHeldBytes

	sent     [3]bool  // per direction: a request with an integer id was sent
	asked    [3]bool  // per direction: any request was sent
	modern   bool     // a request's _meta declared 2026-07-28 or later
	legacy   bool     // an initialize was sent: the session has a handshake
	lastID   [3]int64 // per direction: the id of the last such request
	tokens   map[string]uint8
	tokenFIF []string // tokens in the order offered, to bound the map
	labelled bool
}

// heldFrame waits for a request that tells its direction.
type heldFrame struct {
	f       *session.Frame
	expires int64
}

// maxProgressTokens bounds the progress tokens remembered.
const maxProgressTokens = 4096

func (rd *rpcReader) chunk(ch chunk) {
	rd.read++
	rd.expire(false)
	switch {
	case ch.torn == notJSON: // a line of text on the protocol channel
		f := &session.Frame{File: rd.name, Line: ch.line, SessionID: rd.id, Transport: "stdio",
			Text: string(bytes.TrimRight(ch.data, "\r")), HasText: true}
		undirected(f, "the line is not JSON, so nothing shows who wrote it")
		rd.add(f)
	case ch.torn != "":
		reason := string(bytes.ReplaceAll([]byte(ch.torn), []byte("envelope"), []byte("message")))
		lost := ""
		switch {
		case ch.brokenOff:
			lost = rd.sp.lost
		case ch.over:
			lost = tooLargeLost("a message", len(ch.data))
		}
		rd.c.Damage(session.Damage{File: rd.name, Line: ch.line, Reason: reason, Lost: lost}, session.Survived{SessionID: rd.id, Direction: session.DirUnknown})
	default:
		f := &session.Frame{File: rd.name, Line: ch.line, SessionID: rd.id, Transport: "stdio", Raw: ch.data}
		if ch.deep && tooDeep(ch.data) {
			// valid but past the depth limit: read what it allows (spec §2.1)
			f.Raw, f.Truncated = jsonscan.ClipDepth(ch.data, jsonscan.ClipLevel), true
			f.EnvelopeProblems = append(f.EnvelopeProblems, session.EnvelopeProblem{Fault: session.OverLimit, Member: "depth", Problem: tooDeepProblem})
		}
		if rd.direct(f, false) {
			rd.add(f)
		} else {
			rd.hold(f)
		}
	}
}

// undirected marks a frame whose sender cannot be told.
func undirected(f *session.Frame, why string) {
	f.EnvelopeProblems = append(f.EnvelopeProblems, session.EnvelopeProblem{Fault: session.Undirected, Member: "direction",
		Problem: "plain JSON-RPC records no direction, and " + why})
}

func (rd *rpcReader) session() *session.Session { return rd.c.Session(rd.id) }

// add hands f to the correlator and learns from it; a request may explain
// held frames.
func (rd *rpcReader) add(f *session.Frame) {
	rd.began = true
	rd.c.Add(f)
	if !f.IsProtocol() {
		return
	}
	request := false
	rd.eachMessage(f, func(m *session.Message) {
		if m.Kind != session.Request {
			return
		}
		request = true
		rd.asked[f.Direction] = true
		if m.Method == "initialize" {
			rd.legacy = true
		}
		if meta := m.ParamsMeta(); meta != nil && session.NormalizeRevision(meta.ProtocolVersion) >= session.ModernRevision {
			rd.modern = true
		}
		if m.ID.Kind() == session.IDInteger {
			if n, err := strconv.ParseInt(m.ID.String(), 10, 64); err == nil {
				rd.sent[f.Direction], rd.lastID[f.Direction] = true, n
			}
		}
		if meta := m.ParamsMeta(); meta != nil && len(meta.ProgressToken) > 0 {
			rd.offer(session.MakeID(meta.ProgressToken).String(), f.Direction)
		}
	})
	rd.label(f)
	if request {
		rd.retry()
	}
}

// eachMessage calls fn with the message of a frame the correlator has
// decoded, or each message of an array (which it decoded into copies).
func (rd *rpcReader) eachMessage(f *session.Frame, fn func(*session.Message)) {
	if jsonscan.FirstByte(f.Raw) == '[' {
		for _, el := range jsonscan.Elements(f.Raw) {
			m := session.DecodeMessage(el)
			fn(&m)
		}
		return
	}
	fn(&f.Msg)
}

// label names the session after the server, from the initialize result or,
// without a handshake (2026-07-28), the server/discover result's _meta
// (plain JSON-RPC has no label of its own; the drift baseline is keyed by it).
func (rd *rpcReader) label(f *session.Frame) {
	c := f.Call
	if rd.labelled || c == nil || f.Pairing != session.Answered || f.Direction != session.ServerToClient || f.View().ResultFields() == nil {
		return
	}
	var info []byte
	switch c.Method {
	case "initialize":
		info = jsonscan.Member(f.Msg.Result, "serverInfo")
	case "server/discover":
		info = jsonscan.Member(jsonscan.Member(f.Msg.Result, "_meta"), "io.modelcontextprotocol/serverInfo")
	default:
		return
	}
	name, _ := jsonscan.String(jsonscan.Member(info, "name"))
	if s := rd.session(); s != nil && name != "" {
		s.Label, rd.labelled = name, true
	}
}

// offer remembers that a request sent in dir offered a progress token.
func (rd *rpcReader) offer(token string, dir session.Direction) {
	if rd.tokens == nil {
		rd.tokens = map[string]uint8{}
	}
	if _, ok := rd.tokens[token]; !ok {
		rd.tokenFIF = append(rd.tokenFIF, token)
		if len(rd.tokenFIF) > maxProgressTokens {
			delete(rd.tokens, rd.tokenFIF[0])
			rd.tokenFIF = rd.tokenFIF[1:]
		}
	}
	rd.tokens[token] |= 1 << dir
}

// hold keeps f until a later request may tell its direction.
func (rd *rpcReader) hold(f *session.Frame) {
	f.Raw, f.Msg = append(json.RawMessage(nil), f.Raw...), session.Message{} // the splitter reuses its buffer; decoded again when added
	rd.held = append(rd.held, heldFrame{f: f, expires: rd.read + session.ReorderWindow})
	rd.heldBytes += len(f.Raw)
	for rd.heldBytes > rd.maxHeld && len(rd.held) > 0 {
		rd.release(0, true)
	}
}

// release decides held frame i now and adds it.
func (rd *rpcReader) release(i int, final bool) bool {
	h := rd.held[i]
	if !rd.direct(h.f, final) {
		return false
	}
	rd.held = slices.Delete(rd.held, i, i+1)
	rd.heldBytes -= len(h.f.Raw)
	rd.add(h.f)
	return true
}

// retry decides the held frames a request just added may explain.
func (rd *rpcReader) retry() {
	for i := 0; i < len(rd.held); i++ {
		if rd.release(i, false) {
			i = -1 // what it added may have explained others
		}
	}
}

// expire decides the held frames whose window has passed (all with all).
func (rd *rpcReader) expire(all bool) {
	for len(rd.held) > 0 && (all || rd.held[0].expires < rd.read) {
		rd.release(0, true)
	}
}

func (rd *rpcReader) flush() { rd.expire(true) }

// direct gives f its direction, or marks it undirected, and reports true;
// false means it waits for a request that may be recorded after it (only
// when not final). The message it decodes to read is left in f.Msg, for
// the correlator.
func (rd *rpcReader) direct(f *session.Frame, final bool) bool {
	s := rd.session()
	if jsonscan.FirstByte(f.Raw) != '[' {
		f.Msg = session.DecodeMessage(f.Raw)
		d, why, wait, problem := rd.messageDir(s, &f.Msg, f.Raw, final)
		switch {
		case wait:
			return false
		case d == session.DirUnknown:
			f.Msg = session.Message{} // not judged: the correlator does not decode it
			undirected(f, problem)
		default:
			f.Direction, f.Inferred = d, why
		}
		return true
	}
	var dir session.Direction
	var from session.Inference
	for _, el := range jsonscan.Elements(f.Raw) {
		m := session.DecodeMessage(el)
		d, why, wait, _ := rd.messageDir(s, &m, el, final)
		switch {
		case wait:
			return false
		case d == session.DirUnknown:
		case dir == session.DirUnknown:
			dir, from = d, why
		case d != dir:
			undirected(f, "the messages of the JSON array disagree about who sent them")
			return true
		}
	}
	if dir == session.DirUnknown {
		undirected(f, "the JSON array holds no message that shows who sent it")
	} else {
		f.Direction, f.Inferred = dir, from
	}
	return true
}

// messageDir is who sent m (decoded from raw) and why; wait when a request
// recorded later may still tell (never when final); problem says why it
// cannot be told.
func (rd *rpcReader) messageDir(s *session.Session, m *session.Message, raw []byte, final bool) (d session.Direction, why session.Inference, wait bool, problem string) {
	method, hasID := m.Method, m.HasID
	if m.Kind == session.Invalid && method == "" && !hasID {
		// not decodable: what survives of it may still show its method
		jsonscan.Top(raw, func(name string, val []byte) {
			switch name {
			case "method":
				method, _ = jsonscan.String(val)
			case "id":
				hasID = true
			}
		})
	}
	switch {
	case method != "":
		if d := session.MethodDirection(method); d != session.DirUnknown {
			return d, session.FromMethod, false, ""
		}
		if s != nil && m.Method != "" {
			if d, why := s.DirectionOf(m); d != session.DirUnknown {
				return d, why, false, "" // the call it cancels, the task it names
			}
		}
		if method == "notifications/progress" {
			d, why, wait, problem := rd.progressDir(m.Params, final)
			if d == session.DirUnknown {
				if d = rd.modernSender(method, false); d == session.DirUnknown && !wait {
					d = rd.onlyAsked()
				}
				if d != session.DirUnknown {
					return d, session.FromLegalSender, false, ""
				}
				if !wait && rd.asked[session.ClientToServer] && rd.asked[session.ServerToClient] && problem == noOffer {
					problem = noOffer + ", and both sides sent requests it may report on"
				}
			}
			return d, why, wait, problem
		}
		if d := rd.modernSender(method, hasID); d != session.DirUnknown {
			return d, session.FromLegalSender, false, ""
		}
		switch {
		case method == "notifications/cancelled":
			return session.DirUnknown, session.NotInferred, false, "no request of the id it cancels was recorded on one side only"
		case hasID:
			if d := rd.numbering(m.ID); d != session.DirUnknown {
				return d, session.FromNumbering, false, ""
			}
			return session.DirUnknown, session.NotInferred, false, "either side may send " + session.ShortQuote(method, 80) + " and its id continues neither side's numbering of requests"
		}
		return session.DirUnknown, session.NotInferred, false, "either side may send " + session.ShortQuote(method, 80)
	case hasID && m.ID.Kind() != session.IDAbsent && m.ID.Kind() != session.IDNull:
		return rd.answerDir(s, m, final)
	case hasID:
		return session.DirUnknown, session.NotInferred, false, "an answer without an id names no request"
	}
	return session.DirUnknown, session.NotInferred, false, "the message has neither a method nor an id"
}

// answerDir: an answer travels opposite to the open request of its id.
func (rd *rpcReader) answerDir(s *session.Session, m *session.Message, final bool) (session.Direction, session.Inference, bool, string) {
	id := m.ID
	var c2s, s2c *session.Call
	if s != nil {
		c2s = s.OpenCall(session.ClientToServer, id)
		s2c = s.OpenCall(session.ServerToClient, id)
	}
	switch {
	case c2s != nil && s2c != nil:
		a, b := answerFit(c2s.Method, m, true), answerFit(s2c.Method, m, true)
		switch {
		case a > b:
			return session.ServerToClient, session.FromAnsweredCall, false, ""
		case b > a:
			return session.ClientToServer, session.FromAnsweredCall, false, ""
		}
		return session.DirUnknown, session.NotInferred, false, "both sides have a request of its id open and the answer fits either"
	case c2s != nil || s2c != nil:
		c := c2s
		if c == nil {
			c = s2c
		}
		if !final && answerFit(c.Method, m, false) == fitsNot {
			return session.DirUnknown, session.NotInferred, true, "" // perhaps the answer to a request of the other side, recorded later
		}
		return c.Dir.Opposite(), session.FromAnsweredCall, false, ""
	case !final:
		return session.DirUnknown, session.NotInferred, true, ""
	}
	if s != nil { // a second answer to a finished call
		c2s, s2c = s.RecentCall(session.ClientToServer, id), s.RecentCall(session.ServerToClient, id)
		switch {
		case c2s != nil && s2c == nil:
			return session.ServerToClient, session.FromAnsweredCall, false, ""
		case s2c != nil && c2s == nil:
			return session.ClientToServer, session.FromAnsweredCall, false, ""
		}
	}
	return session.DirUnknown, session.NotInferred, false, "no request of its id was recorded within the reorder window"
}

// noOffer says why progress on a token no request offered has no direction.
const noOffer = "no request offered its progress token within the reorder window"

// progressDir: progress is reported by the side that received the request
// offering its token.
func (rd *rpcReader) progressDir(params []byte, final bool) (session.Direction, session.Inference, bool, string) {
	var token []byte
	jsonscan.Top(params, func(name string, val []byte) {
		if name == "progressToken" {
			token = val
		}
	})
	if token == nil {
		return session.DirUnknown, session.NotInferred, false, "the progress notification names no progress token"
	}
	switch rd.tokens[session.MakeID(token).String()] {
	case 1 << session.ClientToServer:
		return session.ServerToClient, session.FromProgress, false, ""
	case 1 << session.ServerToClient:
		return session.ClientToServer, session.FromProgress, false, ""
	case 0:
		if !final {
			return session.DirUnknown, session.NotInferred, true, ""
		}
		return session.DirUnknown, session.NotInferred, false, noOffer
	}
	return session.DirUnknown, session.NotInferred, false, "requests of both sides offered its progress token"
}

// modernSender is who sent a message either side may send by its method,
// in a session that shows it speaks 2026-07-28 (a request declared it, and
// no initialize was sent): a client sends no notification but
// notifications/cancelled, a server sends no request.
func (rd *rpcReader) modernSender(method string, request bool) session.Direction {
	switch {
	case !rd.modern || rd.legacy:
		return session.DirUnknown
	case request:
		return session.ClientToServer
	case method != "notifications/cancelled":
		return session.ServerToClient
	}
	return session.DirUnknown
}

// onlyAsked is the side that received requests when only one did: progress
// reports on a request, so only that side may send it.
func (rd *rpcReader) onlyAsked() session.Direction {
	switch c2s, s2c := rd.asked[session.ClientToServer], rd.asked[session.ServerToClient]; {
	case c2s && !s2c:
		return session.ServerToClient
	case s2c && !c2s:
		return session.ClientToServer
	}
	return session.DirUnknown
}

// numbering is the side whose numbering of requests id continues, when
// only one does: SDKs number a side's requests 0, 1, 2 … (some from 1).
func (rd *rpcReader) numbering(id session.ID) session.Direction {
	if id.Kind() != session.IDInteger {
		return session.DirUnknown
	}
	n, err := strconv.ParseInt(id.String(), 10, 64)
	if err != nil {
		return session.DirUnknown
	}
	found, count := session.DirUnknown, 0
	for _, d := range [...]session.Direction{session.ClientToServer, session.ServerToClient} {
		if (rd.sent[d] && rd.lastID[d] == n-1) || (!rd.sent[d] && (n == 0 || n == 1)) {
			found, count = d, count+1
		}
	}
	if count != 1 {
		return session.DirUnknown
	}
	return found
}

// answerFit is how well an answer fits a request's method, judged by the
// members its result has: a result with none of the method's own members,
// or an empty-result method answered with members, does not fit.
type fit uint8

const (
	fitsNot fit = iota
	fitsMaybe
	fitsWell
)

// resultShape is what a method's result holds: at least one of own (none:
// an empty result), and nothing beyond own, also and the members every
// result may have.
type resultShape struct{ own, also []string }

var resultShapes = map[string]resultShape{
	"initialize":               {own: []string{"protocolVersion", "serverInfo"}, also: []string{"capabilities", "instructions"}},
	"ping":                     {},
	"logging/setLevel":         {},
	"resources/subscribe":      {},
	"resources/unsubscribe":    {},
	"subscriptions/listen":     {},
	"tools/list":               {own: []string{"tools"}, also: []string{"nextCursor"}},
	"prompts/list":             {own: []string{"prompts"}, also: []string{"nextCursor"}},
	"resources/list":           {own: []string{"resources"}, also: []string{"nextCursor"}},
	"resources/templates/list": {own: []string{"resourceTemplates"}, also: []string{"nextCursor"}},
	"resources/read":           {own: []string{"contents"}},
	"prompts/get":              {own: []string{"messages"}, also: []string{"description"}},
	"tools/call":               {own: []string{"content", "structuredContent", "isError"}},
	"completion/complete":      {own: []string{"completion"}},
	"server/discover":          {own: []string{"supportedVersions"}, also: []string{"capabilities", "instructions", "serverInfo"}},
	"roots/list":               {own: []string{"roots"}},
	"sampling/createMessage":   {own: []string{"model", "role"}, also: []string{"content", "stopReason"}},
	"elicitation/create":       {own: []string{"action"}, also: []string{"content"}},
	"tasks/list":               {own: []string{"tasks"}, also: []string{"nextCursor"}},
}

// anyResult are the members any result may have.
var anyResult = []string{"_meta", "resultType", "cacheScope", "ttlMs"}

func answerFit(method string, m *session.Message, full bool) fit {
	shape, known := resultShapes[method]
	if !known || m.Error != nil || jsonscan.FirstByte(m.Result) != '{' {
		return fitsMaybe
	}
	own, foreign, neutral := false, false, false
	eachTop(m.Result, func(name string) bool {
		switch {
		case name == "task" || name == "inputRequests" || name == "requestState":
			neutral = true // a task handle or an input_required result answers many methods
		case slices.Contains(shape.own, name):
			own = true
		case !slices.Contains(shape.also, name) && !slices.Contains(anyResult, name):
			foreign = true
		}
		// whether it fits at all shows early; how well needs every member
		return full || !(own || neutral || foreign && len(shape.own) == 0)
	})
	switch {
	case neutral:
		return fitsMaybe
	case len(shape.own) == 0 && foreign, len(shape.own) > 0 && !own:
		return fitsNot
	case foreign:
		return fitsMaybe
	}
	return fitsWell
}

// eachTop calls fn with the name of each top-level member of the object b,
// skipping only the values before the one it stops at (fn returns false).
func eachTop(b []byte, fn func(name string) bool) {
	i := jsonscan.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	for i++; ; i++ {
		i = jsonscan.SkipSpace(b, i)
		end, err := jsonscan.SkipString(b, i)
		if err != nil {
			return
		}
		name, _ := jsonscan.String(b[i:end])
		if !fn(name) {
			return
		}
		if i = jsonscan.SkipSpace(b, end); i >= len(b) || b[i] != ':' {
			return
		}
		vend, err := jsonscan.SkipValue(b, jsonscan.SkipSpace(b, i+1), 1)
		if err != nil {
			return
		}
		if i = jsonscan.SkipSpace(b, vend); i >= len(b) || b[i] != ',' {
			return
		}
	}
}
