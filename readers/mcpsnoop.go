package readers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

// mcpsnoop is the mcpsnoop proxy's JSONL envelope format (spec §2.1): one
// JSON object per frame, normally one per line.
type mcpsnoop struct{}

func (mcpsnoop) Name() string       { return "mcpsnoop" }
func (mcpsnoop) Patterns() []string { return []string{"*.jsonl", "*.ndjson"} }

// Detect: the first value is an object with a top-level session_id or
// direction member (before the head ends), or starts as mcpsnoop writes
// envelopes (a first envelope may be torn).
func (mcpsnoop) Detect(head []byte) bool {
	if bytes.HasPrefix(head[jsonscan.SkipSpace(head, 0):], envelopeStart) {
		return true
	}
	found := false
	jsonscan.Top(head, func(name string, _ []byte) {
		found = found || name == "session_id" || name == "direction"
	})
	return found
}

// envelopeHead reports whether open, the start of a value, starts as an
// envelope: a session_id and a direction, which recorders write before a
// frame's raw message.
func envelopeHead(open []byte) bool {
	id, dir := false, false
	jsonscan.Top(open, func(name string, val []byte) {
		switch name {
		case "session_id":
			s, ok := jsonscan.String(val)
			id = ok && s != ""
		case "direction":
			_, dir = jsonscan.String(val)
		}
	})
	return id && dir
}

// envelopeStart is how mcpsnoop starts every envelope it writes.
var envelopeStart = []byte(`{"session_id"`)

func (mcpsnoop) Read(name string, r io.Reader, c *session.Correlator, o Options) error {
	rd := &snoopReader{name: name, c: c}
	rd.store.CacheIDs()
	sp := newSplitter(r, o)
	rd.sp = sp
	rd.reuse = c.ReusesFrames()
	rd.poison = rd.reuse && sp.wipe
	sp.recordStart = envelopeStart
	sp.wholeLines = true // chunk reports a whole line that is not one value
	// An input that can never be a capture ends fast: past its first MiB
	// without an envelope of a session, reading on is only worth it inside
	// a first envelope that is large (a listing of many tools) and starts
	// as envelopes do.
	sp.preludeLimit = o.Prelude
	sp.preludeOK = func(open []byte) bool { return rd.began || envelopeHead(open) }
	// Nor does one endless first envelope hold the read for ever: a first
	// envelope past MaxEnvelope ends it, unread (exit 2, never a pass).
	sp.firstOver = func() bool { return !rd.began }
	for {
		ch, err := sp.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, errPrelude) {
			return &NotCaptureError{File: name, Reason: fmt.Sprintf("no envelope of a session in its first %s", sizeText(int(o.Prelude)))}
		}
		if errors.Is(err, errFirstOver) {
			return fmt.Errorf("%s:%d: its first envelope is larger than %s, the most mcpcheck reads of one envelope; nothing was checked", name, sp.start, sizeText(sp.max))
		}
		if err != nil {
			var gz gzipError
			if errors.As(err, &gz) && rd.began {
				c.Damage(session.Damage{File: name, Line: sp.line, Reason: "the compressed capture breaks off: " + gz.err.Error(), Lost: lostToBreak(gz)}, session.Survived{})
				break
			}
			return fmt.Errorf("%s:%d: %w", name, sp.line, err)
		}
		switch rd.chunk(ch) {
		case notWhole:
			sp.undoWhole() // scanned, it is cut as scanning cuts it
		case unparsable:
			sp.dropLine() // what follows on the line cannot be trusted either
		}
	}
	if c.Finish() != nil {
		return &NotCaptureError{File: name, Reason: "no envelope has a session_id"}
	}
	return nil
}

type snoopReader struct {
	sp    *splitter
	name  string
	c     *session.Correlator
	began bool          // an envelope of a session was read
	env   envelope      // reused: one allocation per file, not per envelope
	frame session.Frame // reused likewise for a FrameReleaser: what correlation holds back, it copies (detach)
	reuse bool
	store session.MessageStore // the reused frame's decoded params and result
	strs  jsonscan.Interner
	// poison overwrites the frame after each envelope (with a test buffer
	// size), so that anything keeping it without detaching sees garbage.
	poison bool
}

// chunkKind is what a piece of the capture turned out to be.
type chunkKind uint8

const (
	envelopeRead chunkKind = iota
	notEnvelope            // valid JSON, but not an envelope of a session
	unparsable             // a complete piece that is not valid JSON
	tornPiece              // the splitter already cut it off
	notWhole               // a whole line taken unscanned is not one JSON value
)

