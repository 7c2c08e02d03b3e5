package mcp

import (
	"bytes"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// Meta is a _meta object: the members the protocol defines, and the whole.
type Meta struct {
	Raw                []byte // the object; nil when there is no _meta
	ProtocolVersion    string // io.modelcontextprotocol/protocolVersion (2026-07-28)
	ClientCapabilities Capabilities
	ProgressToken      []byte // raw; nil when absent
}

// Has reports whether the _meta object has a member called name.
func (m *Meta) Has(name string) bool { return member(m.Raw, name) != nil }

// Implementation is clientInfo or serverInfo.
type Implementation struct {
	Name, Title, Version string
}

// Capabilities is a capabilities object, kept raw: each capability is
// looked up when asked.
type Capabilities struct {
	Raw []byte // the object; nil when absent
}

// Known reports whether the capabilities object was present.
func (c Capabilities) Known() bool { return c.Raw != nil }

// Has reports whether capability name (tools, sampling, …) is advertised:
// a member whose value is not null or false.
func (c Capabilities) Has(name string) bool {
	v := member(c.Raw, name)
	return v != nil && !bytes.Equal(v, []byte("null")) && !bytes.Equal(v, []byte("false"))
}

// Flag reports whether a capability's sub-flag is true (tools.listChanged,
// resources.subscribe).
func (c Capabilities) Flag(name, flag string) bool {
	return jsonscan.Bool(member(member(c.Raw, name), flag))
}

// Extension reports whether capabilities.extensions advertises name
// (2026-07-28 extensions such as io.modelcontextprotocol/tasks).
func (c Capabilities) Extension(name string) bool {
	return member(member(c.Raw, "extensions"), name) != nil
}

// Clone copies the capabilities out of the reader's buffer.
func (c Capabilities) Clone() Capabilities { return Capabilities{Raw: bytes.Clone(c.Raw)} }

// InitializeParams is what a client offers in initialize.
type InitializeParams struct {
	ProtocolVersion string
	Capabilities    Capabilities
	ClientInfo      Implementation
}

// InitializeResult is what a server answers to initialize.
type InitializeResult struct {
	ProtocolVersion string
	Capabilities    Capabilities
	ServerInfo      Implementation
	Instructions    string
}

// DiscoverResult is a server/discover result (2026-07-28).
type DiscoverResult struct {
	SupportedVersions []string
	Capabilities      Capabilities
	ServerInfo        Implementation
}

// Tool is one tool definition of a tools/list result, decoded from its
// bytes when asked for (ToolList.Tool, ToolSet.Tool). Schemas and other
// objects stay raw: they alias the definition's bytes.
type Tool struct {
	Name        string
	HasName     bool // a string name member was present
	Title       string
	Description string

	InputSchema  []byte // nil when absent
	OutputSchema []byte
	Annotations  []byte
	Icons        []byte
	Meta         []byte

	Raw []byte // the whole definition
}

// ListToolsResult is one page of a tools/list answer.
type ListToolsResult struct {
	Tools      ToolList
	NextCursor string
	HasCursor  bool // nextCursor present: more pages follow
	Malformed  bool // tools missing or not an array
}

// Prompt is one prompt of a prompts/list result.
type Prompt struct {
	Name, Title, Description string
	Arguments                []byte
}

// ListPromptsResult is one page of a prompts/list answer.
type ListPromptsResult struct {
	Prompts    []Prompt
	NextCursor string
	HasCursor  bool
	Malformed  bool
}

// Resource is one resource of a resources/list result.
type Resource struct {
	URI, Name, Title, MIMEType string
}

// ListResourcesResult is one page of a resources/list answer.
type ListResourcesResult struct {
	Resources  []Resource
	NextCursor string
	HasCursor  bool
	Malformed  bool
}

// CallToolParams is the params of a tools/call request (and the name and
// arguments of a prompts/get request's).
type CallToolParams struct {
	Name      string
	HasName   bool
	Arguments []byte // raw; nil when absent
}

// ContentBlock is one item of a result's content.
type ContentBlock struct {
	Type     string
	Text     string // text blocks
	MIMEType string
	URI      string // resource_link
	Raw      []byte
}

// CallToolResult is the result of a tools/call request.
type CallToolResult struct {
	Content           []ContentBlock
	StructuredContent []byte // raw; nil when absent
	IsError           bool
}
