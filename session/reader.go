package session

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"io"
	"time"
)

// Handler receives a capture as it is read. Frames of one session arrive in
// capture order, except that an answer recorded before its request is
// delivered after it, a multi round-trip retry recorded before the result
// that issued its state is delivered after that result, and a rejected
// version probe's answer waits for the client's next request.
type Handler interface {
	// Frame is called once per correlated frame. f is not retained by the
	// reader; the handler must not keep it either.
	Frame(s *Session, f *Frame)
	// Damage reports an envelope that could not be read.
	Damage(s *Session, d Damage)
	// End is called once per session after its last frame.
	End(s *Session)
}

// Damage is a piece of a capture that is not a readable envelope.
type Damage struct {
	File   string
	Line   int
	Reason string
}

// NotCaptureError says a file is not an mcpsnoop capture at all.
type NotCaptureError struct {
	File   string
	Line   int // 0 when the problem is the file as a whole
	Reason string
}

func (e *NotCaptureError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: not an mcpsnoop capture: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: not an mcpsnoop capture: %s", e.File, e.Reason)
}

// envelope is the mcpsnoop JSONL record. Its byte fields alias the chunk it
// was decoded from.
type envelope struct {
	SessionID          string
	ServerLabel        string
	Seq                int64
	TS                 string
	Direction          string
	Transport          string
	Raw                []byte
	Text               *string
	MCPMethod          string
	MCPName            string
	MCPProtocolVersion string
	MCPParamHeaders    []ParamHeader
	Batch              bool
	ConnID             string
	Truncated          bool
	Redacted           bool
	Status             int
	AuthChallenge      string
	ContentType        string
	Accept             string
	Origin             string
}

// Read reads one capture from r, calling h for every frame, damage and
// session end. name is how the capture is named in messages. It returns a
// *NotCaptureError when r is not a capture, or the read error that stopped
// it; damage inside a capture is reported through h and is not an error.
func Read(name string, r io.Reader, h Handler) error {
	// The splitter reads through this same buffer (it is large enough), so
	// a test buffer size applies to every buffer the reader reuses.
	br := bufio.NewReaderSize(r, bufferSize())
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return &NotCaptureError{File: name, Reason: "gzip header: " + err.Error()}
		}
		defer zr.Close()
		return read(name, skipBOM(bufio.NewReaderSize(&gzipErrors{zr}, bufferSize())), h)
	}
	return read(name, skipBOM(br), h)
}

// skipBOM drops a UTF-8 byte order mark, which some editors write.
func skipBOM(br *bufio.Reader) *bufio.Reader {
	if head, _ := br.Peek(3); len(head) == 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf {
		br.Discard(3)
	}
	return br
}

// gzipErrors marks decompression failures so that a truncated .gz reads as
// a damaged capture, not as an unreadable file.
type gzipErrors struct{ r io.Reader }

type gzipError struct{ err error }

func (e gzipError) Error() string { return "compressed data: " + e.err.Error() }

func (g *gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = gzipError{err}
	}
	return n, err
}

type reader struct {
	name       string
	h          Handler
	sessions   map[string]*Session
	order      []*Session
	last       *Session // the session of the previous envelope, home for damage
	damage     []damage // damage seen before any session
	moreDamage int      // beyond maxEarlyDamage
	moreLine   int      // the last of those
	shared     *fileState
	began      bool // the first envelope was seen
}

func read(name string, r io.Reader, h Handler) error {
	rd := &reader{name: name, h: h, sessions: map[string]*Session{}, shared: newFileState()}
	sp := newSplitter(r, maxEnvelope)
	first := true
	for {
		c, err := sp.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var gz gzipError
			if errors.As(err, &gz) && rd.began {
				rd.damaged(Damage{File: name, Line: sp.line, Reason: "the compressed capture breaks off: " + gz.err.Error()}, "", nil)
				break
			}
			return fmt.Errorf("%s:%d: %w", name, sp.line, err)
		}
		if first {
			first = false
			if err := checkFirst(name, c); err != nil {
				return err
			}
		}
		if rd.chunk(c) == unparsable {
			sp.dropLine() // what follows on the line cannot be trusted either
		}
	}
	if len(rd.order) == 0 {
		if first {
			return &NotCaptureError{File: name, Reason: "the file is empty"}
		}
		return &NotCaptureError{File: name, Reason: "no envelope has a session_id"}
	}
	for _, pd := range rd.damage { // named sessions that never appeared
		rd.deliver(rd.order[0], pd)
	}
	for _, s := range rd.order {
		s.finish()
		h.End(s)
	}
	return nil
}

// checkFirst decides whether a file is a capture from its first content.
func checkFirst(name string, c chunk) error {
	if len(c.data) > 0 && c.data[0] == '{' {
		if bytes.Contains(c.data, []byte(`"session_id"`)) || bytes.Contains(c.data, []byte(`"direction"`)) {
			return nil
		}
		return &NotCaptureError{File: name, Line: c.line, Reason: `the first object is not an envelope (it has no "session_id")`}
	}
	if c.torn != "" && len(c.data) == 0 {
		return &NotCaptureError{File: name, Line: c.line, Reason: c.torn}
	}
	return &NotCaptureError{File: name, Line: c.line, Reason: "the first line is not a JSON envelope"}
}