// chunk reads one piece of the capture.
func (rd *snoopReader) chunk(c chunk) chunkKind {
	if c.over {
		return rd.overSize(c)
	}
	if c.torn != "" {
		d := session.Damage{File: rd.name, Line: c.line, Reason: c.torn}
		if c.brokenOff {
			d.Lost = rd.sp.lost
		}
		rd.damaged(d, c.data)
		return tornPiece
	}
	if c.data[0] != '{' {
		kind, reason := notEnvelope, "a JSON array where an envelope was expected"
		if _, err := jsonscan.SkipValue(c.data, 0, 0); err != nil {
			kind, reason = unparsable, notJSONReason("a line", c.data, err)
		}
		rd.damaged(session.Damage{File: rd.name, Line: c.line, Reason: reason}, c.data)
		return kind
	}
	// The envelope's message is decoded as the envelope is walked, where
	// the frame will keep it: in the pipeline's batch (a copy of the
	// envelope), else in the reused frame's store.
	data, st := c.data, (*session.MessageStore)(nil)
	if rd.reuse {
		st = &rd.store
	}
	staged := false
	if copied, sst := rd.c.Stage(data); copied != nil {
		data, st, staged = copied, sst, true
	}
	env := &rd.env
	*env = envelope{}
	if err := env.decode(data, &rd.strs, st); err != nil {
		if c.whole {
			return notWhole // nothing reported: the line is scanned again
		}
		if jsonscan.TooDeep(err) && rd.overLimit(c.data, c.line, "depth", tooDeepProblem) {
			return envelopeRead
		}
		rd.damaged(session.Damage{File: rd.name, Line: c.line, Reason: notJSONReason("an envelope", c.data, err)}, c.data)
		return unparsable
	}
	if env.SessionID == "" {
		rd.c.Damage(session.Damage{File: rd.name, Line: c.line, Reason: "an envelope without a session_id"}, session.Survived{})
		return notEnvelope
	}
	rd.began = true
	f := &rd.frame
	if !rd.reuse {
		f = new(session.Frame)
	}
	env.fill(f, rd.name, c.line)
	f.UseStore(st)
	if c.lasting && !staged { // a staged envelope is in the pipeline's reused batch
		f.SetLasting(c.data)
	}
	rd.c.Add(f)
	if rd.poison {
		session.Poison(f, &rd.store)
	}
	return envelopeRead
}

// overSize reads an envelope larger than the limit as far as its first
// bytes go; when they hold no envelope of a session, it is damage that
// fails the gate.
func (rd *snoopReader) overSize(c chunk) chunkKind {
	max := len(c.data)
	if clipped := jsonscan.ClipPrefix(c.data); clipped != nil && rd.overLimit(clipped, c.line, "size", tooLargeProblem(max)) {
		return envelopeRead
	}
	rd.damaged(session.Damage{File: rd.name, Line: c.line, Reason: c.torn,
		Lost: fmt.Sprintf("an envelope of more than %s, the most mcpcheck reads, could not be read: its first %[1]s hold no envelope of a session", sizeText(max))}, c.data)
	return tornPiece
}

// overLimit adds the frame of data, valid JSON cut to a limit of the
// checker (a prefix closed by ClipPrefix, or nested too deeply), read as
// far as the limit allows and marked with the OverLimit problem (member
// names the limit). It reports whether data held an envelope of a session;
// data is rewritten in place.
func (rd *snoopReader) overLimit(data []byte, line int, member, problem string) bool {
	for clipped := false; ; clipped = true {
		st := (*session.MessageStore)(nil)
		if rd.reuse {
			st = &rd.store
		}
		in := data
		if staged, sst := rd.c.Stage(data); staged != nil {
			in, st = staged, sst
		}
		env := &rd.env
		*env = envelope{}
		err := env.decode(in, &rd.strs, st)
		if jsonscan.TooDeep(err) && !clipped {
			data = jsonscan.ClipDepth(data, jsonscan.ClipLevel)
			continue
		}
		if err != nil || env.SessionID == "" {
			return false
		}
		rd.began = true
		f := &rd.frame
		if !rd.reuse {
			f = new(session.Frame)
		}
		env.fill(f, rd.name, line)
		f.Truncated = true // what was cut is not judged as the frame's shape
		f.EnvelopeProblems = append(f.EnvelopeProblems, session.EnvelopeProblem{Fault: session.OverLimit, Member: member, Problem: problem})
		f.UseStore(st)
		rd.c.Add(f)
		if rd.poison {
			session.Poison(f, &rd.store)
		}
		return true
	}
}

