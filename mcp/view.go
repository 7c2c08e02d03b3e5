// Package mcp holds typed views of MCP messages: the parts of params and
// results that rules and facts read (initialize, capabilities, _meta, tool
// listings, tool calls and their results, …), decoded from a message's raw
// JSON on first use and cached, so nothing is decoded that no rule asked
// for and nothing is decoded twice.
//
// A view aliases the bytes it was made from; they belong to the reader and
// are reused for the next frame. What outlives the frame must be copied
// (the Clone methods).
package mcp

// View is the typed look at one message. The zero View sees nothing.
type View struct {
	method         string // the request's method (for a response: its call's)
	params, result []byte

	done        uint16 // views decoded so far, by bit
	meta        Meta   // by value: asked of most requests, it costs no allocation
	initParams  *InitializeParams
	initResult  *InitializeResult
	discover    *DiscoverResult
	listTools   *ListToolsResult
	listPrompts *ListPromptsResult
	listRes     *ListResourcesResult
	callTool    CallToolParams // by value: asked of every tools/call, it costs no allocation
	hasCallTool bool
	toolResult  *CallToolResult
	lazy        []lazyEntry // views defined elsewhere (Lazy), in the order asked
}

// The bits of View.done.
const (
	doneMeta = 1 << iota
	doneInitParams
	doneInitResult
	doneDiscover
	doneListTools
	doneListPrompts
	doneListResources
	doneCallTool
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

// Method is the method the view was made for.
func (v *View) Method() string { return v.method }

// once runs decode the first time bit is asked for.
func (v *View) once(bit uint16, decode func()) {
	if v.done&bit == 0 {
		v.done |= bit
		decode()
	}
}

// Meta is the _meta of the params (a request or notification) or else of
// the result.
func (v *View) Meta() *Meta {
	v.once(doneMeta, func() {
		if src := member(v.params, "_meta"); src != nil {
			v.meta = decodeMeta(src)
		} else if src := member(v.result, "_meta"); src != nil {
			v.meta = decodeMeta(src)
		}
	})
	return &v.meta
}

// InitializeParams is the params of an initialize request.
func (v *View) InitializeParams() (*InitializeParams, bool) {
	v.once(doneInitParams, func() {
		if v.method == "initialize" && v.params != nil {
			v.initParams = decodeInitializeParams(v.params)
		}
	})
	return v.initParams, v.initParams != nil
}

// InitializeResult is the result of an initialize request.
func (v *View) InitializeResult() (*InitializeResult, bool) {
	v.once(doneInitResult, func() {
		if v.method == "initialize" && v.result != nil {
			v.initResult = decodeInitializeResult(v.result)
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
		}
	})
	return v.listTools, v.listTools != nil
}

// ListPrompts is one page of a prompts/list result.
func (v *View) ListPrompts() (*ListPromptsResult, bool) {
	v.once(doneListPrompts, func() {
		if v.method == "prompts/list" && v.result != nil {
			v.listPrompts = decodeListPrompts(v.result)
		}
	})
	return v.listPrompts, v.listPrompts != nil
}

// ListResources is one page of a resources/list result.
func (v *View) ListResources() (*ListResourcesResult, bool) {
	v.once(doneListResources, func() {
		if v.method == "resources/list" && v.result != nil {
			v.listRes = decodeListResources(v.result)
		}
	})
	return v.listRes, v.listRes != nil
}

// CallTool is the params of a tools/call request.
func (v *View) CallTool() (*CallToolParams, bool) {
	v.once(doneCallTool, func() {
		if v.method == "tools/call" && v.params != nil {
			v.callTool, v.hasCallTool = decodeCallTool(v.params), true
		}
	})
	if !v.hasCallTool {
		return nil, false
	}
	return &v.callTool, true
}

// ToolResult is the result of a tools/call request.
func (v *View) ToolResult() (*CallToolResult, bool) {
	v.once(doneToolResult, func() {
		if v.method == "tools/call" && v.result != nil {
			v.toolResult = decodeToolResult(v.result)
		}
	})
	return v.toolResult, v.toolResult != nil
}

// HasCursor reports a list request that asks for a later page (a string
// cursor in its params).
func (v *View) HasCursor() bool {
	_, ok := cursor(member(v.params, "cursor"))
	return ok
}