// chunkKind is what a piece of the capture turned out to be.
type chunkKind uint8

const (
	envelopeRead chunkKind = iota
	notEnvelope            // valid JSON, but not an envelope of a session
	unparsable             // a complete piece that is not valid JSON
	tornPiece              // the splitter already cut it off
)

// chunk reads one piece of the capture.
func (rd *reader) chunk(c chunk) chunkKind {
	if c.torn != "" {
		rd.damaged(Damage{File: rd.name, Line: c.line, Reason: c.torn}, sniffSessionID(c.data), c.data)
		return tornPiece
	}
	if c.data[0] != '{' {
		kind, reason := notEnvelope, "a JSON array where an envelope was expected"
		if _, err := jsonscan.SkipValue(c.data, 0, 0); err != nil {
			kind, reason = unparsable, "not JSON: "+err.Error()
		}
		rd.damaged(Damage{File: rd.name, Line: c.line, Reason: reason}, sniffSessionID(c.data), c.data)
		return kind
	}
	var env envelope
	if err := env.decode(c.data); err != nil {
		rd.damaged(Damage{File: rd.name, Line: c.line, Reason: "an envelope that is not valid JSON: " + err.Error()}, sniffSessionID(c.data), c.data)
		return unparsable
	}
	if env.SessionID == "" {
		rd.damaged(Damage{File: rd.name, Line: c.line, Reason: "an envelope without a session_id"}, "", nil)
		return notEnvelope
	}
	s := rd.sessions[env.SessionID]
	if s == nil {
		s = newSession(rd.name, env.SessionID, c.line, rd.shared, nil)
		s.emit = func(f *Frame) { rd.h.Frame(s, f) }
		rd.sessions[env.SessionID] = s
		rd.order = append(rd.order, s)
		rd.release(s)
	}
	rd.began = true
	rd.last = s
	for _, f := range env.frames(rd.name, c.line) {
		s.add(f)
	}
	return envelopeRead
}

// damage is a damaged piece with what survived of its envelope.
type damage struct {
	Damage
	sessionID string
	dir       Direction
	seqs      []int64
}

// maxEarlyDamage bounds the damage kept before any session exists.
const maxEarlyDamage = 100

// damaged hands d to the session it belongs to: the one named inside the
// damaged bytes, else the previous envelope's, else the next one to appear.
func (rd *reader) damaged(d Damage, sessionID string, data []byte) {
	pd := damage{Damage: d, sessionID: sessionID, dir: DirUnknown}
	if sessionID != "" {
		jsonscan.Top(data, func(name string, val []byte) {
			if name == "direction" {
				dir, _ := jsonscan.String(val)
				pd.dir = parseDirection(dir)
			}
		})
		pd.seqs = sniffSeqs(data)
	}
	switch s := rd.sessions[sessionID]; {
	case s != nil:
		rd.deliver(s, pd)
	case sessionID == "" && rd.last != nil:
		rd.deliver(rd.last, pd) // unnamed: the session of the envelope before it
	case len(rd.damage) < maxEarlyDamage:
		rd.damage = append(rd.damage, pd) // until its session, or any, appears
	default:
		rd.moreDamage, rd.moreLine = rd.moreDamage+1, pd.Line
	}
}

// release delivers the damage held for s: what names it, and, when s is
// the first session, what names none.
func (rd *reader) release(s *Session) {
	first := len(rd.order) == 1
	kept := rd.damage[:0]
	for _, pd := range rd.damage {
		if pd.sessionID == s.ID || (first && pd.sessionID == "") {
			rd.deliver(s, pd)
		} else {
			kept = append(kept, pd)
		}
	}
	rd.damage = kept
	if first && rd.moreDamage > 0 {
		rd.h.Damage(s, Damage{File: rd.name, Line: rd.moreLine,
			Reason: fmt.Sprintf("and %d more unreadable pieces before the first envelope", rd.moreDamage)})
		rd.moreDamage = 0
	}
}

func (rd *reader) deliver(s *Session, pd damage) {
	if pd.sessionID != "" && s.ID == pd.sessionID {
		s.noteDamage(pd.dir, pd.seqs)
	}
	rd.h.Damage(s, pd.Damage)
}

// noteDamage accounts for a damaged envelope of this session. A protocol
// frame, or one whose direction was lost, may have been the request of an
// unmatched answer or the answer of a pending request; the seqs that
// survived in it (several when envelopes were glued together) are not
// dropped frames.
func (s *Session) noteDamage(dir Direction, seqs []int64) {
	switch dir {
	case ClientToServer, ServerToClient:
		s.credits[dir]++
	case DirUnknown:
		s.credits[ClientToServer]++
		s.credits[ServerToClient]++
	}
	for _, seq := range seqs {
		if seq == s.highestSeq+1 {
			s.highestSeq = seq
		}
	}
}

