// Package session is the capture model (Frame, Message, Call, Session) and
// correlation: it turns the frames of one capture file into calls.
//
// The formats of package readers feed a Correlator (its exported sink) in
// one streaming pass: every frame is decoded once, annotated with the Call
// it opens, answers or cancels, and handed to a Handler. Nothing keeps frames after the handler returns, so
// memory is bounded by open calls and small per-session state, never by the
// size of the capture.
package session

import (
	"encoding/json"
	"time"

	"github.com/mcpcheck/mcpcheck/mcp"
)

// Direction says who sent a frame.
type Direction uint8

const (
	DirUnknown     Direction = iota
	ClientToServer           // "c2s"
	ServerToClient           // "s2c"
	Stderr                   // a server stderr line
	Meta                     // the recorder's session description
)

func (d Direction) String() string {
	switch d {
	case ClientToServer:
		return "c2s"
	case ServerToClient:
		return "s2c"
	case Stderr:
		return "stderr"
	case Meta:
		return "meta"
	}
	return "unknown"
}

// Opposite is the direction an answer to a request sent in d travels.
func (d Direction) Opposite() Direction {
	switch d {
	case ClientToServer:
		return ServerToClient
	case ServerToClient:
		return ClientToServer
	}
	return d
}

// Sender names the party that sends in direction d, for messages.
func (d Direction) Sender() string {
	switch d {
	case ClientToServer:
		return "client"
	case ServerToClient:
		return "server"
	}
	return d.String()
}

func parseDirection(s string) Direction {
	switch s {
	case "c2s":
		return ClientToServer
	case "s2c":
		return ServerToClient
	case "stderr":
		return Stderr
	case "meta":
		return Meta
	}
	return DirUnknown
}

// ParamHeader is one recorded Mcp-Param-* request header.
type ParamHeader struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Redacted bool   `json:"redacted,omitempty"`
}

// Frame is one envelope of a capture with its decoded JSON-RPC view.
type Frame struct {
	File string // capture path as given on the command line
	Line int    // 1-based line where the envelope starts

	SessionID string
	Label     string // server_label as written on this envelope
	Seq       int64
	Time      time.Time // zero when the envelope had no parseable ts
	Direction Direction
	Transport string
	ConnID    string

	Raw     json.RawMessage // the JSON-RPC value as observed; nil when absent
	Text    string          // a stderr line or a non-JSON protocol line
	HasText bool

	// Msg is Raw decoded once; every rule reads it instead of decoding Raw.
	Msg Message

	// Element is the 1-based position of this message inside a JSON array
	// the envelope carried (0 when it carried one message); Elements is the
	// array's length.
	Element, Elements int
	// BatchStart marks the first message of a JSON-RPC batch: of such an
	// array, or of a run of envelopes the recorder marked "batch".
	BatchStart bool

	MCPMethod, MCPName, MCPProtocolVersion string
	ParamHeaders                           []ParamHeader
	Batch, Truncated, Redacted             bool
	Status                                 int // HTTP status, 0 when not recorded
	AuthChallenge                          string
	ContentType, Accept, Origin            string

	// EnvelopeProblems is what is wrong with the envelope itself (an
	// unknown direction, a bad seq, a member name used twice); nil for a
	// sound envelope. Its message is still judged when it can be.
	EnvelopeProblems []EnvelopeProblem

	// Set by correlation before the frame reaches a handler.
	GapBefore int64   // frames the recorder dropped just before this one (seq gap)
	Call      *Call   // the call this frame opens, answers, cancels or reports on
	Pairing   Pairing // how the frame relates to Call
	// Inferred says what Direction was inferred from when the capture did
	// not record a usable one. A frame whose direction stays unknown is
	// delivered but not correlated.
	Inferred Inference
	Task     *Task // a task whose terminal status this frame reports

	view     mcp.View // typed views of Msg, made on first use
	viewMade bool
	marks    Marks // what the handler's Prescan found, when marked
	marked   bool
	store    *msgStore // where Msg's params and result are decoded; the reader's, for a reused frame
	lasting  []byte    // the buffer Raw lies in, when nothing reuses it (Lasting)
}

