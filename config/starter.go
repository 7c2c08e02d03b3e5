package config

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Starter is a commented file for captures (paths relative to where the
// file goes) whose sessions have the given server labels.
func Starter(captures, labels []string) string {
	var b strings.Builder
	b.WriteString(`# mcpcheck configuration (docs/config.md lists every key).
# Check it with: mcpcheck config verify
version: 1

# Checked when mcpcheck runs without a CAPTURE.
captures:
`)
	for _, c := range captures {
		fmt.Fprintf(&b, "  - %s\n", quote(c))
	}
	b.WriteString(`
# What fails the check: signals and rule ids (mcpcheck rules lists them).
# The default is error, invalid and warn, plus drift when a baseline
# directory is in use.
# fail-on: [error, invalid, warn]

# Rules turned off for everyone.
# disable: []

# Tool baselines, checked in. Record them with
#   mcpcheck baseline --accept --reason "first baseline" CAPTURE
# The default directory, .mcpcheck/baselines under the repository's top,
# is read when it exists.
# baseline: .mcpcheck/baselines

# Accepted findings (mcpcheck suppress FINGERPRINT --reason TEXT).
# suppressions: .mcpcheck-suppressions.json

# Reports written besides the one on stdout.
# outputs:
#   sarif: mcpcheck.sarif
#   junit: mcpcheck-junit.xml

# Assertions for every session.
# expect-tools: []
# forbid-tools: []
# max-duration: 30s
# max-round-trips: 5
`)
	if len(labels) == 0 {
		b.WriteString(`
# Per-server settings, by server label or glob (the captures named none).
# servers:
#   "notes-*":
#     expect-tools: [search]
#     fail-on: [error, invalid, warn, security]
`)
		return b.String()
	}
	b.WriteString("\n# Per-server settings, by server label or glob: assertions, disable, fail-on.\nservers:\n")
	for _, l := range labels {
		fmt.Fprintf(&b, "  # expect-tools: [], forbid-tools: [], max-duration: 30s, max-round-trips: 5\n  %s: {}\n", quote(l))
	}
	return b.String()
}

// quote is s as a YAML double-quoted scalar (a JSON string is one).
func quote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}
