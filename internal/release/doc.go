// Package release holds the test of .ci/release, the script that builds
// mcpcheck's release archives (docs/releasing.md). It has no code.
package release
