package session

// Transport plumbing that is not protocol traffic (§2.3): the legacy SSE
// endpoint event, 202 acknowledgements, 405 for a stream not offered.

import (
	"net/url"
	"strings"
)

// isPlumbing reports the legacy HTTP+SSE transport's own text frames: the
// endpoint event that opens its GET stream (a URL or path), and the text a
// server writes on the 202 that acknowledges a POST ("Accepted").
func isPlumbing(f *Frame) bool {
	if f.Direction != ServerToClient || !f.HasText || f.Raw != nil || !f.isHTTP() {
		return false
	}
	return f.Status == 202 || isEndpoint(f.Text)
}

// isEndpoint reports an endpoint event's data: an absolute path, or an
// http(s) URL.
func isEndpoint(text string) bool {
	text = strings.TrimSpace(text)
	if text == "" || strings.ContainsAny(text, " \t\r\n") {
		return false
	}
	u, err := url.Parse(text)
	switch {
	case err != nil:
		return false
	case u.Scheme == "":
		return strings.HasPrefix(text, "/")
	default:
		return (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
	}
}
