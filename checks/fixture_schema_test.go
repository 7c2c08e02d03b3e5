package checks_test

// Every message of every fixture is realistic traffic of its revision, so
// each one validates against that revision's official schema.json — except
// on the lines that announce a finding with "want", which may be wrong on
// purpose. The schemas live in the shared checkout (../shared/schemas/mcp)
// and are never copied into the project; without it the test skips (and
// fails under MCPCHECK_REQUIRE_SHARED=1).
//
// Which definitions a message is validated against:
//   - its envelope: JSONRPCRequest, JSONRPCNotification, and for answers
//     JSONRPCResponse/JSONRPCError (up to 2025-06-18) or
//     JSONRPCResultResponse/JSONRPCErrorResponse (from 2025-11-25);
//   - and the method's own definition: the member of ClientRequest or
//     ServerRequest (ClientNotification, ServerNotification) whose method
//     constant is the message's method, chosen by direction; for a result,
//     the result definition of the request it answers (XRequest → XResult,
//     EmptyResult for ping, logging/setLevel, resources/subscribe and
//     unsubscribe; InputRequiredResult for a 2026-07-28 input_required
//     answer; CreateTaskResult for a 2025-11-25 task handle).
// The envelope alone accepts any params and any result: the unions of the
// schema are open anyOfs, so only the method's definition says anything
// about the payload. Up to 2025-06-18 the method definitions lack the
// envelope, hence both. A method no union defines (a vendor extension) gets
// the envelope only; a 2026-07-28 task answer ("resultType":"task") too,
// since the tasks extension is not part of the core schema.
//
// A message's revision is its own (_meta protocolVersion, else the
// MCP-Protocol-Version header, else that of the request it answers), else
// its session's (the initialize result's protocolVersion, else what
// initialize offered, else what the session's requests declared), else
// 2025-11-25. A string no revision defines is read as the nearest earlier
// revision. A JSON-RPC error with "id": null (the answer to a request whose
// id could not be read, as JSON-RPC 2.0 prescribes) fails every MCP
// envelope, which allows no null id: its error object is validated alone.
// Frames the recorder truncated or redacted are not the wire message and
// are skipped.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/internal/sharedtest"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"

	. "github.com/mcpcheck/mcpcheck/checks"
)

// defaultFixtureRevision is the revision of a fixture that shows none.
const defaultFixtureRevision = "2025-11-25"

func TestFixturesValidateAgainstOfficialSchemas(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("testdata", "*", "*.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	schemas := mcpSchemas(t)
	validated := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		stripped, wants, err := parseWants(data)
		if err != nil {
			t.Fatalf("%s%v", path, err)
		}
		announced := map[int]bool{}
		for _, w := range wants {
			announced[w.Line] = true
		}
		msgs, err := fixtureMessages(path, stripped)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, m := range msgs {
			if announced[m.line] {
				continue
			}
			if m.badID && announced[m.requestLine] {
				// an answer echoes the id of the request it answers: that
				// request's line announces the id's fault
				m.raw = withID(m.raw, "0")
			}
			s := schemas.of(m.revision)
			for _, check := range s.checksFor(m) {
				validated++
				if err := s.validate(check.def, check.instance); err != nil {
					t.Errorf("%s:%d: %s %s does not validate against %s %s:\n%v", path, m.line, m.dir, m.describe(), s.revision, check.def, err)
				}
			}
		}
	}
	if validated == 0 {
		t.Fatal("no message was validated")
	}
}

