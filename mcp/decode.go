package mcp

import "github.com/mcpcheck/mcpcheck/internal/jsonscan"

// The decoders read validated JSON (the reader checked every frame); a
// member of the wrong type reads as absent, and the rules that care judge
// the type themselves.

// member is jsonscan.Member: the one lookup, where the last of a name
// used twice wins.
func member(obj []byte, name string) []byte { return jsonscan.Member(obj, name) }

// object returns v when it is a JSON object, else nil.
func object(v []byte) []byte {
	if jsonscan.FirstByte(v) == '{' {
		return v
	}
	return nil
}

func str(v []byte) string {
	s, _ := jsonscan.String(v)
	return s
}

func decodeMeta(raw []byte) Meta {
	m := Meta{Raw: object(raw)}
	_ = jsonscan.EachMember(m.Raw, func(name, v []byte) {
		switch string(name) {
		case "io.modelcontextprotocol/protocolVersion":
			m.ProtocolVersion = str(v)
		case "io.modelcontextprotocol/clientCapabilities":
			m.ClientCapabilities = Capabilities{Raw: object(v)}
		case "progressToken":
			m.ProgressToken = v
		}
	})
	return m
}

func decodeImplementation(raw []byte) Implementation {
	var impl Implementation
	_ = jsonscan.EachMember(object(raw), func(name, v []byte) {
		switch string(name) {
		case "name":
			impl.Name = str(v)
		case "title":
			impl.Title = str(v)
		case "version":
			impl.Version = str(v)
		}
	})
	return impl
}

func decodeInitializeParams(raw []byte) *InitializeParams {
	p := &InitializeParams{}
	_ = jsonscan.EachMember(object(raw), func(name, v []byte) {
		switch string(name) { // protocolVersion: ParamFields
		case "capabilities":
			p.Capabilities = Capabilities{Raw: object(v)}
		case "clientInfo":
			p.ClientInfo = decodeImplementation(v)
		}
	})
	return p
}

func decodeInitializeResult(raw []byte) *InitializeResult {
	r := &InitializeResult{}
	_ = jsonscan.EachMember(object(raw), func(name, v []byte) {
		switch string(name) { // protocolVersion: ResultFields
		case "capabilities":
			r.Capabilities = Capabilities{Raw: object(v)}
		case "serverInfo":
			r.ServerInfo = decodeImplementation(v)
		case "instructions":
			r.Instructions = str(v)
		}
	})
	return r
}

func decodeDiscoverResult(raw []byte) *DiscoverResult {
	r := &DiscoverResult{}
	_ = jsonscan.EachMember(object(raw), func(name, v []byte) {
		switch string(name) {
		case "supportedVersions":
			for _, el := range jsonscan.Elements(v) {
				if s, ok := jsonscan.String(el); ok {
					r.SupportedVersions = append(r.SupportedVersions, s)
				}
			}
		case "capabilities":
			r.Capabilities = Capabilities{Raw: object(v)}
		case "serverInfo":
			r.ServerInfo = decodeImplementation(v)
		}
	})
	return r
}

// cursor reads a page's nextCursor: present when it is a string.
func cursor(v []byte) (string, bool) { return jsonscan.String(v) }

func decodeListTools(raw []byte) *ListToolsResult {
	r := &ListToolsResult{Malformed: true}
	_ = jsonscan.EachMember(object(raw), func(name, v []byte) {
		switch string(name) {
		case "tools":
			var ok bool
			r.Tools, ok = toolList(v)
			r.Malformed = !ok
		}
	})
	return r
}

// decodeTool reads one definition; shared: its strings may share raw's
// bytes, which never change.
func decodeTool(raw []byte, shared bool) Tool {
	text := str
	if shared {
		text = sharedString
	}
	t := Tool{Raw: raw}
	_ = jsonscan.EachMember(object(raw), func(name, v []byte) {
		switch string(name) {
		case "name":
			t.Name, t.HasName = "", isString(v)
			if t.HasName {
				t.Name = text(v)
			}
		case "title":
			t.Title = text(v)
		case "description":
			t.Description = text(v)
		case "inputSchema":
			t.InputSchema = v
		case "outputSchema":
			t.OutputSchema = v
		case "annotations":
			t.Annotations = v
		case "icons":
			t.Icons = v
		case "_meta":
			t.Meta = v
		}
	})
	return t
}

func decodeListPrompts(raw []byte) *ListPromptsResult {
	r := &ListPromptsResult{Malformed: true}
	_ = jsonscan.EachMember(object(raw), func(name, v []byte) {
		switch string(name) {
		case "prompts":
			els := jsonscan.Elements(v)
			r.Malformed = els == nil
			for _, el := range els {
				var p Prompt
				_ = jsonscan.EachMember(object(el), func(name, v []byte) {
					switch string(name) {
					case "name":
						p.Name = str(v)
					case "title":
						p.Title = str(v)
					case "description":
						p.Description = str(v)
					case "arguments":
						p.Arguments = v
					}
				})
				r.Prompts = append(r.Prompts, p)
			}
		}
	})
	return r
}

func decodeListResources(raw []byte) *ListResourcesResult {
	r := &ListResourcesResult{Malformed: true}
	_ = jsonscan.EachMember(object(raw), func(name, v []byte) {
		switch string(name) {
		case "resources":
			els := jsonscan.Elements(v)
			r.Malformed = els == nil
			for _, el := range els {
				var res Resource
				_ = jsonscan.EachMember(object(el), func(name, v []byte) {
					switch string(name) {
					case "uri":
						res.URI = str(v)
					case "name":
						res.Name = str(v)
					case "title":
						res.Title = str(v)
					case "mimeType":
						res.MIMEType = str(v)
					}
				})
				r.Resources = append(r.Resources, res)
			}
		}
	})
	return r
}

// toolResult is a tools/call result from its common members (r nil: the
// result is not an object); only its content is decoded further.
func toolResult(r *ResultFields) *CallToolResult {
	out := &CallToolResult{}
	if r == nil {
		return out
	}
	out.IsError, out.StructuredContent = r.IsError, r.StructuredContent
	for _, el := range jsonscan.Elements(r.Content) {
		out.Content = append(out.Content, decodeContent(el))
	}
	return out
}

func decodeContent(raw []byte) ContentBlock {
	b := ContentBlock{Raw: raw}
	_ = jsonscan.EachMember(object(raw), func(name, v []byte) {
		switch string(name) {
		case "type":
			b.Type = str(v)
		case "text":
			b.Text = str(v)
		case "mimeType":
			b.MIMEType = str(v)
		case "uri":
			b.URI = str(v)
		}
	})
	return b
}
