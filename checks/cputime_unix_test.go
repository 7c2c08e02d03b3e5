//go:build unix

package checks_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process used so far (user and system, all
// threads): what a benchmark on a shared machine can compare, where wall
// time also counts other processes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