// View returns the frame's message as rules and facts read it: the one
// model of it, seeded with the common members the reader decoded (the same
// correlation read), its other typed views decoded on first use and
// cached. A response is seen through the method of the request it
// answers. Like the frame's bytes, the view is valid only while the frame
// is being handled.
func (f *Frame) View() *mcp.View {
	if !f.viewMade {
		method := f.Msg.Method
		if f.Msg.Kind == Response && f.Call != nil {
			method = f.Call.Method
		}
		f.view.Reset(method, f.Msg.Params, f.Msg.Result)
		f.view.Seed(f.Msg.req, f.Msg.res)
		f.viewMade = true
	}
	return &f.view
}

// Inference is what a frame's direction was inferred from.
type Inference uint8

const (
	NotInferred       Inference = iota // recorded, or unknown
	FromMethod                         // only one side sends its method
	FromAnsweredCall                   // the one open request its id answers
	FromCancelledCall                  // the one request it cancels
	FromTask                           // the task it asks or reports about
	FromProgress                       // the request that offered its progress token
	FromNumbering                      // its id continues one side's numbering of requests
	FromLegalSender                    // only one side may send it, given the session so far
)

// String says what the direction was inferred from, for messages.
func (i Inference) String() string {
	switch i {
	case FromMethod:
		return "its method"
	case FromAnsweredCall:
		return "the request it answers"
	case FromCancelledCall:
		return "the request it cancels"
	case FromTask:
		return "its task"
	case FromProgress:
		return "the request that offered its progress token"
	case FromNumbering:
		return "the numbering of its sender's requests"
	case FromLegalSender:
		return "what each side may send in the session so far"
	}
	return "nothing"
}

// EnvelopeFault is the kind of an EnvelopeProblem.
type EnvelopeFault uint8

const (
	BadDirection    EnvelopeFault = iota + 1 // direction missing, unknown or not a string
	BadSeq                                   // seq present but not a non-negative 63-bit integer
	DuplicateMember                          // a member name used twice
	// Undirected: the format records no direction (plain JSON-RPC) and
	// none could be inferred for this frame.
	Undirected
	// OverLimit: the frame is valid but past a limit of the checker (its
	// nesting depth, its size): what the limit allowed was read and is
	// judged, the rest was left out (spec §2.1, fail closed). The frame is
	// marked Truncated, so that no rule judges the shape of what was cut.
	OverLimit
)

// EnvelopeProblem is one thing wrong with an envelope.
type EnvelopeProblem struct {
	Fault   EnvelopeFault
	Member  string // the member at fault: direction, seq, or the name used twice
	Problem string // what is wrong, for messages
}

func (f *Frame) hasFault(fault EnvelopeFault) bool {
	for _, p := range f.EnvelopeProblems {
		if p.Fault == fault {
			return true
		}
	}
	return false
}

// IsProtocol reports whether the frame travelled on the JSON-RPC channel.
func (f *Frame) IsProtocol() bool {
	return f.Direction == ClientToServer || f.Direction == ServerToClient
}

// HTTPErrorBody reports a server frame that arrived with an HTTP error
// status and carries no JSON-RPC message: no body, a body that is not JSON,
// or JSON that is not JSON-RPC (an OAuth {"error":"invalid_token"}, a
// gateway's {"message":"Bad Gateway"}).
func (f *Frame) HTTPErrorBody() bool {
	k := f.Msg.Shape()
	return f.Direction == ServerToClient && f.Status >= 400 && (k == NoMessage || k == Invalid)
}

// StatusOnly reports an HTTP envelope that carries a status and no body.
func (f *Frame) StatusOnly() bool {
	return f.Raw == nil && !f.HasText && f.Status != 0
}

