package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The soft limit is set unless GOMEMLIMIT is, and leaves the user's alone.
func TestSoftMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOMEMLIMIT", "")
	stop := limitMemory()
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit {
		t.Errorf("limit %d, want %d", got, softMemoryLimit)
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit %d after stop, want none", got)
	}
	debug.SetMemoryLimit(1 << 40)
	t.Setenv("GOMEMLIMIT", "1GiB") // the user's: the runtime read it at start
	limitMemory()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("limit %d with GOMEMLIMIT set, want it left as it was", got)
	}
}

func TestMemoryLimitFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, softMemoryLimit},
		{8 << 20, softMemoryLimit}, // an ordinary run: the soft limit holds
		{14 << 20, 25 << 20},
		{20 << 20, 34 << 20},
		{200 << 20, 304 << 20}, // one large envelope
	} {
		if got := memoryLimitFor(c.live); got != c.want {
			t.Errorf("live %d MiB: limit %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// A run that holds more than the soft limit live gets a limit half as
// much again after its next collection, not a collector that runs
// without pause; once the heap is let go the soft limit is back. (Not
// parallel: the limit is the process's.)
func TestMemoryLimitFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	stop := limitMemory()
	defer stop()
	func() {
		held := make([]byte, 48<<20)
		for i := range held {
			held[i] = byte(i) // resident, and live while the limit is read
		}
		if got := limitAfterCollections(func(l int64) bool { return l >= 72<<20 }); got < 72<<20 {
			t.Errorf("limit %d MiB with 48 MiB live, want at least 72", got>>20)
		}
		runtime.KeepAlive(held)
	}()
	if got := limitAfterCollections(func(l int64) bool { return l == softMemoryLimit }); got != softMemoryLimit {
		t.Errorf("limit %d MiB once the heap was let go, want the soft limit", got>>20)
	}
}

// limitAfterCollections collects until done accepts the limit (the
// cleanup that sets it runs on its own goroutine) or five seconds pass.
func limitAfterCollections(done func(int64) bool) int64 {
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		if l := debug.SetMemoryLimit(-1); done(l) || time.Now().After(deadline) {
			return l
		}
	}
}
