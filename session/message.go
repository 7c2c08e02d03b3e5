package session

import (
	"bytes"
	"encoding/json"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"math/big"
	"strings"
	"unicode/utf8"
)

// Kind classifies a protocol frame's JSON-RPC value.
type Kind uint8

const (
	NoMessage    Kind = iota // stderr, meta, status-only or text frames
	Request                  // method and id
	Notification             // method without id
	Response                 // result and/or error, or an id alone
	Invalid                  // not a JSON-RPC object; Message.Problem says why
)

func (k Kind) String() string {
	return [...]string{"none", "request", "notification", "response", "invalid"}[k]
}

// Message is the JSON-RPC view of a frame, decoded once. Large members stay
// raw so that only the rules that need them pay for decoding them.
type Message struct {
	Kind Kind
	// shape is what correlation follows: for a message Invalid only because
	// a member name appears twice, the kind it otherwise reads as (its last
	// value of each member, as most decoders keep), so that its request is
	// not also pending, or its answer also unmatched.
	shape   Kind
	Problem string // why the value is Invalid

	Version    string // the jsonrpc member when it is a string
	HasVersion bool   // the jsonrpc member is present (of any type)

	ID    ID // zero when the id member is absent
	HasID bool

	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *RPCError // nil unless an error member is present

	Req *RequestParams // decoded params of a request or notification whose params is an object
	Res *ResultFields  // decoded fields of a result that is an object
}

