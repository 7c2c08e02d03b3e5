package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/racedetect"
	"github.com/mcpcheck/mcpcheck/session/sessiontest"
)

// A test binary started with this variable set runs mcpcheck itself, so the
// peak-RSS test measures a real process without building a second binary.
const runMainEnv = "MCPCHECK_TEST_RUN_MAIN"

// peakFileEnv names a file the child writes its own peak RSS to. The
// parent cannot use the child's rusage: Linux carries the parent's
// high-water mark across the fork and exec into it.
const peakFileEnv = "MCPCHECK_TEST_PEAK_FILE"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		exitOnInterrupt()
		limitMemory() // as main does
		pauseBeforeRename(os.Getenv(pauseEnv))
		code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		if path := os.Getenv(peakFileEnv); path != "" {
			if status, err := os.ReadFile("/proc/self/status"); err == nil {
				os.WriteFile(path, status, 0o644)
			}
		}
		os.Exit(code)
	}
	// check no longer writes state (issue 22); tests that read the real
	// environment still get a $MCPCHECK_HOME of their own, so that a
	// regression would write there and not into the user's.
	home, err := os.MkdirTemp("", "mcpcheck-test-home-")
	if err != nil {
		panic(err)
	}
	os.Setenv("MCPCHECK_HOME", home)
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// peakRSS reads VmHWM (KiB) from a copy of /proc/self/status.
func peakRSS(status []byte) (int64, bool) {
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kib * 1024, err == nil
		}
	}
	return 0, false
}

// TestPeakRSSOnLargeCapture streams a generated capture through a mcpcheck
// process and checks its peak resident memory: memory must not grow with
// the capture. 128 MiB by default; MCPCHECK_LARGE_CAPTURE=1 makes it 1 GiB.
func TestPeakRSSOnLargeCapture(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the streaming-memory test")
	}
	racedetect.SkipUnderRace(t)
	size := int64(128 << 20)
	if os.Getenv("MCPCHECK_LARGE_CAPTURE") == "1" {
		size = 1 << 30
	}
	const limit = 64 << 20
	peakFile := filepath.Join(t.TempDir(), "status")
	cmd := exec.Command(os.Args[0], "check", "--fail-on", "none", "-")
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "NO_COLOR=1", peakFileEnv+"="+peakFile)
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
	status, err := os.ReadFile(peakFile)
	if err != nil {
		t.Skip("no /proc/self/status on this platform: peak RSS cannot be measured")
	}
	peak, ok := peakRSS(status)
	if !ok {
		t.Fatalf("no VmHWM in /proc/self/status:\n%s", status)
	}
	t.Logf("checked a generated %d MiB capture with peak RSS %.1f MiB", size>>20, float64(peak)/(1<<20))
	if peak > limit {
		t.Errorf("peak RSS %d MiB exceeds %d MiB", peak>>20, limit>>20)
	}
}
