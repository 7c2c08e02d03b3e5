package readers

import (
	"net/url"
)

// The endpoint an HTTP exchange went to, shared by the HTTP formats.

// endpointOf is the URL without its query and fragment: what a session
// without Mcp-Session-Id is keyed by.
func endpointOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}
