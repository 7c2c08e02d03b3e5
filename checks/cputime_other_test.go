//go:build !unix

package checks_test

import (
	"time"

	. "github.com/mcpcheck/mcpcheck/checks"
)

var processStart = time.Now()

// cpuTime falls back to wall time where getrusage is missing.
func cpuTime() time.Duration { return time.Since(processStart) }
