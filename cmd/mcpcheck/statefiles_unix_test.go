//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/internal/safefile"
)

// invokeQuickly is invoke that fails instead of hanging.
func invokeQuickly(t *testing.T, args ...string) (code int, stdout, stderr string, took time.Duration) {
	t.Helper()
	type answer struct {
		code     int
		out, err string
	}
	done := make(chan answer, 1)
	start := time.Now()
	go func() {
		code, out, errs := invoke(t, "", args...)
		done <- answer{code, out, errs}
	}()
	select {
	case a := <-done:
		return a.code, a.out, a.err, time.Since(start)
	case <-time.After(20 * time.Second):
		t.Fatalf("mcpcheck %s did not return within 20s", strings.Join(args, " "))
		return 0, "", "", 0
	}
}

// Done when: a suppressions file that is a named pipe, a link to
// /dev/zero or a device, a directory or a file past the limit is exit 2
// at once, naming the file and what it is, for the named file and the
// default one alike; nothing is read from it.
func TestSuppressionsFileThatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	os.Symlink("/dev/zero", zero)
	big := filepath.Join(dir, "big.json")
	f, _ := os.Create(big)
	f.Truncate(safefile.MaxSuppressions + 1) // sparse: costs no disk
	f.Close()
	demo := testdata("demo-session.jsonl")
	for _, c := range []struct{ name, file, want string }{
		{"fifo", fifo, fifo + ": is a named pipe (FIFO), not a regular file"},
		{"link to /dev/zero", zero, zero + ": is a link to /dev/zero, a character device, not a regular file"},
		{"device", "/dev/zero", "/dev/zero: is a character device, not a regular file"},
		{"directory", dir, dir + ": is a directory, not a regular file"},
		{"oversize", big, big + ": is larger than 64 MiB, the most mcpcheck reads of such a file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs, took := invokeQuickly(t, "--suppressions", c.file, demo)
			if code != 2 || out != "" || errs != "mcpcheck: --suppressions: "+c.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr %q\nwant %q", code, out, errs, c.want)
			}
			t.Logf("exit 2 in %v", took)
			// suppress refuses to update it, and leaves it as it is
			code, _, errs, _ = invokeQuickly(t, "suppress", "--reason", "x", "--file", c.file, strings.Repeat("ab", 16))
			if code != 2 || !strings.Contains(errs, c.want) {
				t.Errorf("suppress: exit %d, stderr %q", code, errs)
			}
		})
	}
	// the default file in the source root, committed as a link to /dev/zero
	root := t.TempDir()
	os.Symlink("/dev/zero", filepath.Join(root, defaultSuppressions))
	code, _, errs, took := invokeQuickly(t, "--source-root", root, demo)
	if code != 2 || !strings.Contains(errs, defaultSuppressions+": is a link to /dev/zero, a character device, not a regular file") {
		t.Errorf("default file: exit %d, stderr %q", code, errs)
	}
	t.Logf("default link to /dev/zero: exit 2 in %v", took)
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
}

// Done when: a baseline file that is a named pipe or a link to /dev/zero
// is a baseline finding ("cannot be read"), at once, and never replaced.
func TestBaselineFileThatIsNotARegularFile(t *testing.T) {
	for _, kind := range []string{"fifo", "zero"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			capture := labelCapture(t, t.TempDir(), "c.jsonl", "notes")
			path := filepath.Join(dir, baseline.FileName("notes"))
			want := "is a named pipe (FIFO), not a regular file"
			if kind == "fifo" {
				if err := syscall.Mkfifo(path, 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				os.Symlink("/dev/zero", path)
				want = "is a link to /dev/zero, a character device, not a regular file"
			}
			code, out, _, took := invokeQuickly(t, "--baseline", dir, capture)
			if code == 2 || !strings.Contains(out, "cannot be read: "+want) {
				t.Errorf("check: exit %d\n%s", code, out)
			}
			t.Logf("check: exit %d in %v", code, took)
			code, out, _, _ = invokeQuickly(t, "baseline", "--baseline", dir, capture)
			if code == 2 || !strings.Contains(out, want) {
				t.Errorf("baseline: exit %d\n%s", code, out)
			}
			if fi, _ := os.Lstat(path); fi.Mode().IsRegular() {
				t.Error("the file was replaced")
			}
		})
	}
}

