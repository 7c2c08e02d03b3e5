// Package mcp is the one model of an MCP message that correlation, facts
// and rules read: View. Its common members (ParamFields, ResultFields:
// _meta, a tool's name and arguments, isError, resultType, …) are decoded
// by the reader in its single walk of the message and seeded into the
// view; the parts only some rules read (initialize, capabilities, tool
// listings, tool results, …) are decoded from the raw JSON on first use
// and cached, so nothing is decoded that no rule asked for and nothing is
// decoded twice.
//
// A view aliases the bytes it was made from; they belong to the reader and
// are reused for the next frame. What outlives the frame must be copied
// (the Clone methods).
package mcp

// View is the typed look at one message. The zero View sees nothing.
type View struct {
	method         string // the request's method (for a response: its call's)
	params, result []byte
	p              *ParamFields  // params decoded: seeded by the reader, or on first use; nil unless an object
	r              *ResultFields // result decoded likewise

	done        uint16 // views decoded so far, by bit
	meta        Meta   // by value: asked of most requests, it costs no allocation
	initParams  *InitializeParams
	initResult  *InitializeResult
	discover    *DiscoverResult
	listTools   *ListToolsResult
	listPrompts *ListPromptsResult
	listRes     *ListResourcesResult
	toolResult  *CallToolResult
	lazy        []lazyEntry // views defined elsewhere (Lazy), in the order asked
}

// The bits of View.done.
const (
	doneParams = 1 << iota
	doneResult
	doneMeta
	doneInitParams
	doneInitResult
	doneDiscover
	doneListTools
	doneListPrompts
	doneListResources
	doneToolResult
)

// NewView makes the view of a message: method is the request's method
// (for a response, the method of the request it answers), params and
// result its raw members (nil when absent).
func NewView(method string, params, result []byte) *View {
	return &View{method: method, params: params, result: result}
}

// Reset makes v the view of another message, as NewView would, without
// allocating a new one.
func (v *View) Reset(method string, params, result []byte) {
	*v = View{method: method, params: params, result: result}
}

// Seed gives v the common members the reader decoded in its walk of the
// message (nil: params, or result, is not an object or was not decoded,
// as the reader decodes only a request's or notification's params and
// only a response's result), so that v decodes neither again.
func (v *View) Seed(p *ParamFields, r *ResultFields) {
	v.p, v.r = p, r
	v.done |= doneParams | doneResult
}

// ParamFields are the common members of the params; nil unless params is
// an object (a seeded view: of a request or notification).
func (v *View) ParamFields() *ParamFields {
	v.once(doneParams, func() {
		if object(v.params) != nil {
			v.p = new(ParamFields)
			DecodeParams(v.params, v.p)
		}
	})
	return v.p
}

// ResultFields are the common members of the result; nil unless result
// is an object (a seeded view: of a response).
func (v *View) ResultFields() *ResultFields {
	v.once(doneResult, func() {
		if object(v.result) != nil {
			v.r = new(ResultFields)
			DecodeResult(v.result, v.r)
		}
	})
	return v.r
}

// ResultType is the result's resultType when it is a string.
func (v *View) ResultType() (string, bool) { return v.ResultFields().ResultTypeString() }

// Method is the method the view was made for.
func (v *View) Method() string { return v.method }

// once runs decode the first time bit is asked for.
func (v *View) once(bit uint16, decode func()) {
	if v.done&bit == 0 {
		v.done |= bit
		decode()
	}
}

// Meta is the _meta of the params (a request or notification: the one the
// reader decoded, progressToken and protocol version included) or else of
// the result (a response). Its Raw is nil when there is none.
func (v *View) Meta() *Meta {
	v.once(doneMeta, func() {
		if p := v.ParamFields(); p != nil && p.RawMeta != nil {
			v.meta = p.Meta
		} else if r := v.ResultFields(); r != nil && r.RawMeta != nil {
			v.meta = decodeMeta(r.RawMeta)
		}
	})
	return &v.meta
}

// InitializeParams is the params of an initialize request.
func (v *View) InitializeParams() (*InitializeParams, bool) {
	v.once(doneInitParams, func() {
		if v.method == "initialize" && v.params != nil {
			v.initParams = decodeInitializeParams(v.params)
			if p := v.ParamFields(); p != nil {
				v.initParams.ProtocolVersion = p.ProtocolVersion
			}
		}
	})
	return v.initParams, v.initParams != nil
}

// InitializeResult is the result of an initialize request.
func (v *View) InitializeResult() (*InitializeResult, bool) {
	v.once(doneInitResult, func() {
		if v.method == "initialize" && v.result != nil {
			v.initResult = decodeInitializeResult(v.result)
			if r := v.ResultFields(); r != nil {
				v.initResult.ProtocolVersion = r.ProtocolVersion
			}
		}
	})
	return v.initResult, v.initResult != nil
}

// DiscoverResult is the result of a server/discover request (2026-07-28).
func (v *View) DiscoverResult() (*DiscoverResult, bool) {
	v.once(doneDiscover, func() {
		if v.method == "server/discover" && v.result != nil {
			v.discover = decodeDiscoverResult(v.result)
		}
	})
	return v.discover, v.discover != nil
}

// ListTools is one page of a tools/list result.
func (v *View) ListTools() (*ListToolsResult, bool) {
	v.once(doneListTools, func() {
		if v.method == "tools/list" && v.result != nil {
			v.listTools = decodeListTools(v.result)
			v.listTools.NextCursor, v.listTools.HasCursor = v.NextCursor()
		}
	})
	return v.listTools, v.listTools != nil
}

// ListPrompts is one page of a prompts/list result.
func (v *View) ListPrompts() (*ListPromptsResult, bool) {
	v.once(doneListPrompts, func() {
		if v.method == "prompts/list" && v.result != nil {
			v.listPrompts = decodeListPrompts(v.result)
			v.listPrompts.NextCursor, v.listPrompts.HasCursor = v.NextCursor()
		}
	})
	return v.listPrompts, v.listPrompts != nil
}

// ListResources is one page of a resources/list result.
func (v *View) ListResources() (*ListResourcesResult, bool) {
	v.once(doneListResources, func() {
		if v.method == "resources/list" && v.result != nil {
			v.listRes = decodeListResources(v.result)
			v.listRes.NextCursor, v.listRes.HasCursor = v.NextCursor()
		}
	})
	return v.listRes, v.listRes != nil
}

// CallTool is the params of a tools/call request, when they are an object:
// the name and arguments the reader decoded.
func (v *View) CallTool() (*CallToolParams, bool) {
	if p := v.ParamFields(); v.method == "tools/call" && p != nil {
		return &p.CallToolParams, true
	}
	return nil, false
}

// ToolResult is the result of a tools/call request.
func (v *View) ToolResult() (*CallToolResult, bool) {
	v.once(doneToolResult, func() {
		if v.method == "tools/call" && v.result != nil {
			v.toolResult = toolResult(v.ResultFields())
		}
	})
	return v.toolResult, v.toolResult != nil
}

// HasCursor reports a list request that asks for a later page (a string
// cursor in its params).
func (v *View) HasCursor() bool {
	_, ok := v.Cursor()
	return ok
}

// Cursor is the cursor of a list request's params, when it is a string.
func (v *View) Cursor() (string, bool) { return cursor(member(v.params, "cursor")) }

// NextCursor is the nextCursor of a list result, when it is a string.
func (v *View) NextCursor() (string, bool) {
	if r := v.ResultFields(); r != nil {
		return cursor(r.NextCursor)
	}
	return "", false
}
