//go:build !unix

package readers

import (
	"strings"
)

// isLoop recognises a link loop where the system has no ELOOP.
func isLoop(err error) bool { return strings.Contains(err.Error(), "symbolic link") }