// Done when: check and baseline --accept/--reset never write through a
// baseline directory that is a link (to /etc, say: here a directory
// standing for it); check still runs and says why nothing was kept.
func TestBaselineDirectoryThatIsALinkIsNotWrittenThrough(t *testing.T) {
	etc := t.TempDir()
	link := filepath.Join(t.TempDir(), "baselines")
	os.Symlink(etc, link)
	capture := labelCapture(t, t.TempDir(), "c.jsonl", "notes")
	code, out, errs := invoke(t, "", "--record-baseline", "--baseline", link, capture)
	if code == 2 || !strings.Contains(out, "is a symbolic link (to "+etc+")") {
		t.Errorf("check: exit %d, stderr %q\n%s", code, errs, out)
	}
	for _, args := range [][]string{{"--accept", "--reason", "x"}, {"--reset"}} {
		code, _, errs = invoke(t, "", append(append([]string{"baseline", "--baseline", link}, args...), capture)...)
		if code != 2 || !strings.Contains(errs, "the baseline directory "+link+" is a symbolic link") {
			t.Errorf("baseline %v: exit %d, stderr %q", args, code, errs)
		}
	}
	if entries, _ := os.ReadDir(etc); len(entries) != 0 {
		t.Errorf("written through the link: %v", entries)
	}
}

// Done when: $GITHUB_STEP_SUMMARY and --output are opened without waiting
// on a named pipe: one that no process reads is exit 2 at once, naming it;
// one with a reader receives the report.
func TestOutputsThatAreNamedPipesDoNotBlock(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	demo := testdata("demo-session.jsonl")
	quick := func(cli *command, args ...string) (int, string) {
		done := make(chan struct {
			code int
			errs string
		}, 1)
		go func() {
			code, _, errs := cli.invoke(t, "", args...)
			done <- struct {
				code int
				errs string
			}{code, errs}
		}()
		select {
		case a := <-done:
			return a.code, a.errs
		case <-time.After(20 * time.Second):
			t.Fatalf("mcpcheck %s waited on the named pipe", strings.Join(args, " "))
			return 0, ""
		}
	}
	code, errs := quick(withEnv(map[string]string{"NO_COLOR": "1", "GITHUB_STEP_SUMMARY": fifo}), "check", "--format", "github", "--baseline", t.TempDir(), demo)
	if want := "GITHUB_STEP_SUMMARY: " + fifo + ": is a named pipe that no process reads"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("step summary: exit %d, stderr %q, want %q", code, errs, want)
	}
	code, errs = quick(withEnv(map[string]string{"NO_COLOR": "1"}), "check", "--output", "json="+fifo, "--baseline", t.TempDir(), demo)
	if want := "--output " + fifo + ": is a named pipe that no process reads"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("--output: exit %d, stderr %q, want %q", code, errs, want)
	}
	// with a reader, the report goes through the pipe
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo) // waits for the writer, as a reader does
		if err != nil {
			got <- nil
			return
		}
		data, _ := io.ReadAll(f)
		f.Close()
		got <- data
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, errs = quick(withEnv(map[string]string{"NO_COLOR": "1"}), "check", "--output", "json="+fifo, "--baseline", t.TempDir(), demo)
		if code != 2 || time.Now().After(deadline) {
			break // the reader may not have opened its end yet
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code != 1 {
		t.Fatalf("with a reader: exit %d, stderr %q", code, errs)
	}
	if data := <-got; !strings.Contains(string(data), `"exit_code": 1`) {
		t.Errorf("the reader got %.200q", data)
	}
}
