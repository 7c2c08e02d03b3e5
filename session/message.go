package session

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
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

	// The common members of params (a request's or notification's, when
	// an object) and of result (a response's, when an object), decoded in
	// the reader's walk of the message: correlation reads them here, the
	// rules through the frame's View, which is seeded with them.
	req *mcp.ParamFields
	res *mcp.ResultFields
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

// ParamsMeta is the _meta of a request's or notification's params as the
// reader decoded it, nil when there is none: for the formats that learn
// from a message outside correlation (plain JSON-RPC's progress tokens).
// Rules and facts read a frame's View instead.
func (m *Message) ParamsMeta() *mcp.Meta {
	if m.req == nil || m.req.RawMeta == nil {
		return nil
	}
	return &m.req.Meta
}

// wireMessage holds the members of a JSON-RPC object, still raw, so that a
// member of the wrong type is reported instead of failing the whole frame.
type wireMessage struct {
	JSONRPC, ID, Method, Params, Result, Error []byte

	// With a store, the params and result objects are decoded into it
	// during the message's walk (jsonscan.ObjectAtNested), not walked again.
	st                     *msgStore
	into                   byte // which of the two the walk is in: 'p' or 'r'
	readParams, readResult bool // the last params (result) object was decoded into st
}

// decodeMessage classifies raw, a JSON value. The raw slices it keeps alias
// raw.
func decodeMessage(raw json.RawMessage) Message { return decodeMessageIn(raw, nil) }

// msgStore is where a reused frame's message keeps its decoded params and
// result, instead of allocating them for every message.
type msgStore struct {
	req mcp.ParamFields
	res mcp.ResultFields
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
	w := wireMessage{st: st}
	end, dup, err := jsonscan.ObjectAtNested(b, i, depth+1, true, w.member, w.open, w.nestedMember)
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
		w.readParams = w.into == 'p'
	case "result":
		w.Result = v
		w.readResult = w.into == 'r'
	case "error":
		w.Error = v
	}
	w.into = 0
}

// open decodes a params or result object during the walk, into a zeroed
// store: of a member named twice, the last one counts.
func (w *wireMessage) open(name []byte) bool {
	if w.st == nil {
		return false
	}
	switch string(name) {
	case "params":
		w.st.req, w.into = mcp.ParamFields{}, 'p'
	case "result":
		w.st.res, w.into = mcp.ResultFields{}, 'r'
	default:
		return false
	}
	return true
}

func (w *wireMessage) nestedMember(name, val []byte) {
	if w.into == 'p' {
		w.st.req.Member(name, val)
	} else {
		w.st.res.Member(name, val)
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
				var p *mcp.ParamFields
				switch {
				case w.readParams:
					p = &st.req // decoded by the walk
				case st != nil:
					p = &st.req
					mcp.DecodeParams(w.Params, p)
				default:
					p = new(mcp.ParamFields)
					mcp.DecodeParams(w.Params, p) // mistyped fields stay empty; rules judge them
				}
				m.req = p
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
		var r *mcp.ResultFields
		switch {
		case w.readResult:
			r = &st.res // decoded by the walk
		case st != nil:
			r = &st.res
			mcp.DecodeResult(w.Result, r)
		default:
			r = new(mcp.ResultFields)
			mcp.DecodeResult(w.Result, r)
		}
		m.res = r
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
	if plain := plainDigits(s); plain >= 0 {
		return true, plain // the common id: 7, -12; nothing to parse or copy
	}
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

// plainDigits returns how many digits s has past its leading zeros when s
// is digits only (0 for zero), and -1 when it has anything else.
func plainDigits(s string) int64 {
	if s == "" {
		return -1
	}
	lead := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return -1
		}
		if lead < 0 && c != '0' {
			lead = i
		}
	}
	if lead < 0 {
		return 0
	}
	return int64(len(s) - lead)
}
