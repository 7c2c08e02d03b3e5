package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runPeak is the shim: mcpbench peak OUTFILE PROG ARGS... runs PROG with
// its standard output in OUTFILE and prints its wall time, CPU time and
// peak RSS. The peak comes from the child's rusage, which on Linux is the
// larger of the child's own high-water mark and that of the process that
// started it (carried across fork and exec), so it is taken here, in a
// process far smaller than anything it measures; the shim's own mark is
// printed beside it so the harness can tell when it could have counted.
func runPeak(args []string, out io.Writer) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: mcpbench peak OUTFILE PROG ARGS...")
	}
	f, err := os.Create(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdout, cmd.Stderr = f, os.Stderr
	shim := selfHWM()
	start := time.Now()
	runErr := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		return runErr
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return fmt.Errorf("no rusage for %s", args[1])
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	_, err = fmt.Fprintf(out, "wall_ns=%d cpu_ns=%d maxrss_kib=%d shim_kib=%d exit=%d\n",
		wall.Nanoseconds(), cpu.Nanoseconds(), ru.Maxrss, shim, cmd.ProcessState.ExitCode())
	return err
}

// selfHWM is this process's VmHWM in KiB, or 0.
func selfHWM() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kib
		}
	}
	return 0
}
