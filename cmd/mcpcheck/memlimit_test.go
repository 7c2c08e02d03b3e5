package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// Not parallel: the memory limit is the process's.
func TestSoftMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOMEMLIMIT", "")
	limitMemory()
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit {
		t.Errorf("limit %d, want %d", got, softMemoryLimit)
	}
	debug.SetMemoryLimit(1 << 40)
	t.Setenv("GOMEMLIMIT", "1GiB") // the user's: the runtime read it at start
	limitMemory()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("limit %d with GOMEMLIMIT set, want it left as it was", got)
	}
}