// Shape is the kind correlation treats the message as.
func (m *Message) Shape() Kind {
	if m.Kind == Invalid && m.shape != NoMessage {
		return m.shape
	}
	return m.Kind
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// RequestParams holds the parameter fields correlation and rules read.
type RequestParams struct {
	Name string `json:"name"` // tools/call, prompts/get
	URI  string `json:"uri"`  // resources/*
	Meta struct {
		ProtocolVersion string          `json:"io.modelcontextprotocol/protocolVersion"`
		ProgressToken   json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
	ProtocolVersion string                     `json:"protocolVersion"` // initialize
	RequestID       json.RawMessage            `json:"requestId"`       // notifications/cancelled
	RequestState    *string                    `json:"requestState"`    // MRTR retry
	InputResponses  map[string]json.RawMessage `json:"inputResponses"`  // MRTR retry
	TaskID          string                     `json:"taskId"`          // tasks/*
	Status          string                     `json:"status"`          // notifications/tasks/status
	Task            json.RawMessage            `json:"task"`            // task augmentation or a task object
	Arguments       json.RawMessage            `json:"arguments"`
}

// ResultFields holds the result fields correlation and rules read.
type ResultFields struct {
	IsError         bool                       `json:"isError"`
	ResultType      json.RawMessage            `json:"resultType"`
	ProtocolVersion string                     `json:"protocolVersion"` // initialize
	RequestState    *string                    `json:"requestState"`    // InputRequiredResult
	InputRequests   map[string]json.RawMessage `json:"inputRequests"`   // InputRequiredResult
	Task            *TaskFields                `json:"task"`            // CreateTaskResult
	TaskFields                                 // GetTaskResult carries the task at top level
	Content         json.RawMessage            `json:"content"`
}

// TaskFields are the members of a task object that correlation follows.
type TaskFields struct {
	TaskID string `json:"taskId"`
	Status string `json:"status"`
}

// ResultTypeString returns resultType when it is a JSON string.
func (r *ResultFields) ResultTypeString() (string, bool) {
	if r == nil || len(r.ResultType) == 0 || r.ResultType[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(r.ResultType, &s) != nil {
		return "", false
	}
	return s, true
}

// wireMessage holds the members of a JSON-RPC object, still raw, so that a
// member of the wrong type is reported instead of failing the whole frame.
type wireMessage struct {
	JSONRPC, ID, Method, Params, Result, Error []byte
}

// decodeMessage classifies raw, a JSON value. The raw slices it keeps alias
// raw.
func decodeMessage(raw json.RawMessage) Message { return decodeMessageIn(raw, nil) }

// msgStore is where a reused frame's message keeps its decoded params and
// result, instead of allocating them for every message.
type msgStore struct {
	req RequestParams
	res ResultFields
	ids *idCache // nil: ids are made without the cache
}

// decodeMessageIn is decodeMessage with the decoded params and result in
// st (when not nil), which they alias like the raw slices alias raw.
func decodeMessageIn(raw json.RawMessage, st *msgStore) (m Message) {
	switch jsonscan.FirstByte(raw) {
	case '{':
	case '[':
		m.Kind, m.Problem = Invalid, "a JSON array (a batch) where one JSON-RPC object was expected"
		return m
	case '"':
		m.Kind, m.Problem = Invalid, "a JSON string where a JSON-RPC object was expected"
		return m
	default:
		m.Kind, m.Problem = Invalid, "a bare JSON "+jsonscan.Kind(raw)+" where a JSON-RPC object was expected"
		return m
	}
	var w wireMessage
	dup, err := jsonscan.EachMemberStrict(raw, true, w.member)
	if err != nil {
		m.Kind, m.Problem = Invalid, "not a decodable JSON-RPC object: "+err.Error()
		return m
	}
	return w.message(dup, st)
}

// readMessage decodes the JSON-RPC object at b[i] as decodeMessageIn does,
// as the jsonscan.ValueReader of the member holding it (depth is the
// holder's nesting): the message is walked once, by its own decoder, not
// first skipped by the walk of the envelope around it. A syntax error is
// the holder's, returned; a message that only breaks JSON-RPC's rules is
// an Invalid message, as ever.
func readMessage(b []byte, i, depth int, st *msgStore) (m Message, end int, err error) {
	var w wireMessage
	end, dup, err := jsonscan.ObjectAt(b, i, depth+1, true, w.member)
	if err != nil {
		return m, end, err
	}
	return w.message(dup, st), end, nil
}

func (w *wireMessage) member(name, v []byte) {
	switch string(name) {
	case "jsonrpc":
		w.JSONRPC = v
	case "id":
		w.ID = v
	case "method":
		w.Method = v
	case "params":
		w.Params = v
	case "result":
		w.Result = v
	case "error":
		w.Error = v
	}
}

// message classifies and decodes the members of a JSON-RPC object; dup is
// a member name it uses twice (nil for none).
func (w *wireMessage) message(dup *jsonscan.Duplicate, st *msgStore) (m Message) {
	if dup != nil {
		defer markDuplicate(&m, dup) // once the rest is decoded
	}
	if w.JSONRPC == nil && w.ID == nil && w.Method == nil && w.Result == nil && w.Error == nil {
		m.Kind, m.Problem = Invalid, "a JSON object with none of the JSON-RPC members (jsonrpc, id, method, result, error)"
		return m
	}
	if w.JSONRPC != nil {
		m.HasVersion = true
		m.Version, _ = knownString(w.JSONRPC) // a non-string leaves Version empty
	}
	if w.ID != nil {
		m.HasID = true
		if st != nil && st.ids != nil {
			m.ID = st.ids.make(w.ID)
		} else {
			m.ID = MakeID(w.ID)
		}
	}
	m.Params, m.Result = w.Params, w.Result
	if w.Method != nil {
		var ok bool
		if m.Method, ok = knownString(w.Method); !ok {
			m.Kind, m.Problem = Invalid, "method is a JSON "+jsonscan.Kind(w.Method)+", not a string"
			return m
		}
		if w.Params != nil {
			switch jsonscan.FirstByte(w.Params) {
			case '{':
				var p *RequestParams
				if st != nil {
					p, st.req = &st.req, RequestParams{}
				}
				m.Req = decodeParams(w.Params, p) // mistyped fields stay empty; rules judge them
			case '[':
			default:
				m.Kind, m.Problem = Invalid, "params is a JSON "+jsonscan.Kind(w.Params)+", not an object"
				return m
			}
		}
		m.Kind = Notification
		if m.HasID {
			m.Kind = Request
		}
		return m
	}
	m.Kind = Response
	if w.Error != nil {
		e := new(RPCError)
		if !decodeError(w.Error, e) {
			m.Kind, m.Problem = Invalid, "error is not an object with an integer code and a string message"
			return m
		}
		m.Error = e
	}
	if jsonscan.FirstByte(w.Result) == '{' {
		var r *ResultFields
		if st != nil {
			r, st.res = &st.res, ResultFields{}
		}
		m.Res = decodeResult(w.Result, r)
	}
	return m
}

// markDuplicate makes a message with a member name used twice Invalid:
// receivers disagree about which value wins. A message already invalid for
// another reason keeps that reason.
func markDuplicate(m *Message, dup *jsonscan.Duplicate) {
	if m.Kind == Invalid {
		return
	}
	m.shape, m.Kind = m.Kind, Invalid
	if dup.In == "" {
		m.Problem = "a message with the member " + shortQuote(dup.Name, 60) + " twice"
	} else {
		m.Problem = "an object with the member " + shortQuote(dup.Name, 60) + " twice in " + memberPath(dup.In)
	}
}

// memberPath names the member holding an object: plain when it is a plain
// word (params, arguments), quoted otherwise.
func memberPath(name string) string {
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return shortQuote(name, 60)
		}
	}
	if name == "" || len(name) > 60 {
		return shortQuote(name, 60)
	}
	return name
}

// shortQuote quotes s as JSON, cut to about max bytes: names and values in
// problems come from the capture and may be long.
func shortQuote(s string, max int) string {
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return quoteJSON(s[:cut]) + "…"
	}
	return quoteJSON(s)
}

