package mcp

import "github.com/mcpcheck/mcpcheck/internal/jsonscan"

// The members that correlation and the rules read of most messages are
// decoded once, by the reader in its one walk of the message
// (DecodeParams, DecodeResult), into storage it reuses frame after frame.
// Correlation reads them there; a View is seeded with the same values
// (Seed), so none of its accessors walks params or result again for them.
// Like every lookup of a member (jsonscan.Member), a decode keeps the last
// value of a name used twice.

// ParamFields are the members of a request's or notification's params
// object that correlation and the rules read.
type ParamFields struct {
	CallToolParams         // name (interned: every call names its tool) and arguments: tools/call, prompts/get
	URI             string // resources/*
	Meta            Meta   // _meta decoded; its Raw is nil when absent or not an object
	RawMeta         []byte // the _meta member as written, of any type; nil when absent
	ProtocolVersion string // initialize
	RequestID       []byte // notifications/cancelled: raw
	RequestState    *string
	InputResponses  map[string][]byte // a multi round-trip retry's answers
	TaskID, Status  string            // tasks/*, notifications/tasks/status
	Task            []byte            // task augmentation or a task object: raw
}

// ResultFields are the members of a result object that correlation and
// the rules read.
type ResultFields struct {
	IsError           bool
	ResultType        []byte // raw: a rule judges its type
	ProtocolVersion   string // initialize
	RequestState      *string
	InputRequests     map[string][]byte // an InputRequiredResult's requests
	Task              *TaskRef          // CreateTaskResult's task
	TaskRef                             // GetTaskResult carries the task at top level
	Content           []byte            // raw
	StructuredContent []byte            // raw
	NextCursor        []byte            // a list page's: raw
	RawMeta           []byte            // the _meta member as written; nil when absent (View.Meta decodes it)
}

// TaskRef is what a task object says of the task correlation follows.
type TaskRef struct {
	TaskID string
	Status string
}

// ResultTypeString returns resultType when it is a JSON string.
func (r *ResultFields) ResultTypeString() (string, bool) {
	if r == nil {
		return "", false
	}
	return jsonscan.String(r.ResultType)
}

// DecodeParams decodes the params object raw into p, replacing what p
// held. Mistyped members read as absent; the rules that care judge the
// type themselves. What p holds aliases raw.
func DecodeParams(raw []byte, p *ParamFields) {
	*p = ParamFields{}
	_ = jsonscan.EachMember(raw, p.Member)
}

// Member decodes one member of a params object into p: DecodeParams is
// Member for each member of a zeroed p.
func (p *ParamFields) Member(name, val []byte) {
	switch string(name) {
	case "name":
		p.Name, p.HasName = jsonscan.Names.String(val)
	case "uri":
		p.URI, _ = jsonscan.String(val)
	case "_meta":
		p.Meta, p.RawMeta = decodeMeta(val), val
	case "protocolVersion":
		p.ProtocolVersion, _ = jsonscan.String(val)
	case "requestId":
		p.RequestID = val
	case "requestState":
		p.RequestState = stringRef(val)
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
}

// DecodeResult decodes the result object raw into r, replacing what r
// held, as DecodeParams does.
func DecodeResult(raw []byte, r *ResultFields) {
	*r = ResultFields{}
	_ = jsonscan.EachMember(raw, r.Member)
}

// Member decodes one member of a result object into r, as
// ParamFields.Member does.
func (r *ResultFields) Member(name, val []byte) {
	switch string(name) {
	case "isError":
		r.IsError = jsonscan.Bool(val)
	case "resultType":
		r.ResultType = val
	case "protocolVersion":
		r.ProtocolVersion, _ = jsonscan.String(val)
	case "requestState":
		r.RequestState = stringRef(val)
	case "inputRequests":
		r.InputRequests = members(val)
	case "task":
		if jsonscan.FirstByte(val) == '{' {
			t := DecodeTask(val)
			r.Task = &t
		}
	case "taskId":
		r.TaskID, _ = jsonscan.String(val)
	case "status":
		r.Status, _ = jsonscan.String(val)
	case "content":
		r.Content = val
	case "structuredContent":
		r.StructuredContent = val
	case "nextCursor":
		r.NextCursor = val
	case "_meta":
		r.RawMeta = val
	}
}

// DecodeTask reads the members of a task object that correlation follows.
func DecodeTask(raw []byte) TaskRef {
	var t TaskRef
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

// stringRef is the string val holds, nil for any other type.
func stringRef(val []byte) *string {
	if s, ok := jsonscan.String(val); ok {
		return &s
	}
	return nil
}

// members maps an object's member names to their raw values (the last
// of a name used twice); nil when val is not an object.
func members(val []byte) map[string][]byte {
	if jsonscan.FirstByte(val) != '{' {
		return nil
	}
	m := map[string][]byte{}
	_ = jsonscan.EachMember(val, func(name, v []byte) { m[string(name)] = v })
	return m
}
