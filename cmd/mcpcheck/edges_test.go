package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Help of the subcommands is help: printed on stdout, exit 0.
func TestSubcommandHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"rules", "--help"}, {"rules", "-h"}, {"explain", "--help"}, {"explain", "-h"}} {
		code, out, errs := invoke(t, "", args...)
		if code != exitPassed || errs != "" || !strings.Contains(out, "Usage:\n  mcpcheck "+args[0]) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// --max-round-trips counts requests: 0 is a usage error, not "no budget".
func TestMaxRoundTripsZeroIsAUsageError(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	for _, n := range []string{"0", "-1"} {
		code, out, errs := cli.invoke(t, "", "--max-round-trips", n, testdata("clean-stdio.jsonl"))
		if code != exitUsage || out != "" || !strings.Contains(errs, "N >= 1") {
			t.Errorf("--max-round-trips %s: exit %d, stdout %q, stderr %q", n, code, out, errs)
		}
	}
	if code, _, errs := cli.invoke(t, "", "--max-round-trips", "1", testdata("clean-stdio.jsonl")); code == exitUsage {
		t.Errorf("--max-round-trips 1: exit %d, %s", code, errs)
	}
}

// A report never replaces the capture it is about, named directly or
// through a link; nothing is written, not even a temporary file.
func TestOutputThatIsAnInputIsRefused(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	dir := t.TempDir()
	capture := filepath.Join(dir, "run.jsonl")
	data, _ := os.ReadFile(testdata("clean-stdio.jsonl"))
	os.WriteFile(capture, data, 0o644)
	os.Symlink(capture, filepath.Join(dir, "latest.jsonl"))
	for _, out := range []string{capture, filepath.Join(dir, "latest.jsonl"), filepath.Join(dir, ".", "run.jsonl")} {
		code, stdout, errs := cli.invoke(t, "", "--output", "json="+out, capture)
		if code != exitUsage || stdout != "" || !strings.Contains(errs, "is the capture") {
			t.Errorf("--output json=%s: exit %d, stdout %q, stderr %q", out, code, stdout, errs)
		}
	}
	// and through the directory the capture is read from
	code, _, errs := cli.invoke(t, "", "--output", "sarif="+capture, dir)
	if code != exitUsage || !strings.Contains(errs, "is the capture") {
		t.Errorf("directory input: exit %d, stderr %q", code, errs)
	}
	if got, _ := os.ReadFile(capture); string(got) != string(data) {
		t.Error("the capture was changed")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left in the directory: %v", entries)
	}
}

// The same capture given twice, under any name, is read once and said so;
// links that lead nowhere in a directory are said, not silently skipped.
func TestSameCaptureTwiceAndBrokenLinks(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	dir := t.TempDir()
	capture := filepath.Join(dir, "run.jsonl")
	data, _ := os.ReadFile(testdata("clean-stdio.jsonl"))
	os.WriteFile(capture, data, 0o644)
	code, out, errs := cli.invoke(t, "", capture, filepath.Join(dir, "..", filepath.Base(dir), "run.jsonl"), dir)
	if code != exitPassed || strings.Count(out, "session notes-clean-1:") != 1 || strings.Count(errs, "it is read once") != 2 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	os.Symlink(filepath.Join(dir, "gone.jsonl"), filepath.Join(dir, "dangling.jsonl"))
	os.Symlink(filepath.Join(dir, "loop-b.jsonl"), filepath.Join(dir, "loop-a.jsonl"))
	os.Symlink(filepath.Join(dir, "loop-a.jsonl"), filepath.Join(dir, "loop-b.jsonl"))
	code, out, errs = cli.invoke(t, "", dir)
	if code != exitPassed || strings.Count(out, "session notes-clean-1:") != 1 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{
		"dangling.jsonl: a symbolic link to " + filepath.Join(dir, "gone.jsonl") + ", which does not exist; skipped",
		"loop-a.jsonl: a symbolic link loop; skipped",
		"loop-b.jsonl: a symbolic link loop; skipped",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// A step summary the github format cannot append to is found out before
// the check: exit 2, nothing on stdout, no baseline recorded.
func TestUnwritableStepSummaryFailsFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	for _, summary := range []string{filepath.Join(dir, "no", "such", "dir", "summary.md"), dir} {
		cli := withEnv(map[string]string{"NO_COLOR": "1", "GITHUB_STEP_SUMMARY": summary, "MCPCHECK_HOME": home})
		code, out, errs := cli.invoke(t, "", "--format", "github", testdata("clean-stdio.jsonl"))
		if code != exitUsage || out != "" || !strings.Contains(errs, "GITHUB_STEP_SUMMARY") {
			t.Errorf("summary %s: exit %d, stdout %q, stderr %q", summary, code, out, errs)
		}
		if _, err := os.Stat(home); err == nil {
			t.Errorf("summary %s: the check ran (a baseline was recorded)", summary)
		}
	}
	// other formats do not write it, so do not need it
	cli := withEnv(map[string]string{"NO_COLOR": "1", "GITHUB_STEP_SUMMARY": dir, "MCPCHECK_HOME": home})
	if code, _, errs := cli.invoke(t, "", testdata("clean-stdio.jsonl")); code != exitPassed {
		t.Errorf("text with an unwritable summary: exit %d, %s", code, errs)
	}
}

// Capture text cannot break or reorder the lines of the text and github
// reports: line and paragraph separators and bidi controls are escaped.
func TestSeparatorsAndBidiControlsAreEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capture := filepath.Join(dir, "bidi.jsonl")
	os.WriteFile(capture, []byte(
		`{"session_id":"s\u2028check passed","server_label":"x","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read\u202e\u2066txt.exe","arguments":{}}}}`+"\n"+
			`{"session_id":"s\u2028check passed","server_label":"x","seq":2,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"denied\u2029::error::forged"}],"isError":true}}}`+"\n"), 0o644)
	cli := withEnv(map[string]string{"NO_COLOR": "1", "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md")})
	for _, format := range []string{"text", "github"} {
		_, out, errs := cli.invoke(t, "", "--format", format, capture)
		if out == "" || strings.ContainsAny(out, "\u2028\u2029\u202e\u2066") {
			t.Errorf("%s keeps a separator or bidi control (stderr %q):\n%q", format, errs, out)
		}
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if len(summary) == 0 || strings.ContainsAny(string(summary), "\u2028\u2029\u202e\u2066") {
		t.Errorf("step summary keeps a separator or bidi control:\n%q", summary)
	}
}

// SIGINT and SIGTERM leave no temporary report behind: the child process
// is stopped while it reads a capture from a pipe, with --output files open.
func TestInterruptRemovesTemporaryReports(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX signals")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "check", "--output", "json="+filepath.Join(dir, "out.json"), "--output", "junit="+filepath.Join(dir, "out.xml"), "-")
		cmd.Env = append(os.Environ(), runMainEnv+"=1", "NO_COLOR=1", "MCPCHECK_HOME="+filepath.Join(dir, "home"))
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(testdata("clean-stdio.jsonl"))
		stdin.Write(data) // and more may come: the check waits
		deadline := time.Now().Add(10 * time.Second)
		for {
			tmp, _ := filepath.Glob(filepath.Join(dir, ".out.*.tmp"))
			if len(tmp) == 2 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if tmp, _ := filepath.Glob(filepath.Join(dir, ".out.*.tmp")); len(tmp) != 2 {
			t.Fatalf("temporary reports before the signal: %v", tmp)
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		stdin.Close()
		exit, _ := err.(*exec.ExitError)
		if want := 128 + int(sig); exit == nil || exit.ExitCode() != want {
			t.Errorf("%v: %v, want exit %d", sig, err, want)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".out.*")); len(left) != 0 {
			t.Errorf("%v left %v", sig, left)
		}
		if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
			t.Errorf("%v: a report was written", sig)
		}
	}
}