// damaged reports a damaged piece with what survived of its envelope.
func (rd *snoopReader) damaged(d session.Damage, data []byte) {
	sv := session.Survived{SessionID: sniffSessionID(data), Direction: session.DirUnknown}
	if sv.SessionID != "" {
		jsonscan.Top(data, func(name string, val []byte) {
			if name == "direction" {
				dir, _ := jsonscan.String(val)
				sv.Direction = session.ParseDirection(dir)
			}
		})
		sv.Seqs = sniffSeqs(data)
	}
	rd.c.Damage(d, sv)
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

// envelope is the mcpsnoop JSONL record. Its byte fields alias the chunk it
// was decoded from.
type envelope struct {
	SessionID          string
	ServerLabel        string
	Seq                []byte // raw: judged when the frame is made
	TS                 []byte // raw: parsed when the frame is made
	Direction          []byte // raw, nil when absent
	Transport          string
	Raw                []byte
	Text               *string
	MCPMethod          string
	MCPName            string
	MCPProtocolVersion string
	MCPParamHeaders    []session.ParamHeader
	Batch              bool
	ConnID             string
	Truncated          bool
	Redacted           bool
	Status             int
	AuthChallenge      string
	ContentType        string
	Accept             string
	Origin             string
	Duplicate          string // a member name used twice, if any

	// Msg is Raw decoded, when Raw is an object (HasMsg); its parts alias
	// the envelope's bytes and its store.
	Msg    session.Message
	HasMsg bool
}

// fill makes f the frame of the envelope.
func (e *envelope) fill(f *session.Frame, file string, line int) {
	*f = session.Frame{
		File: file, Line: line,
		SessionID: e.SessionID, Label: e.ServerLabel,
		Transport: e.Transport, ConnID: e.ConnID,
		MCPMethod: e.MCPMethod, MCPName: e.MCPName, MCPProtocolVersion: e.MCPProtocolVersion,
		ParamHeaders: e.MCPParamHeaders,
		Batch:        e.Batch, Truncated: e.Truncated, Redacted: e.Redacted,
		Status: e.Status, AuthChallenge: e.AuthChallenge,
		ContentType: e.ContentType, Accept: e.Accept, Origin: e.Origin,
	}
	f.Time = envelopeTime(e.TS)
	var p session.EnvelopeProblem
	if f.Direction, p = envelopeDirection(e.Direction); p.Fault != 0 {
		f.EnvelopeProblems = append(f.EnvelopeProblems, p)
	}
	if f.Seq, p = envelopeSeq(e.Seq); p.Fault != 0 {
		f.EnvelopeProblems = append(f.EnvelopeProblems, p)
	}
	if e.Duplicate != "" {
		f.EnvelopeProblems = append(f.EnvelopeProblems, session.EnvelopeProblem{Fault: session.DuplicateMember, Member: e.Duplicate,
			Problem: "the envelope has the member " + session.ShortQuote(e.Duplicate, 60) + " twice"})
	}
	if len(e.Raw) > 0 && !bytes.Equal(e.Raw, []byte("null")) {
		f.Raw = e.Raw
		if e.HasMsg && f.IsProtocol() { // correlation decodes no other frame's message
			f.Msg = e.Msg
		}
	}
	if e.Text != nil {
		f.Text, f.HasText = *e.Text, true
	}
}

// envelopeTime parses ts (raw, nil when absent); zero when it is not an
// RFC 3339 time. The usual unescaped string is parsed in place, without
// making a string of it: Time.UnmarshalText accepts a subset of what
// time.Parse does, with the same result, and the rest falls back to it.
func envelopeTime(raw []byte) time.Time {
	var t time.Time
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		if u, ok := utcTimestamp(raw[1 : len(raw)-1]); ok {
			return u
		}
	}
	if len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 && t.UnmarshalText(raw[1:len(raw)-1]) == nil {
		return t
	}
	s, _ := jsonscan.String(raw)
	t, _ = time.Parse(time.RFC3339Nano, s)
	return t
}

