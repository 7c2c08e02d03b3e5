package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// softMemoryLimit is the heap size past which the collector runs sooner
// than GOGC alone would have it (runtime/debug.SetMemoryLimit). An
// ordinary run holds a few MiB live, and GOGC's doubling lets its heap
// reach twice that and more; with the limit the collector works harder
// only as the heap nears it.
const softMemoryLimit = 24 << 20

// runtimeOverhead is about what the runtime counts against the limit
// besides the heap's objects: stacks, its own structures, fragmentation.
const runtimeOverhead = 4 << 20

// limitMemory sets the soft limit unless the user set GOMEMLIMIT, and
// moves it with the live heap after every collection (memoryLimitFor).
// stop ends that and lifts the limit.
func limitMemory() (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	stopped := new(atomic.Bool)
	debug.SetMemoryLimit(softMemoryLimit)
	followLiveHeap(stopped)
	return func() {
		stopped.Store(true)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// memoryLimitFor is the limit for a heap that held live bytes at the end
// of the last collection: the soft limit, or half as much again as live
// (and the runtime's own), whichever is more. A limit the live heap
// nears makes the collector run again almost at once, up to half the CPU
// (a listing of 200k tools, ~120 MiB live, took 14 s of CPU under a fixed
// 24 MiB limit and 4.9 s with this one); half again as much as live lets
// it run at most about twice as often as GOGC=100 would.
func memoryLimitFor(live uint64) int64 {
	return max(softMemoryLimit, int64(live+live/2)+runtimeOverhead)
}

// gcSentinel is collected at the next collection, and its cleanup then
// runs: an object of its own size, not one of the tiny ones the
// allocator packs together.
type gcSentinel struct{ _ [64]byte }

// followLiveHeap sets the limit for the live heap after the next
// collection, and again after each one until stopped.
func followLiveHeap(stopped *atomic.Bool) {
	runtime.AddCleanup(new(gcSentinel), func(stopped *atomic.Bool) {
		if stopped.Load() {
			return
		}
		debug.SetMemoryLimit(memoryLimitFor(liveHeap()))
		followLiveHeap(stopped)
	}, stopped)
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
