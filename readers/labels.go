package readers

import (
	"net/url"
	"strings"
)

// The server label of an HTTP endpoint, shared by the HTTP formats.

// labelOf names the server of an endpoint: host (and port) and path.
func labelOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return endpoint
	}
	return u.Host + strings.TrimSuffix(u.Path, "/")
}
