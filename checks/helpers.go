package checks

// Helpers several rules share: each is used by more than one rule (a
// helper of one rule lives in that rule's file). Grouped by what they are
// for; the reorder window is in window.go.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/internal/toolschema"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

// ---- Naming frames, calls and values in messages and subjects.

// callSubject names a call stably across recordings of the same traffic:
// its method and tool, prompt or resource, never its request id, which
// shifts when earlier traffic changes. Calls with the same subject are told
// apart by their occurrence, which the fingerprint counts.
func callSubject(c *session.Call) string {
	if c.Name != "" {
		return c.Method + " " + c.Name
	}
	return c.Method
}

// quoteName quotes a name (a tool, a prompt, a method, a version) for a
// message.
func quoteName(s string) string { return Quote(s, 80) }

// firstText is the first text content item of a result, quoted for a
// message; only its beginning is decoded: far more than a message shows,
// so that a secret the message could show is never cut before Quote
// masks it.
func firstText(content json.RawMessage) string {
	if text, ok := jsonscan.FirstText(content, 64<<10); ok && text != "" {
		return Evidence(text, 200)
	}
	return "(no text content)"
}

// sent names a request or notification for messages: who sent which method.
func sent(f *session.Frame) string {
	return f.Direction.Sender() + " sent " + f.Msg.Method
}

// callName renders the method and, when it has one, the tool, prompt or
// resource a call names: `tools/call "echo"`.
func callName(c *session.Call) string {
	if c.Name != "" {
		return c.Method + " " + quoteName(c.Name)
	}
	return c.Method
}

// methodSubject names a request stably: method, and the tool, prompt or
// URI it names.
func methodSubject(method, name string) string {
	if name != "" {
		return method + " " + name
	}
	return method
}

// requestName renders a request for messages: its method and the tool,
// prompt or resource it names.
func requestName(f *session.Frame) string {
	if f.Call != nil {
		return callName(f.Call)
	}
	return f.Msg.Method
}

// shortJSON renders a small JSON value for a message: a string quoted, a
// number, boolean or null as written, anything else by its kind.
func shortJSON(v []byte) string {
	if s, ok := jsonscan.String(v); ok {
		return Quote(s, 40)
	}
	if t := strings.TrimSpace(string(v)); len(t) <= 40 && strings.IndexAny(t, "{[\"") < 0 && t != "" {
		return t // a number, true, false or null
	}
	return "a JSON " + jsonscan.Kind(v)
}

// cut shortens capture text to about max bytes, on a rune boundary.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max] + "…"
}

// pathString renders a JSON path: .a.b[2]["x y"].
func pathString(path []jsonscan.PathStep) string {
	var b strings.Builder
	for _, s := range path {
		switch {
		case s.Key == nil:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case plainKey(s.Key):
			b.WriteString("." + string(s.Key))
		default:
			b.WriteString(`["` + string(s.Key) + `"]`)
		}
	}
	return b.String()
}