// decode reads an envelope; a member of the wrong type reads as absent, as
// encoding/json would leave it, and only broken JSON is an error. The
// members every envelope repeats are interned through strs.
//
// An object under raw is decoded as the message (into st) in the same walk.
func (e *envelope) decode(data []byte, strs *jsonscan.Interner, st *session.MessageStore) error {
	readRaw := func(b []byte, i, depth int) (int, error) {
		if i >= len(b) || b[i] != '{' {
			e.HasMsg = false // a raw member used twice: the last is the message
			return jsonscan.SkipValue(b, i, depth)
		}
		m, end, err := session.ReadMessage(b, i, depth, st)
		e.Msg, e.HasMsg = m, err == nil
		return end, err
	}
	dup, err := jsonscan.EachMemberReading(data, "raw", readRaw, func(name, val []byte) {
		switch string(name) {
		case "session_id":
			e.SessionID, _ = strs.String(val)
		case "server_label":
			e.ServerLabel, _ = strs.String(val)
		case "seq":
			e.Seq = val
		case "ts":
			e.TS = val
		case "direction":
			e.Direction = val
		case "transport":
			e.Transport, _ = strs.String(val)
		case "raw":
			e.Raw = val
		case "text":
			if s, ok := jsonscan.String(val); ok {
				e.Text = &s
			}
		case "mcp_method":
			e.MCPMethod, _ = strs.String(val)
		case "mcp_name":
			e.MCPName, _ = strs.String(val)
		case "mcp_protocol_version":
			e.MCPProtocolVersion, _ = strs.String(val)
		case "mcp_param_headers":
			_ = json.Unmarshal(val, &e.MCPParamHeaders)
		case "batch":
			e.Batch = jsonscan.Bool(val)
		case "conn_id":
			e.ConnID, _ = strs.String(val)
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
			e.ContentType, _ = strs.String(val)
		case "accept":
			e.Accept, _ = strs.String(val)
		case "origin":
			e.Origin, _ = strs.String(val)
		}
	})
	if dup != nil {
		e.Duplicate = dup.Name
	}
	return err
}

// envelopeDirection reads the direction member (raw, nil when absent).
func envelopeDirection(raw []byte) (session.Direction, session.EnvelopeProblem) {
	switch string(raw) { // the usual spellings, without making a string
	case `"c2s"`:
		return session.ClientToServer, session.EnvelopeProblem{}
	case `"s2c"`:
		return session.ServerToClient, session.EnvelopeProblem{}
	case `"stderr"`:
		return session.Stderr, session.EnvelopeProblem{}
	case `"meta"`:
		return session.Meta, session.EnvelopeProblem{}
	}
	p := session.EnvelopeProblem{Fault: session.BadDirection, Member: "direction"}
	s, ok := jsonscan.String(raw)
	switch {
	case raw == nil:
		p.Problem = "the envelope has no direction"
	case !ok:
		p.Problem = "direction is a JSON " + jsonscan.Kind(raw) + ", not a string"
	default:
		if d := session.ParseDirection(s); d != session.DirUnknown {
			return d, session.EnvelopeProblem{}
		}
		p.Problem = "direction " + session.ShortQuote(s, 40) + " is not c2s, s2c, stderr or meta"
	}
	return session.DirUnknown, p
}

// envelopeSeq reads the seq member (raw, nil when absent): a non-negative
// integer that fits in 63 bits. A null seq reads as absent.
func envelopeSeq(raw []byte) (int64, session.EnvelopeProblem) {
	if raw == nil || string(raw) == "null" {
		return 0, session.EnvelopeProblem{}
	}
	var n int64
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	fits := len(digits) > 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			fits = false
			break
		}
		if n > (math.MaxInt64-int64(c-'0'))/10 {
			n = -1 // too large
			break
		}
		n = n*10 + int64(c-'0')
	}
	p := session.EnvelopeProblem{Fault: session.BadSeq, Member: "seq"}
	tok := string(raw)
	if len(tok) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(tok[cut]) {
			cut--
		}
		tok = tok[:cut] + "…"
	}
	switch k := jsonscan.Kind(raw); {
	case k != "number":
		p.Problem = "seq " + tok + " is a JSON " + k + ", not an integer"
	case !fits:
		p.Problem = "seq " + tok + " is not written as an integer"
	case raw[0] == '-' && n != 0:
		p.Problem = "seq " + tok + " is negative"
	case n < 0:
		p.Problem = "seq " + tok + " does not fit in 63 bits"
	default:
		return n, session.EnvelopeProblem{}
	}
	return 0, p
}