// TestSchemaValidationCatchesInvalidMessages proves the validation is not
// vacuous: messages that break their method's definition fail it.
func TestSchemaValidationCatchesInvalidMessages(t *testing.T) {
	t.Parallel()
	schemas := mcpSchemas(t)
	cases := []struct {
		name, revision string
		msg            fixtureMessage
	}{
		{"tools/call without a name", "2025-11-25", fixtureMessage{dir: session.ClientToServer, kind: session.Request, method: "tools/call",
			raw: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}`)}},
		{"a jsonrpc version other than 2.0", "2025-03-26", fixtureMessage{dir: session.ClientToServer, kind: session.Request, method: "tools/list",
			raw: []byte(`{"jsonrpc":"1.0","id":3,"method":"tools/list"}`)}},
		{"a tool result without content", "2025-06-18", fixtureMessage{dir: session.ServerToClient, kind: session.Response, callMethod: "tools/call",
			raw: []byte(`{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"a":1}}}`)}},
		{"2026-07-28 results carry resultType", "2026-07-28", fixtureMessage{dir: session.ServerToClient, kind: session.Response, callMethod: "tools/call",
			raw: []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`)}},
		{"an unknown log level", "2024-11-05", fixtureMessage{dir: session.ServerToClient, kind: session.Notification, method: "notifications/message",
			raw: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"verbose","data":"x"}}`)}},
		{"an error code that is not an integer", "2025-11-25", fixtureMessage{dir: session.ServerToClient, kind: session.Response, isError: true,
			raw: []byte(`{"jsonrpc":"2.0","id":3,"error":{"code":"E42","message":"no"}}`)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := schemas.of(c.revision)
			failed := false
			for _, check := range s.checksFor(c.msg) {
				if s.validate(check.def, check.instance) != nil {
					failed = true
				}
			}
			if !failed {
				t.Errorf("%s: the message validates against %s", c.name, c.revision)
			}
		})
	}
}

// fixtureMessage is one JSON-RPC message of a fixture, as correlation saw it.
type fixtureMessage struct {
	line        int
	dir         session.Direction
	kind        session.Kind
	method      string // of a request or notification
	callMethod  string // of the request a response answers
	isError     bool
	nullID      bool
	badID       bool // an answer whose id is neither a string, an integer nor null
	reused      bool // an answer to a request that reused the id of one in flight
	requestLine int  // the line of the request an answer answers
	revision    string
	raw         []byte // a copy
}

func (m fixtureMessage) describe() string {
	switch m.kind {
	case session.Response:
		if m.callMethod != "" {
			return "answer to " + m.callMethod
		}
		return "answer"
	case session.Notification:
		return "notification " + m.method
	}
	return "request " + m.method
}

// fixtureMessages reads a fixture through the reader and correlation and
// returns its messages with the revision each is judged by.
func fixtureMessages(name string, data []byte) ([]fixtureMessage, error) {
	h := &messageCollector{sessionRev: map[*session.Session]string{}}
	if err := readers.Read(name, bytes.NewReader(data), h, readers.Options{}); err != nil {
		return nil, err
	}
	for i := range h.msgs {
		m := &h.msgs[i]
		if m.revision == "" {
			m.revision = h.sessionRev[h.sessions[i]]
		}
		if m.revision == "" {
			m.revision = defaultFixtureRevision
		}
	}
	return h.msgs, nil
}

type messageCollector struct {
	msgs       []fixtureMessage
	sessions   []*session.Session // of each message
	sessionRev map[*session.Session]string
}

func (h *messageCollector) Frame(s *session.Session, f *session.Frame) {
	m := &f.Msg
	if !f.IsProtocol() || f.Truncated || f.Redacted || f.Raw == nil || (m.Kind != session.Request && m.Kind != session.Notification && m.Kind != session.Response) {
		return
	}
	raw := f.Raw
	if f.Elements > 0 { // one element of a batch: the element's own bytes
		raw = elementOf(f.Raw, f.Element)
	}
	fm := fixtureMessage{line: f.Line, dir: f.Direction, kind: m.Kind, method: m.Method, isError: m.Error != nil,
		nullID: m.Kind == session.Response && m.ID.Kind() == session.IDNull, raw: bytes.Clone(raw)}
	if r := f.View().ParamFields(); r != nil && r.Meta.ProtocolVersion != "" {
		fm.revision = r.Meta.ProtocolVersion
	} else if m.Kind != session.Response && f.MCPProtocolVersion != "" {
		fm.revision = f.MCPProtocolVersion
	}
	if k := m.ID.Kind(); m.Kind == session.Response && (k == session.IDFraction || k == session.IDOther) {
		fm.badID = true
	}
	if f.Call != nil {
		if m.Kind == session.Response {
			fm.callMethod, fm.requestLine = f.Call.Method, f.Call.Line
			fm.reused = f.Call.Superseded != nil
		}
		if fm.revision == "" {
			fm.revision = f.Call.Revision
		}
	}
	// A server answers in the revision it speaks: the one its initialize
	// result names, or the one its session negotiated, even to a request
	// that declared a later one (a dual-era client's fallback).
	switch {
	case m.Kind != session.Response:
	case f.View().ResultFields() != nil && f.View().ResultFields().ProtocolVersion != "":
		fm.revision = f.View().ResultFields().ProtocolVersion
	case s.Revision != "" && s.Revision < session.ModernRevision:
		fm.revision = s.Revision
	}
	h.msgs = append(h.msgs, fm)
	h.sessions = append(h.sessions, s)
}

func (h *messageCollector) Damage(*session.Session, session.Damage) {}

func (h *messageCollector) End(s *session.Session) { h.sessionRev[s] = s.Revision }

// withID returns a JSON-RPC object with its id member replaced by id.
func withID(raw []byte, id string) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	obj["id"] = json.RawMessage(id)
	out, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return out
}

// elementOf returns the i-th (1-based) element of a JSON array.
func elementOf(raw []byte, i int) []byte {
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil || i < 1 || i > len(elems) {
		return raw
	}
	return elems[i-1]
}

// schemaCheck is one validation of a message: a definition and the value
// validated against it.
type schemaCheck struct {
	def      string
	instance []byte
}

// revisionSchema is one revision's schema.json, compiled definition by
// definition on first use.
type revisionSchema struct {
	revision string
	url      string
	defsKey  string // "definitions" (draft-07) or "$defs" (2020-12)
	defs     map[string]bool
	methods  map[string]map[string]string // union → method → definition
	compiler *jsonschema.Compiler

	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

// checksFor lists the validations of a message (see the top of this file).
func (s *revisionSchema) checksFor(m fixtureMessage) []schemaCheck {
	legacyEnvelope := s.defsKey == "definitions" // up to 2025-06-18
	var out []schemaCheck
	add := func(def string, instance []byte) {
		if def != "" && s.defs[def] {
			out = append(out, schemaCheck{def, instance})
		}
	}
	switch m.kind {
	case session.Request:
		add("JSONRPCRequest", m.raw)
		add(s.methodDef(m.dir, "Request", m.method), m.raw)
	case session.Notification:
		add("JSONRPCNotification", m.raw)
		add(s.methodDef(m.dir, "Notification", m.method), m.raw)
	case session.Response:
		var whole map[string]json.RawMessage
		if json.Unmarshal(m.raw, &whole) != nil {
			return []schemaCheck{{"JSONRPCMessage", m.raw}}
		}
		if m.isError {
			switch {
			case m.nullID && legacyEnvelope:
				out = append(out, schemaCheck{"JSONRPCError/properties/error", whole["error"]})
			case m.nullID:
				add("Error", whole["error"])
			case legacyEnvelope:
				add("JSONRPCError", m.raw)
			default:
				add("JSONRPCErrorResponse", m.raw)
			}
			return out
		}
		if legacyEnvelope {
			add("JSONRPCResponse", m.raw)
		} else {
			add("JSONRPCResultResponse", m.raw)
		}
		add(s.resultDef(m, whole["result"]), whole["result"])
	}
	return out
}

// methodDef is the definition of method in the union of the direction
// that sent it (kind "Request" or "Notification").
func (s *revisionSchema) methodDef(dir session.Direction, kind, method string) string {
	union := "Client" + kind
	if dir == session.ServerToClient {
		union = "Server" + kind
	}
	return s.methods[union][method]
}

// resultDef is the definition of a result: the result type of the request
// it answers.
func (s *revisionSchema) resultDef(m fixtureMessage, result json.RawMessage) string {
	if m.callMethod == "" || m.reused {
		return "" // with an id reused in flight, which request it answers is a guess
	}
	var fields struct {
		ResultType string          `json:"resultType"`
		Task       json.RawMessage `json:"task"`
	}
	_ = json.Unmarshal(result, &fields)
	switch {
	case fields.ResultType == "input_required":
		return "InputRequiredResult"
	case fields.ResultType == "task":
		return "" // the tasks extension's, not in the core schema
	case fields.Task != nil && s.defs["CreateTaskResult"] && fields.ResultType == "":
		return "CreateTaskResult"
	}
	reqDef := s.methodDef(m.dir.Opposite(), "Request", m.callMethod)
	if reqDef == "" {
		return ""
	}
	if res := strings.TrimSuffix(reqDef, "Request") + "Result"; s.defs[res] {
		return res
	}
	return "EmptyResult" // ping, logging/setLevel, resources/subscribe and unsubscribe
}

func (s *revisionSchema) validate(def string, instance []byte) error {
	sch, err := s.schema(def)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(v)
}

func (s *revisionSchema) schema(def string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch := s.compiled[def]; sch != nil {
		return sch, nil
	}
	ref := "#/" + s.defsKey + "/" + def // def may continue into the definition ("X/properties/y")
	sch, err := s.compiler.Compile(s.url + ref)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", ref, err)
	}
	s.compiled[def] = sch
	return sch, nil
}

// mcpSchemaSet is every revision's schema.
type mcpSchemaSet map[string]*revisionSchema

// of returns the schema of rev: draft as 2026-07-28, a string no revision
// defines as the nearest earlier revision.
func (set mcpSchemaSet) of(rev string) *revisionSchema {
	rev = session.NormalizeRevision(rev)
	if s := set[rev]; s != nil {
		return s
	}
	best := MCPRevisions[0]
	for _, r := range MCPRevisions {
		if r <= rev {
			best = r
		}
	}
	return set[best]
}

var (
	schemaSetOnce sync.Once
	schemaSet     mcpSchemaSet
	schemaSetErr  error
)

// mcpSchemas loads the official schema of every revision from the shared
// checkout, once.
func mcpSchemas(t *testing.T) mcpSchemaSet {
	t.Helper()
	paths := map[string]string{}
	for _, rev := range MCPRevisions {
		paths[rev] = sharedtest.Path(t, "schemas/mcp/"+rev+"/schema.json")
	}
	schemaSetOnce.Do(func() {
		schemaSet = mcpSchemaSet{}
		for _, rev := range MCPRevisions {
			s, err := loadRevisionSchema(rev, paths[rev])
			if err != nil {
				schemaSetErr = err
				return
			}
			schemaSet[rev] = s
		}
	})
	if schemaSetErr != nil {
		t.Fatal(schemaSetErr)
	}
	return schemaSet
}

// refuseEveryURL is the schema loader: it loads nothing, so no reference
// in a schema can read a file or reach the network. The one document the
// compiler knows is added as a resource.
type refuseEveryURL struct{}

func (refuseEveryURL) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %s: only the MCP schema itself is available", url)
}

func loadRevisionSchema(rev, path string) (*revisionSchema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &revisionSchema{revision: rev, url: "urn:mcpcheck:mcp-schema:" + rev, compiled: map[string]*jsonschema.Schema{}}
	var top struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
		Defs        map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	defs := top.Defs
	s.defsKey = "$defs"
	if defs == nil {
		defs, s.defsKey = top.Definitions, "definitions"
	}
	s.defs = map[string]bool{}
	for name := range defs {
		s.defs[name] = true
	}
	// The method constant of each member of the four unions.
	s.methods = map[string]map[string]string{}
	for _, union := range []string{"ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification"} {
		raw, ok := defs[union]
		if !ok {
			continue // 2026-07-28 has no ServerRequest
		}
		var u struct {
			AnyOf []struct {
				Ref string `json:"$ref"`
			} `json:"anyOf"`
		}
		_ = json.Unmarshal(raw, &u)
		members := []string{union} // a union of one is the definition itself
		if len(u.AnyOf) > 0 {
			members = nil
			for _, m := range u.AnyOf {
				members = append(members, m.Ref[strings.LastIndex(m.Ref, "/")+1:])
			}
		}
		s.methods[union] = map[string]string{}
		for _, name := range members {
			var def struct {
				Properties struct {
					Method struct {
						Const string `json:"const"`
					} `json:"method"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(defs[name], &def); err != nil || def.Properties.Method.Const == "" {
				return nil, fmt.Errorf("%s: %s member %s has no method constant", path, union, name)
			}
			s.methods[union][def.Properties.Method.Const] = name
		}
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseEveryURL{})
	c.AssertFormat() // one policy for both dialects: draft-07 asserts formats by default, 2020-12 does not
	if err := c.AddResource(s.url, doc); err != nil {
		return nil, err
	}
	s.compiler = c
	if len(s.defs) == 0 {
		return nil, fmt.Errorf("%s: no definitions", path)
	}
	return s, nil
}
