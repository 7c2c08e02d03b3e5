//go:build !unix

package safefile

import "testing"

func mkfifo(t *testing.T, dir string) string { return "" }