// decodeParams decodes into p, or a new RequestParams when p is nil.
func decodeParams(v []byte, p *RequestParams) *RequestParams {
	if p == nil {
		p = new(RequestParams)
	}
	_ = jsonscan.EachMember(v, func(name, val []byte) {
		switch string(name) {
		case "name":
			p.Name, _ = jsonscan.Names.String(val)
		case "uri":
			p.URI, _ = jsonscan.String(val)
		case "_meta":
			_ = jsonscan.EachMember(val, func(name, val []byte) {
				switch string(name) {
				case "io.modelcontextprotocol/protocolVersion":
					p.Meta.ProtocolVersion, _ = jsonscan.String(val)
				case "progressToken":
					p.Meta.ProgressToken = val
				}
			})
		case "protocolVersion":
			p.ProtocolVersion, _ = jsonscan.String(val)
		case "requestId":
			p.RequestID = val
		case "requestState":
			if s, ok := jsonscan.String(val); ok {
				p.RequestState = &s
			}
		case "inputResponses":
			p.InputResponses = members(val)
		case "taskId":
			p.TaskID, _ = jsonscan.String(val)
		case "status":
			p.Status, _ = jsonscan.String(val)
		case "task":
			p.Task = val
		case "arguments":
			p.Arguments = val
		}
	})
	return p
}

// decodeResult decodes into r, or a new ResultFields when r is nil.
func decodeResult(v []byte, r *ResultFields) *ResultFields {
	if r == nil {
		r = new(ResultFields)
	}
	_ = jsonscan.EachMember(v, func(name, val []byte) {
		switch string(name) {
		case "isError":
			r.IsError = jsonscan.Bool(val)
		case "resultType":
			r.ResultType = val
		case "protocolVersion":
			r.ProtocolVersion, _ = jsonscan.String(val)
		case "requestState":
			if s, ok := jsonscan.String(val); ok {
				r.RequestState = &s
			}
		case "inputRequests":
			r.InputRequests = members(val)
		case "task":
			if jsonscan.FirstByte(val) == '{' {
				t := taskObject(val)
				r.Task = &t
			}
		case "taskId":
			r.TaskID, _ = jsonscan.String(val)
		case "status":
			r.Status, _ = jsonscan.String(val)
		case "content":
			r.Content = val
		}
	})
	return r
}

// members maps an object's member names to their raw values; nil when val
// is not an object.
func members(val []byte) map[string]json.RawMessage {
	if jsonscan.FirstByte(val) != '{' {
		return nil
	}
	m := map[string]json.RawMessage{}
	_ = jsonscan.EachMember(val, func(name, v []byte) { m[string(name)] = v })
	return m
}

// taskObject reads the members of a task object correlation follows.
func taskObject(raw []byte) TaskFields {
	var t TaskFields
	_ = jsonscan.EachMember(raw, func(name, val []byte) {
		switch string(name) {
		case "taskId":
			t.TaskID, _ = jsonscan.String(val)
		case "status":
			t.Status, _ = jsonscan.String(val)
		}
	})
	return t
}

