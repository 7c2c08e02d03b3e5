package readers

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

// HTTP headers as the recorders list them (HAR name/value lists, objects
// of Node's request logs, pairs), shared by the HTTP formats.

// httpHeader is one header of an HTTP message as a recorder listed it.
type httpHeader struct{ name, value string }

// httpHeaders are an HTTP message's headers: names in any case, a header
// possibly listed twice.
type httpHeaders []httpHeader

// harHeaders reads a HAR header list.
func harHeaders(raw []byte) httpHeaders {
	var hs httpHeaders
	for _, el := range jsonscan.Elements(raw) {
		var h httpHeader
		_ = jsonscan.EachMember(el, func(name, val []byte) {
			switch string(name) {
			case "name":
				h.name, _ = jsonscan.String(val)
			case "value":
				h.value, _ = jsonscan.String(val)
			}
		})
		if h.name != "" {
			hs = append(hs, h)
		}
	}
	return hs
}

// headerMap reads headers recorded as an object (a value may be a list of
// values, as Node keeps a repeated header) or as a list of name/value
// objects or pairs.
func headerMap(raw []byte) httpHeaders {
	var hs httpHeaders
	if jsonscan.FirstByte(raw) == '[' {
		for _, el := range jsonscan.Elements(raw) {
			if pair := jsonscan.Elements(el); len(pair) == 2 {
				n, _ := jsonscan.String(pair[0])
				v, _ := jsonscan.String(pair[1])
				hs = append(hs, httpHeader{n, v})
			}
		}
		if len(hs) == 0 {
			hs = harHeaders(raw)
		}
		return hs
	}
	_ = jsonscan.EachMember(raw, func(name, val []byte) {
		if jsonscan.FirstByte(val) == '[' {
			for _, v := range jsonscan.Elements(val) {
				s, _ := jsonscan.String(v)
				hs = append(hs, httpHeader{string(name), s})
			}
			return
		}
		s, ok := jsonscan.String(val)
		if !ok {
			s = string(val) // a number
		}
		hs = append(hs, httpHeader{string(name), s})
	})
	return hs
}

// get returns the value of the header name (in any case). A header listed
// more than once reads as HTTP combines it, the values joined by ", ";
// the same value listed again (recorders list some headers twice, in two
// cases of the name) counts once.
func (hs httpHeaders) get(name string) string {
	var out string
	n := 0
	for _, h := range hs {
		if !strings.EqualFold(h.name, name) {
			continue
		}
		switch {
		case n == 0:
			out = h.value
		case h.value == out || strings.Contains(", "+out+", ", ", "+h.value+", "):
			continue
		default:
			out += ", " + h.value
		}
		n++
	}
	return out
}

// setRequest copies the request headers rules read onto f: the MCP routing
// headers, every Mcp-Param-* header, Accept, Content-Type and Origin.
func (hs httpHeaders) setRequest(f *session.Frame) {
	f.MCPMethod = hs.get("Mcp-Method")
	f.MCPName = hs.get("Mcp-Name")
	f.MCPProtocolVersion = hs.get("MCP-Protocol-Version")
	f.Accept = hs.get("Accept")
	f.ContentType = hs.get("Content-Type")
	f.Origin = hs.get("Origin")
	for i, h := range hs {
		if len(h.name) <= len("mcp-param-") || !strings.EqualFold(h.name[:len("mcp-param-")], "mcp-param-") {
			continue
		}
		dup := false
		for _, g := range hs[:i] {
			dup = dup || (strings.EqualFold(g.name, h.name) && g.value == h.value)
		}
		if !dup {
			f.ParamHeaders = append(f.ParamHeaders, session.ParamHeader{Name: h.name, Value: h.value})
		}
	}
}