// TransportPlumbing reports a server frame that correlation found to be the
// HTTP transport's own traffic rather than a protocol message (spec §2.3):
// the legacy HTTP+SSE transport's endpoint event, its 202 acknowledgement
// with a text body, and a 405 that answers no recorded request (the
// client's GET or DELETE of a stream the server does not offer). Rules that
// judge the protocol channel or HTTP errors skip it.
func (f *Frame) TransportPlumbing() bool { return f.Pairing == Plumbing }

// isHTTP reports a frame of the HTTP transport (old logs may omit the
// transport but still name the connection).
func (f *Frame) isHTTP() bool {
	return f.Transport == "http" || (f.Transport == "" && f.ConnID != "")
}

// Pairing is what correlation concluded about a frame.
type Pairing uint8

const (
	Unpaired      Pairing = iota // nothing to correlate (notification, stderr, meta)
	Opened                       // a request that opened Call
	Reused                       // a request that reused the id of Call.Superseded while it was in flight
	Untracked                    // a request that can never be answered (null id)
	Answered                     // the answer to Call
	Late                         // an answer to Call after its requester cancelled it
	Duplicate                    // a further answer to Call
	Unmatched                    // an answer that no request in the capture explains
	Absorbed                     // an unmatched answer explained by a truncated request
	Cancelling                   // a notifications/cancelled naming Call
	ProbeFallback                // an error answer to a version probe the client then fell back from
	Plumbing                     // HTTP transport plumbing, not protocol traffic (see TransportPlumbing)
)

var pairingNames = [...]string{"unpaired", "opened", "reused", "untracked", "answered", "late", "duplicate", "unmatched", "absorbed", "cancelling", "probe-fallback", "plumbing"}

func (p Pairing) String() string {
	if int(p) < len(pairingNames) {
		return pairingNames[p]
	}
	return "pairing?"
}

// Lasting returns the buffer f's Raw lies in when the format reuses it
// for nothing after the frame (an envelope too large for its reused
// buffers): a tracker may then keep slices of f's bytes instead of
// copying them. Nil otherwise, and for every frame correlation copied.
func (f *Frame) Lasting() []byte { return f.lasting }

// SetLasting says that buf, which holds all of f's Raw, is never reused or
// written once f is added (Lasting).
func (f *Frame) SetLasting(buf []byte) { f.lasting = buf }

// detach returns a copy of a frame that correlation holds back, with its
// own copy of the bytes it refers to: the frame itself, Raw and the decoded
// view belong to the reader, which reuses them for the next envelope.
func (f *Frame) detach() *Frame {
	g := new(Frame)
	*g = *f
	g.store, g.lasting = nil, nil // the reader's, reused for the next envelope
	if g.Raw != nil {
		g.Raw = append(json.RawMessage(nil), g.Raw...)
		g.Msg = decodeMessage(g.Raw)
		g.view, g.viewMade = mcp.View{}, false
	}
	return g
}

// Revision is the protocol revision f is judged by: its call's own (a
// request's _meta or MCP-Protocol-Version header, else the session's when
// it was sent), else what a notification declares, else the session's. In
// a session without a handshake (2026-07-28) a server's messages and the
// client's notifications, which carry no version of their own, take the
// revision the session's accepted requests declared so far; a client
// request that shows none stays unknown, and so does its answer.
func (f *Frame) Revision(s *Session) string {
	if f.Call != nil && f.Call.Revision != "" {
		return f.Call.Revision
	}
	if v := f.requestRevision(); v != "" {
		return v
	}
	clientCall := (f.Call != nil && f.Call.Dir == ClientToServer) || (f.Direction == ClientToServer && f.Msg.Kind == Request)
	if s.Revision == "" && s.initCall == nil && !clientCall {
		return s.declared
	}
	return s.Revision
}