func decodeError(raw []byte, e *RPCError) bool {
	var code, msg []byte
	if jsonscan.EachMember(raw, func(name, val []byte) {
		switch string(name) {
		case "code":
			code = val
		case "message":
			msg = val
		case "data":
			e.Data = val
		}
	}) != nil {
		return false
	}
	n, ok := jsonscan.Int(code)
	if !ok {
		return false
	}
	if e.Message, ok = jsonscan.String(msg); !ok {
		return false
	}
	e.Code = n
	return true
}

// ID is a JSON-RPC id as its exact token: 1, 1.0 and "1" are three ids.
// The zero ID means "no id".
type ID struct{ tok string }

// IDKind is the JSON type of an id token.
type IDKind uint8

const (
	IDAbsent IDKind = iota
	IDString
	IDInteger
	IDFraction // a number with a non-zero fraction or an exponent that is not integral
	IDNull
	IDOther // boolean, array or object
)

// MakeID returns the canonical token of a raw id. Strings are re-encoded so
// that "a" and "\u0061" are one id; numbers keep their exact spelling.
func MakeID(raw []byte) ID {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ID{}
	}
	if raw[0] == '"' && bytes.IndexByte(raw, '\\') >= 0 {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return ID{quoteJSON(s)}
		}
	}
	if raw[0] == '{' || raw[0] == '[' {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return ID{buf.String()}
		}
	}
	return ID{string(raw)}
}

// IsZero reports an absent id.
func (id ID) IsZero() bool { return id.tok == "" }

// String is the id as a JSON token, for messages and subjects.
func (id ID) String() string { return id.tok }

// Kind is the JSON type of the id.
func (id ID) Kind() IDKind {
	if id.tok == "" {
		return IDAbsent
	}
	switch c := id.tok[0]; {
	case c == '"':
		return IDString
	case c == 'n':
		return IDNull
	case c == '-' || (c >= '0' && c <= '9'):
		if integral, _ := numberShape(id.tok); integral {
			return IDInteger // 1, 1.0, 1e3, 1e400: by its value, however large
		}
		return IDFraction // 1.5, 1e-400: exactly, not as a float64 rounds it
	}
	return IDOther
}

func quoteJSON(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimRight(buf.Bytes(), "\n"))
}

// IntegerFits64 reports whether an integer id fits a 64-bit integer, signed
// or not: one that does not (1e400, 18446744073709551616) is too large for
// any peer's integer type.
func (id ID) IntegerFits64() bool {
	integral, digits := numberShape(id.tok)
	if !integral {
		return false
	}
	if digits <= 18 {
		return true // below 10^18: every 64-bit type holds it
	}
	if digits > 20 {
		return false
	}
	r := new(big.Rat)
	if _, ok := r.SetString(id.tok); !ok || !r.IsInt() {
		return false
	}
	n := r.Num()
	return n.IsInt64() || n.IsUint64()
}

// numberShape reads a JSON number token exactly: whether its value is an
// integer, and how many digits its integer part has (0 for zero and for
// values below one). Exponents are taken as written, not through a float,
// so 1e400 is an integer of 401 digits and 1e-400 a fraction.
func numberShape(tok string) (integral bool, digits int64) {
	s := strings.TrimPrefix(tok, "-")
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	var e int64
	if exp != "" {
		neg := strings.HasPrefix(exp, "-")
		for _, c := range strings.TrimLeft(exp, "+-") {
			if c < '0' || c > '9' {
				return false, 0
			}
			if e < 1<<40 { // far past any exponent that matters
				e = e*10 + int64(c-'0')
			}
		}
		if neg {
			e = -e
		}
	}
	all := whole + frac
	for _, c := range all {
		if c < '0' || c > '9' {
			return false, 0
		}
	}
	point := int64(len(whole)) + e // the decimal point sits after this many digits of all
	lead := int64(len(all) - len(strings.TrimLeft(all, "0")))
	sig := strings.Trim(all, "0")
	if sig == "" {
		return true, 0 // zero, however written
	}
	last := lead + int64(len(sig)) // the digits that matter end here
	return last <= point, max(point-lead, 0)
}
