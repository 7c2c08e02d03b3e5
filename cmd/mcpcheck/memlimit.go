package main

import (
	"os"
	"runtime/debug"
)

// softMemoryLimit is the heap size past which the collector runs sooner
// than GOGC alone would have it (runtime/debug.SetMemoryLimit). An
// ordinary run holds a few MiB live, and GOGC's doubling lets its heap
// reach twice that and more; with the limit the collector works harder
// only as the heap nears it. A run that holds more live (one envelope of
// 200 MiB) goes past it: the runtime then spends at most half the CPU on
// collection, and never fails for it.
const softMemoryLimit = 24 << 20

// limitMemory sets the soft limit unless the user set GOMEMLIMIT.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
}