// sniffSeqs finds the seqs in a damaged envelope, in order.
func sniffSeqs(b []byte) []int64 {
	var seqs []int64
	for {
		i := bytes.Index(b, []byte(`"seq":`))
		if i < 0 {
			return seqs
		}
		b = b[i+6:]
		n := 0
		for n < len(b) && b[n] >= '0' && b[n] <= '9' {
			n++
		}
		if seq, ok := jsonscan.Int(b[:n]); ok {
			seqs = append(seqs, seq)
		}
	}
}

// frames turns an envelope into frames: one, or one per element when the
// protocol channel carried a JSON array (a batch), so that every message
// in it is correlated.
func (e *envelope) frames(file string, line int) []*Frame {
	f := e.frame(file, line)
	if !f.IsProtocol() || jsonscan.FirstByte(f.Raw) != '[' {
		return []*Frame{f}
	}
	elems := jsonscan.Elements(f.Raw)
	if len(elems) == 0 {
		return []*Frame{f} // an empty or broken array: invalid as a whole
	}
	out := make([]*Frame, len(elems))
	for i, el := range elems {
		g := *f
		g.Raw, g.Msg = el, decodeMessage(el)
		g.Batch, g.Element, g.Elements = true, i+1, len(elems)
		out[i] = &g
	}
	return out
}

func (e *envelope) frame(file string, line int) *Frame {
	f := &Frame{
		File: file, Line: line,
		SessionID: e.SessionID, Label: e.ServerLabel, Seq: e.Seq,
		Direction: parseDirection(e.Direction), Transport: e.Transport, ConnID: e.ConnID,
		MCPMethod: e.MCPMethod, MCPName: e.MCPName, MCPProtocolVersion: e.MCPProtocolVersion,
		ParamHeaders: e.MCPParamHeaders,
		Batch:        e.Batch, Truncated: e.Truncated, Redacted: e.Redacted,
		Status: e.Status, AuthChallenge: e.AuthChallenge,
		ContentType: e.ContentType, Accept: e.Accept, Origin: e.Origin,
	}
	if t, err := time.Parse(time.RFC3339Nano, e.TS); err == nil {
		f.Time = t
	}
	if len(e.Raw) > 0 && !bytes.Equal(e.Raw, []byte("null")) {
		f.Raw = e.Raw
	}
	if e.Text != nil {
		f.Text, f.HasText = *e.Text, true
	}
	if f.IsProtocol() && f.Raw != nil {
		f.Msg = decodeMessage(f.Raw)
	}
	return f
}

// sniffSessionID finds the session id in a damaged envelope, if its start
// survived.
func sniffSessionID(b []byte) string {
	const key = `"session_id":"`
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return ""
	}
	rest := b[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || bytes.IndexByte(rest[:j], '\\') >= 0 {
		return ""
	}
	return string(rest[:j])
}

// decode reads an envelope; a member of the wrong type reads as absent, as
// encoding/json would leave it, and only broken JSON is an error.
func (e *envelope) decode(data []byte) error {
	return jsonscan.EachMember(data, func(name, val []byte) {
		switch string(name) {
		case "session_id":
			e.SessionID, _ = jsonscan.String(val)
		case "server_label":
			e.ServerLabel, _ = jsonscan.String(val)
		case "seq":
			e.Seq, _ = jsonscan.Int(val)
		case "ts":
			e.TS, _ = jsonscan.String(val)
		case "direction":
			e.Direction, _ = jsonscan.String(val)
		case "transport":
			e.Transport, _ = jsonscan.String(val)
		case "raw":
			e.Raw = val
		case "text":
			if s, ok := jsonscan.String(val); ok {
				e.Text = &s
			}
		case "mcp_method":
			e.MCPMethod, _ = jsonscan.String(val)
		case "mcp_name":
			e.MCPName, _ = jsonscan.String(val)
		case "mcp_protocol_version":
			e.MCPProtocolVersion, _ = jsonscan.String(val)
		case "mcp_param_headers":
			_ = json.Unmarshal(val, &e.MCPParamHeaders)
		case "batch":
			e.Batch = jsonscan.Bool(val)
		case "conn_id":
			e.ConnID, _ = jsonscan.String(val)
		case "truncated":
			e.Truncated = jsonscan.Bool(val)
		case "redacted":
			e.Redacted = jsonscan.Bool(val)
		case "status":
			n, _ := jsonscan.Int(val)
			e.Status = int(n)
		case "auth_challenge":
			e.AuthChallenge, _ = jsonscan.String(val)
		case "content_type":
			e.ContentType, _ = jsonscan.String(val)
		case "accept":
			e.Accept, _ = jsonscan.String(val)
		case "origin":
			e.Origin, _ = jsonscan.String(val)
		}
	})
}
