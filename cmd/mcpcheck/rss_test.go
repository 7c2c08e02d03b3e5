package main

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpcheck/mcpcheck/session/sessiontest"
)

// A test binary started with this variable set runs mcpcheck itself, so the
// peak-RSS test measures a real process without building a second binary.
const runMainEnv = "MCPCHECK_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestPeakRSSOnLargeCapture streams a generated capture through a mcpcheck
// process and checks its peak resident memory: memory must not grow with
// the capture. 128 MiB by default; MCPCHECK_LARGE_CAPTURE=1 makes it 1 GiB.
func TestPeakRSSOnLargeCapture(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the streaming-memory test")
	}
	size := int64(128 << 20)
	if os.Getenv("MCPCHECK_LARGE_CAPTURE") == "1" {
		size = 1 << 30
	}
	const limit = 64 << 20
	cmd := exec.Command(os.Args[0], "check", "--fail-on", "none", "-")
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "NO_COLOR=1")
	cmd.Stdin = sessiontest.Capture(size, 8<<20)
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = io.Discard
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcpcheck on a generated capture: %v", err)
	}
	if !strings.Contains(out.String(), "check passed") {
		t.Fatalf("unexpected report:\n%.2000s", out.String())
	}
	usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("peak RSS is not reported on this platform")
	}
	peak := usage.Maxrss * 1024 // Linux reports KiB
	t.Logf("checked a generated %d MiB capture with peak RSS %.1f MiB", size>>20, float64(peak)/(1<<20))
	if peak > limit {
		t.Errorf("peak RSS %d MiB exceeds %d MiB", peak>>20, limit>>20)
	}
}