func plainKey(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	for i, c := range k {
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return true
}

// ---- Which frames a rule judges.

// judgeable is a protocol frame whose JSON-RPC structure can be judged: not
// cut short by the recorder, whose truncation truncated-capture reports.
func judgeable(f *session.Frame) bool {
	return f.IsProtocol() && !f.Truncated && f.Msg.Kind != session.NoMessage
}

// redactedPlaceholder is what the mcpsnoop proxy writes for a value it
// redacted (spec §3.11).
const redactedPlaceholder = "[REDACTED]"

// redacted reports a value the recorder redacted: the frame says so and
// the value holds the placeholder. Such a value is never compared.
func redacted(f *session.Frame, value string) bool {
	return f.Redacted && strings.Contains(value, redactedPlaceholder)
}

// overHTTP reports a frame of the HTTP transport (old logs may omit the
// transport but still name the connection).
func overHTTP(f *session.Frame) bool {
	return f.Transport == "http" || (f.Transport == "" && f.ConnID != "")
}

// clientRequest is a request the client sent whose message can be judged.
func clientRequest(f *session.Frame) bool {
	return f.Direction == session.ClientToServer && f.Msg.Kind == session.Request && !f.Truncated
}

// serverResult is a result the server sent for a request of the client
// (the answer, a late or a duplicate one), whole and decoded.
func serverResult(f *session.Frame) bool {
	return f.Direction == session.ServerToClient && f.Msg.Kind == session.Response && f.Call != nil &&
		f.Msg.Error == nil && f.View().Result() != nil && !f.Truncated &&
		(f.Pairing == session.Answered || f.Pairing == session.Late || f.Pairing == session.Duplicate)
}

// httpSession reports traffic of the HTTP transport, where a client may
// open a new MCP session with initialize whenever the old one ends.
func httpSession(s *session.Session, f *session.Frame) bool {
	return f.Transport == "http" || f.ConnID != "" || s.Transport == "http"
}

// completeResult reports a result that is the method's own: not a 2026-07-28
// input_required or task answer, nor a 2025-11-25 task handle. A result
// that is not an object (nil) is not judged.
func completeResult(r *mcp.ResultFields) bool {
	if r == nil || r.Task != nil {
		return false
	}
	if len(r.ResultType) == 0 {
		return true
	}
	rt, _ := r.ResultTypeString()
	return rt == "complete"
}

// ---- Protocol revisions.

// underRevision names, for messages, the revision a frame was judged under.
func underRevision(rev string) string {
	if rev == "" {
		return "no recorded revision"
	}
	return "revision " + rev
}

// revisionSource says, for a message, where the revision of a request that
// does not carry it in its _meta was read: "" when its _meta says it.
func revisionSource(c *session.Call) string {
	if c == nil {
		return ""
	}
	switch c.RevisionSource {
	case session.RevisionFromHeader:
		return " (its MCP-Protocol-Version header says " + c.Revision + ")"
	case session.RevisionFromSession:
		if o := c.RevisionOf; o != nil && o.Method != "initialize" {
			return fmt.Sprintf(" (the session speaks %s: %s at line %d was accepted)", c.Revision, o.Method, o.Line)
		}
		return " (the session speaks " + c.Revision + ")"
	}
	return ""
}

// modernFrame reports a frame judged as 2026-07-28 or later.
func modernFrame(rev string) bool { return rev >= session.ModernRevision }

// legacyServer reports a server that showed it does not speak rev, the
// revision of the request it answers: it negotiated an earlier one through
// initialize, or its server/discover result does not list rev. Its results
// follow its own revision, and clients read them so.
func legacyServer(p *Pass, rev string) bool {
	n := facts.Negotiation.Of(p)
	if n.Negotiated != "" && n.Negotiated < session.ModernRevision {
		return true
	}
	return n.Discovered && !slices.ContainsFunc(n.Supported, func(v string) bool { return session.NormalizeRevision(v) == rev })
}

// ---- Lost frames and repeated problems.

// lossWatch follows whether the capture of a session may have lost a frame:
// a seq gap, a frame the recorder truncated, an envelope that did not parse.
// A rule that would report something as missing stays silent once it has,
// since the missing thing may be in what was lost.
type lossWatch struct{ lost bool }

func (w *lossWatch) see(f *session.Frame) {
	if f.GapBefore > 0 || f.Truncated {
		w.lost = true
	}
}

func (w *lossWatch) damage() { w.lost = true }

// maxRepeatKeys bounds the distinct problems a rule folds repeats of.
const maxRepeatKeys = 1024

// repeats folds the recurrences of one problem into its first finding: a
// server that sends a thousand log notifications without the capability has
// one fault, reported once where it starts and counted a thousand times.
type repeats struct {
	first map[string]*Finding
}

// report calls emit for the first occurrence of key and counts the later
// ones on its finding (Finding.Also).
func (r *repeats) report(key string, emit func() *Finding) {
	if fd := r.first[key]; fd != nil {
		fd.Also++
		return
	}
	fd := emit()
	if r.first == nil {
		r.first = map[string]*Finding{}
	}
	if len(r.first) < maxRepeatKeys {
		r.first[key] = fd
		fd.pin() // its count may still grow
	}
}

// ---- Bounded memory of open calls and streams.

// maxRememberedCalls bounds what a rule remembers of open calls.
const maxRememberedCalls = 4096

// callMemo remembers a little about open calls, for the answer to judge:
// at most max calls, the oldest forgotten first, so unanswered requests
// cannot grow it.
type callMemo[T any] struct {
	max   int
	byKey map[*session.Call]T
	order []*session.Call // insertion order; entries already taken are skipped
}

func newCallMemo[T any](max int) *callMemo[T] {
	return &callMemo[T]{max: max, byKey: map[*session.Call]T{}}
}

func (m *callMemo[T]) put(c *session.Call, v T) {
	if _, ok := m.byKey[c]; !ok {
		m.order = append(m.order, c)
	}
	m.byKey[c] = v
	for len(m.byKey) > m.max {
		old := m.order[0]
		m.order = m.order[1:]
		delete(m.byKey, old)
	}
	if len(m.order) > 2*m.max { // drop the taken ones from the order
		kept := m.order[:0]
		for _, c := range m.order {
			if _, ok := m.byKey[c]; ok {
				kept = append(kept, c)
			}
		}
		clear(m.order[len(kept):])
		m.order = kept
	}
}

// take returns what was remembered of c and forgets it.
func (m *callMemo[T]) take(c *session.Call) (T, bool) {
	v, ok := m.byKey[c]
	delete(m.byKey, c)
	return v, ok
}

// maxListens bounds the subscriptions a rule follows at once.
const maxListens = 256

// ---- Progress tokens: the progress and progress-token rules.

// progressParams is what a notifications/progress carries.
type progressParams struct {
	token       []byte // raw; nil when absent (aliases the frame)
	progress    float64
	hasProgress bool // progress is a number
}

var progressView = &mcp.Lazy[progressParams]{Decode: func(v *mcp.View) progressParams {
	var pp progressParams
	_ = jsonscan.EachMember(v.Params(), func(name, val []byte) {
		switch string(name) {
		case "progressToken":
			pp.token = val
		case "progress":
			if n, err := strconv.ParseFloat(string(val), 64); err == nil {
				pp.progress, pp.hasProgress = n, true
			}
		}
	})
	return pp
}}

// tokenKey is a progress token as the request that carried it: the
// requester's direction and the token's exact JSON text (7 and "7" differ).
type tokenKey struct {
	dir session.Direction
	tok string
}

// requestToken is the progress token a request carries in _meta.
func requestToken(f *session.Frame) (tokenKey, bool) {
	m := &f.Msg
	if m.Kind != session.Request || f.Call == nil {
		return tokenKey{}, false
	}
	tok := f.View().Meta().ProgressToken
	if len(tok) == 0 {
		return tokenKey{}, false
	}
	return tokenKey{f.Direction, session.MakeID(tok).String()}, true
}

// maxProgressTokens bounds the tokens remembered per session.
const maxProgressTokens = 8192

// tokenTable remembers what a rule keeps of the request that carried each
// progress token last: the progress rule its tokenUse, the progress-token
// rule the call while it may be pending.
type tokenTable[V comparable] struct {
	uses   map[tokenKey]V
	order  []tokenKey // first registration order, for eviction
	forgot bool       // a token was evicted: an unknown token may be a forgotten one

	// unsettled are the values whose call may still change, oldest first
	// (some may have been replaced or evicted since): each registration
	// looks at two of them, so that calls that settled are let go soon.
	unsettled []unsettledUse[V]
}

type unsettledUse[V comparable] struct {
	key tokenKey
	v   V
}

// known reports whether a request carried key.
func (t *tokenTable[V]) known(key tokenKey) bool {
	_, ok := t.uses[key]
	return ok
}

// put makes v what is kept of the request of key.
func (t *tokenTable[V]) put(key tokenKey, v V) {
	if t.uses == nil {
		t.uses = map[tokenKey]V{}
	}
	if _, ok := t.uses[key]; !ok {
		if len(t.uses) >= maxProgressTokens {
			delete(t.uses, t.order[0])
			t.order, t.forgot = t.order[1:], true
		}
		t.order = append(t.order, key)
	}
	t.uses[key] = v
	t.unsettled = append(t.unsettled, unsettledUse[V]{key, v})
}

// settle looks at the two oldest unsettled values: let, given a value, says
// whether its call settled and lets it go if so (returning the value to
// keep); one whose call may still change waits its turn again.
func (t *tokenTable[V]) settle(let func(V) (V, bool)) {
	for range 2 {
		if len(t.unsettled) == 0 {
			return
		}
		u := t.unsettled[0]
		t.unsettled[0] = unsettledUse[V]{}
		t.unsettled = t.unsettled[1:]
		if cur, ok := t.uses[u.key]; !ok || cur != u.v {
			continue // replaced or forgotten since
		}
		if v, done := let(u.v); done {
			t.uses[u.key] = v
		} else {
			t.unsettled = append(t.unsettled, u)
		}
	}
}

// ---- Tool definitions and their schemas: the rules that judge them
// (tool-schema-root, tool-schema-invalid, tool-name, schema-construct,
// output-schema, input-schema). They read the latest complete tools/list of
// the catalogue fact; schemas are compiled once per definition through
// toolschema.Shared.

// listingWatch tells a rule when a new complete tools/list arrived: the
// catalogue fact sees a frame before the rules do, so the frame at hand is
// the listing's last page.
type listingWatch struct{ generation int }

// next returns the tools of a listing completed by this frame, else nil.
func (w *listingWatch) next(p *Pass) *mcp.ToolSet {
	tools := &facts.Catalogue.Of(p).Tools
	if tools.Generation == w.generation {
		return nil
	}
	w.generation = tools.Generation
	if !tools.Complete {
		return nil
	}
	return tools.Current
}

// maxRemembered bounds what a rule remembers having reported in one
// session; past it the memory starts over (a finding may then repeat).
const maxRemembered = 4096

// onceSet remembers what a rule reported, so a session that lists its tools
// again and again reports each problem of a definition once.
type onceSet map[string]struct{}

// first reports whether key is new, and remembers it.
func (s *onceSet) first(key string) bool {
	if *s == nil {
		*s = onceSet{}
	}
	if _, seen := (*s)[key]; seen {
		return false
	}
	if len(*s) >= maxRemembered {
		clear(*s)
	}
	(*s)[key] = struct{}{}
	return true
}

// definitionKey identifies one version of a tool's schema for onceSet: the
// names given and a hash of the schema (never the schema itself, which may
// be large).
func definitionKey(schema []byte, parts ...string) string {
	k := toolschema.KeyOf(schema, toolschema.DialectUnknown)
	return strings.Join(parts, "\x00") + "\x00" + string(k[:])
}

// dialectFor is the default dialect of embedded schemas for a frame's
// revision (§3.3).
func dialectFor(p *Pass, f *session.Frame) (toolschema.Dialect, string) {
	rev := f.Revision(p.Session)
	return toolschema.DefaultDialect(rev), rev
}

// callSchemas finds the compiled schemas of called tools in the current
// listing; it remembers each tool's cache key for the listing, so a call
// whose schema is in toolschema.Shared costs two map lookups: neither the
// listing is searched nor the schema hashed.
type callSchemas struct {
	generation int
	dialect    toolschema.Dialect
	keys       map[string]schemaKey // bounded by the listing, which the catalogue holds
}

type schemaKey struct {
	key  toolschema.Key
	none bool // the listed tool declares no such schema
}

// find returns the schema of tool name that schemaOf picks from its
// definition in the latest complete listing, compiled under d; nil when
// the listing is not current, lists no such tool, or the tool has none.
func (c *callSchemas) find(p *Pass, name string, d toolschema.Dialect, schemaOf func(*mcp.Tool) []byte) *toolschema.Schema {
	tools := &facts.Catalogue.Of(p).Tools
	if !tools.Complete || tools.Stale {
		return nil
	}
	if c.keys == nil || c.generation != tools.Generation || c.dialect != d {
		c.keys, c.generation, c.dialect = map[string]schemaKey{}, tools.Generation, d
	}
	k, known := c.keys[name]
	if known {
		if k.none {
			return nil
		}
		if s, ok := toolschema.Shared.Cached(k.key); ok {
			return s
		}
	}
	t, ok := tools.Current.Lookup(name)
	if !ok {
		return nil
	}
	raw := schemaOf(&t)
	if !known {
		k = schemaKey{none: raw == nil}
		if raw != nil {
			k.key = toolschema.KeyOf(raw, d)
		}
		c.keys[name] = k
	}
	if raw == nil {
		return nil
	}
	return toolschema.Shared.GetKey(k.key, raw, d)
}

// maxShownViolations bounds the violations a message lists.
const maxShownViolations = 5

// violationText lists violations for a message.
func violationText(vs []toolschema.Violation) string {
	var parts []string
	for i, v := range vs {
		if i == maxShownViolations {
			parts = append(parts, fmt.Sprintf("and %d more", len(vs)-i))
			break
		}
		parts = append(parts, v.String())
	}
	return strings.Join(parts, "; ")
}
