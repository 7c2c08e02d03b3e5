package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

var progressLine = regexp.MustCompile(`mcpcheck: read ([0-9.]+ [MG]B)(?: of ([0-9.]+ [MG]B) \((\d+)%\))?, \d+ MB/s, (\d+) findings?`)

// TestProgressAlways: the last line says everything was read, of the
// file's size, and counts every finding the report lists.
func TestProgressAlways(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1", "CI": "true", "MCPCHECK_HOME": t.TempDir()})
	path := testdata("demo-session.jsonl")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	_, stdout, stderr := cli.invoke(t, "", "check", "--progress", "always", "--format", "json", path)
	lines := progressLine.FindAllStringSubmatch(stderr, -1)
	if len(lines) == 0 {
		t.Fatalf("no progress line on stderr:\n%s", stderr)
	}
	last := lines[len(lines)-1]
	if want := megabytes(info.Size()); last[1] != want || last[2] != want || last[3] != "100" {
		t.Errorf("last progress line %q: want %s of %s (100%%)", last[0], want, want)
	}
	var rep struct {
		Sessions []struct {
			Findings   []json.RawMessage `json:"findings"`
			Suppressed int               `json:"suppressed"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range rep.Sessions {
		n += len(s.Findings) + s.Suppressed
	}
	if n == 0 || last[4] != fmt.Sprint(n) {
		t.Errorf("last progress line %q; the report has %d findings", last[0], n)
	}
	// Not a terminal: whole lines, no carriage returns or escapes.
	if strings.ContainsAny(stderr, "\r\x1b") {
		t.Errorf("terminal control characters in a non-terminal's progress: %q", stderr)
	}
}

func TestProgressNeverAndAutoOffTerminal(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1", "MCPCHECK_HOME": t.TempDir()})
	for _, args := range [][]string{
		{"check", "--progress", "never", testdata("demo-session.jsonl")},
		{"check", testdata("demo-session.jsonl")}, // auto; stderr is a buffer
		{"check", "--progress", "AUTO", "-"},
	} {
		_, _, stderr := cli.invoke(t, "", args...)
		if strings.Contains(stderr, "mcpcheck: read") {
			t.Errorf("%v: progress on stderr:\n%s", args, stderr)
		}
	}
	// auto on a pipe (as a CI runner's log is) stays silent too.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	code := cli.run([]string{"check", testdata("demo-session.jsonl")}, strings.NewReader(""), io.Discard, w)
	w.Close()
	got, _ := io.ReadAll(r)
	if code != exitFailed || bytes.Contains(got, []byte("mcpcheck: read")) {
		t.Errorf("exit %d, stderr on a pipe %q", code, got)
	}
	if code, _, stderr := cli.invoke(t, "", "check", "--progress", "sometimes", testdata("demo-session.jsonl")); code != exitUsage || !strings.Contains(stderr, "--progress") {
		t.Errorf("--progress sometimes: exit %d, %q", code, stderr)
	}
}

// TestProgressAutoOnTerminal gives run a pseudo-terminal as stderr: auto
// draws the line in place, and CI=true silences it.
func TestProgressAutoOnTerminal(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		cli := withEnv(map[string]string{"NO_COLOR": "1", "CI": ci, "MCPCHECK_HOME": t.TempDir()})
		master, tty, err := openPTY()
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		var got bytes.Buffer
		copied := make(chan struct{})
		go func() { io.Copy(&got, master); close(copied) }()
		cli.run([]string{"check", testdata("demo-session.jsonl")}, strings.NewReader(""), io.Discard, tty)
		tty.Close()
		select {
		case <-copied:
		case <-time.After(5 * time.Second):
		}
		master.Close()
		shown := progressLine.Match(got.Bytes())
		if ci == "" && (!shown || !bytes.Contains(got.Bytes(), []byte("\r\x1b[K"))) {
			t.Errorf("auto on a terminal: %q", got.String())
		}
		if ci != "" && shown {
			t.Errorf("auto on a terminal under CI: %q", got.String())
		}
	}
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	p := &progress{total: 1_760_000_000}
	if got, want := p.line(812_000_000, 1, 4*time.Second), "mcpcheck: read 812.0 MB of 1.76 GB (46%), 203 MB/s, 1 finding"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	p.total = 0 // standard input
	if got, want := p.line(5_000_000, 12, time.Second), "mcpcheck: read 5.0 MB, 5 MB/s, 12 findings"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
}
