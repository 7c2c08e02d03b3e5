package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/report/sariftest"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
)

var update = flag.Bool("update", false, "rewrite golden CLI outputs in ../../testdata/golden")

// invoke runs the command in-process as production does, in the
// process's environment.
func invoke(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return defaultCommand().invoke(t, stdin, args...)
}

// invoke runs c in-process.
func (c *command) invoke(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = c.run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// ownHome is production's command in the process's environment, but with
// a tool-baseline directory of the test's own ($MCPCHECK_HOME), so that
// tests running side by side do not record baselines for each other.
func ownHome(t *testing.T) *command {
	c := defaultCommand()
	home := t.TempDir()
	c.getenv = func(k string) string {
		if k == "MCPCHECK_HOME" {
			return home
		}
		return os.Getenv(k)
	}
	return c
}

// withEnv is production's command with env as its whole environment.
func withEnv(env map[string]string) *command {
	c := defaultCommand()
	c.getenv = func(k string) string { return env[k] }
	return c
}

func testdata(name string) string { return filepath.Join("..", "..", "testdata", name) }

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := testdata(filepath.Join("golden", name))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/mcpcheck -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test ./cmd/mcpcheck -update, then review the diff):\n%s", path, got)
	}
}

// TestProjectCaptures runs the captures shipped in testdata/ end to end,
// against golden outputs: what a user sees, byte for byte.
func TestProjectCaptures(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	cases := []struct {
		golden string
		args   []string
		code   int
	}{
		{"clean-stdio.txt", []string{testdata("clean-stdio.jsonl")}, 0},
		{"demo-session.txt", []string{testdata("demo-session.jsonl")}, 1},
		{"demo-session-quiet.txt", []string{"check", "--quiet", testdata("demo-session.jsonl")}, 1},
		{"demo-session-report-only.txt", []string{"--fail-on", "none", testdata("demo-session.jsonl")}, 0},
		{"demo-session-pending.txt", []string{"--fail-on=pending", testdata("demo-session.jsonl")}, 1},
		{"stdout-pollution.txt", []string{testdata("stdout-pollution.jsonl")}, 1},
		{"recorder-artifacts.txt", []string{testdata("recorder-artifacts.jsonl")}, 0},
		{"http-connections.txt", []string{testdata("http-connections.jsonl")}, 1},
		{"probe-fallback.txt", []string{testdata("probe-fallback.jsonl")}, 0},
		{"several-files.txt", []string{testdata("clean-stdio.jsonl"), testdata("probe-fallback.jsonl")}, 0},
		{"assertions.txt", []string{"--fail-on", "none", "--expect-tool", "search_notes", "--expect-tool", "delete_note", "--forbid-tool", "append_note", "--max-duration", "1ms", testdata("demo-session.jsonl")}, 1},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			code, out, errs := cli.invoke(t, "", c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, c.code, errs)
			}
			if errs != "" {
				t.Errorf("stderr not empty: %s", errs)
			}
			golden(t, c.golden, out)
		})
	}
}

// TestProjectCapturesFindings pins the findings that matter in each shipped
// capture, independently of the golden text.
func TestProjectCapturesFindings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file string
		want map[string]int // rule -> findings
	}{
		{"clean-stdio.jsonl", map[string]int{}},
		{"demo-session.jsonl", map[string]int{"tool-error": 1, "pending-request": 1}},
		{"stdout-pollution.jsonl", map[string]int{"invalid-frame": 2, "pending-request": 1}},
		// the tools/list answer recorded before its request pairs silently;
		// cancelled calls are neither pending nor late
		{"recorder-artifacts.jsonl", map[string]int{}},
		// answers and a cancellation on other connections pair; one -32601;
		// the server's roots/list is deprecated-feature
		{"http-connections.jsonl", map[string]int{"jsonrpc-error": 1, "deprecated-feature": 1}},
		// the rejected server/discover probe is negotiation, not an error
		{"probe-fallback.jsonl", map[string]int{}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got := ruleCounts(t, testdata(c.file))
			assertCounts(t, got, c.want)
		})
	}
}

func ruleCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	srcs, err := readers.Resolve([]string{path}, nil, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	gate, _ := result.ParseGate(checks.DefaultGate, checks.All())
	res, err := engine.Run(srcs, engine.Config{Rules: checks.All(), Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for s := range res.AllSessions() {
		for _, f := range s.Findings {
			got[f.Rule]++
		}
	}
	return got
}

func assertCounts(t *testing.T, got, want map[string]int) {
	t.Helper()
	for rule, n := range want {
		if got[rule] != n {
			t.Errorf("%s: %d findings, want %d (all: %v)", rule, got[rule], n, got)
		}
	}
	for rule, n := range got {
		if _, ok := want[rule]; !ok {
			t.Errorf("unexpected %d %s findings (all: %v)", n, rule, got)
		}
	}
}

// TestUsageErrorsCheckNothing covers exit 2: nothing on stdout, one clear
// line on stderr, for every format.
func TestUsageErrorsCheckNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "notes.txt")
	os.WriteFile(plain, []byte("this is a README, not a capture\nsecond line\n"), 0o644)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	emptyDir := filepath.Join(dir, "nothing-here")
	os.Mkdir(emptyDir, 0o755)
	jsonLog := filepath.Join(dir, "server-log.jsonl")
	os.WriteFile(jsonLog, []byte(`{"level":"info","msg":"listening on :8080"}`+"\n"), 0o644)
	jsonrpc := filepath.Join(dir, "plain.jsonl")
	os.WriteFile(jsonrpc, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"), 0o644)
	tried := "(formats tried: " + strings.Join(formatNames(), ", ") + ")"
	noSession := filepath.Join(dir, "nosession.jsonl")
	os.WriteFile(noSession, []byte(`{"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}`+"\n"), 0o644)
	capture := testdata("clean-stdio.jsonl")
	noTools := filepath.Join(dir, "ping.jsonl")
	os.WriteFile(noTools, []byte(`{"session_id":"p1","server_label":"notes","seq":1,"ts":"2026-09-01T10:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}`+"\n"), 0o644)

	cases := []struct {
		name   string
		args   []string
		stderr string // a fragment the one-line message must contain
	}{
		{"unknown flag", []string{"--no-such-flag", capture}, "unknown flag: --no-such-flag"},
		{"unknown fail-on", []string{"--fail-on", "error,nonsense", capture}, `unknown entry "nonsense"`},
		{"none with others", []string{"--fail-on", "none,error", capture}, "none cannot be combined"},
		{"unknown format", []string{"--format", "yaml", capture}, `unknown format "yaml"`},
		{"unknown output format", []string{"--output", "yaml=x.yaml", capture}, `unknown format "yaml"`},
		{"bad output spec", []string{"--output", "sarif", capture}, "is not FMT=PATH"},
		{"unknown disable", []string{"--disable", "no-such-rule", capture}, `unknown rule "no-such-rule"`},
		{"fail-on a disabled rule", []string{"--fail-on", "error,pending-request", "--disable", "pending-request", capture}, `--fail-on names rule "pending-request", which --disable turns off`},
		{"fail-on a disabled rule of a list", []string{"--disable", "cursor,lifecycle", "--fail-on", "LIFECYCLE", capture}, `--fail-on names rule "lifecycle", which --disable turns off`},
		{"all with none", []string{"--fail-on", "all,none", capture}, "none cannot be combined"},
		{"bad duration", []string{"--max-duration", "soon", capture}, "is not a duration"},
		{"bad color", []string{"--color", "pink", capture}, "is not auto, always or never"},
		{"missing path", []string{filepath.Join(dir, "missing.jsonl")}, "no such file or directory"},
		{"plain text", []string{plain}, plain + ":1: not a capture: the first line is not a JSON envelope " + tried},
		{"empty file", []string{empty}, empty + ": not a capture: the file is empty"},
		{"empty directory", []string{emptyDir}, "no non-empty capture files in directory (looked for "},
		{"empty directory of a forced format", []string{"--input-format", "claude-desktop", emptyDir}, "(looked for mcp-server-*.log, mcp-server-*.log.gz)"},
		{"empty fail-on", []string{"--fail-on=", capture}, "--fail-on is empty"},
		{"a JSON log", []string{jsonLog}, jsonLog + `:1: not a capture: the first object is not an envelope ` + tried},
		{"plain JSON-RPC forced to mcpsnoop", []string{"--input-format", "mcpsnoop", jsonrpc}, jsonrpc + `:1: not a capture: it does not match the forced format mcpsnoop (formats tried: mcpsnoop)`},
		{"unknown input format", []string{"--input-format", "pcap", capture}, `--input-format: unknown format "pcap"; valid: ` + strings.Join(formatNames(), ", ")},
		{"no session id", []string{noSession}, "no envelope has a session_id"},
		{"one bad among good", []string{capture, plain}, plain + ":1:"},
		{"explain unknown", []string{"explain", "no-such-rule"}, `unknown rule "no-such-rule"`},
		{"rules bad format", []string{"rules", "--format", "xml"}, "is not text, json or markdown"},
		{"empty baseline", []string{"--baseline=", capture}, "--baseline is empty"},
		{"baseline accept and reset", []string{"baseline", "--accept", "--reason", "x", "--reset", capture}, "--accept and --reset cannot be combined"},
		{"baseline accept without reason", []string{"baseline", "--accept", capture}, "--accept needs --reason TEXT"},
		{"baseline blank reason", []string{"baseline", "--accept", "--reason", " ", capture}, "--accept needs --reason TEXT"},
		{"baseline reason alone", []string{"baseline", "--reason", "x", capture}, "--reason goes with --accept"},
		{"baseline accept without tools", []string{"baseline", "--accept", "--reason", "x", noTools}, "nothing to accept"},
		{"baseline missing capture", []string{"baseline", filepath.Join(dir, "missing.jsonl")}, "no such file or directory"},
	}
	formats := append([]string{""}, report.Formats()...)
	for _, c := range cases {
		for _, format := range formats {
			if format != "" && (c.args[0] == "explain" || c.args[0] == "rules" || c.args[0] == "baseline" || strings.Contains(c.name, "format")) {
				continue
			}
			t.Run(c.name+"/"+format, func(t *testing.T) {
				cli := withEnv(map[string]string{"HOME": dir})
				args := c.args
				if format != "" {
					args = append([]string{"--format", format}, args...)
				}
				out := filepath.Join(dir, "report-"+strings.ReplaceAll(c.name, " ", "-")+".sarif")
				if c.args[0] != "explain" && c.args[0] != "rules" && c.args[0] != "baseline" {
					args = append([]string{"--output", "sarif=" + out}, args...)
				}
				code, stdout, stderr := cli.invoke(t, "", args...)
				if code != 2 {
					t.Errorf("exit %d, want 2", code)
				}
				if stdout != "" {
					t.Errorf("stdout not empty on exit 2:\n%s", stdout)
				}
				if !strings.HasPrefix(stderr, "mcpcheck: ") || !strings.Contains(stderr, c.stderr) {
					t.Errorf("stderr %q lacks %q", stderr, c.stderr)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("--output file written on exit 2")
				}
			})
		}
	}
}

func TestNoCaptureAnywhereIsExit2(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".local", "state", "mcpsnoop", "sessions"), 0o755)
	os.WriteFile(filepath.Join(home, ".local", "state", "mcpsnoop", "sessions", "empty.jsonl"), nil, 0o644)
	cli := withEnv(map[string]string{"HOME": home})
	code, out, errs := cli.invoke(t, "")
	if code != 2 || out != "" || !strings.Contains(errs, "no capture given and no mcpsnoop session in "+filepath.Join(home, ".local", "state", "mcpsnoop", "sessions")) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	notDir := filepath.Join(home, "file.jsonl")
	os.WriteFile(notDir, []byte("x"), 0o644)
	code, out, errs = cli.invoke(t, "", filepath.Join(notDir, "inside.jsonl"))
	if code != 2 || out != "" || !strings.Contains(errs, "not a directory") {
		t.Errorf("unreadable path: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestOutputsAreWrittenWithTheSameExitCode(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	dir := t.TempDir()
	capture := testdata("demo-session.jsonl")
	// one baseline directory for every run: the first records, the others
	// read the same file, so its recording time cannot differ between them
	baselines := filepath.Join(dir, "baselines")
	cli.invoke(t, "", "--baseline", baselines, capture)
	plainCode, plainOut, _ := cli.invoke(t, "", "--baseline", baselines, capture)
	args := []string{"check", "--baseline", baselines}
	for _, f := range report.Formats() {
		if f != "text" {
			args = append(args, "--output", f+"="+filepath.Join(dir, "report."+f))
		}
	}
	code, out, errs := cli.invoke(t, "", append(args, capture)...)
	if code != plainCode || code != 1 {
		t.Errorf("exit %d with outputs, %d without; want 1 both", code, plainCode)
	}
	if out != plainOut {
		t.Errorf("stdout changed with --output:\n%s\nvs\n%s", out, plainOut)
	}
	if errs != "" {
		t.Errorf("stderr: %s", errs)
	}
	for _, f := range report.Formats() {
		if f == "text" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "report."+f))
		if err != nil || len(data) == 0 {
			t.Errorf("%s report not written: %v", f, err)
		}
		if f == "sarif" {
			sariftest.Validate(t, data)
		}
		// the file equals what --format renders to stdout
		_, direct, _ := cli.invoke(t, "", "--baseline", baselines, "--format", f, capture)
		if f != "github" && string(data) != direct {
			t.Errorf("%s file differs from --format %s output", f, f)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestOutputIntoMissingDirectoryIsExit2AndWritesNothing(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "a.json")
	code, out, errs := cli.invoke(t, "", "--output", "json="+good, "--output", "json="+filepath.Join(dir, "no", "such", "b.json"), testdata("clean-stdio.jsonl"))
	if code != 2 || out != "" || !strings.Contains(errs, "--output") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Stat(good); err == nil {
		t.Error("the other --output file was written although the run failed")
	}
}

func TestOutputTargetsAreCheckedBeforeReading(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	dir := t.TempDir()
	good, isDir := filepath.Join(dir, "a.json"), filepath.Join(dir, "reports")
	os.Mkdir(isDir, 0o755)
	// the capture does not exist: the output error must come first
	code, out, errs := cli.invoke(t, "", "--output", "json="+good, "--output", "sarif="+isDir, filepath.Join(dir, "missing.jsonl"))
	if code != 2 || out != "" || !strings.Contains(errs, "--output "+isDir+": is a directory") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left behind: %v", entries)
	}
}

func TestOutputFileModes(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	dir := t.TempDir()
	fresh, kept := filepath.Join(dir, "fresh.json"), filepath.Join(dir, "kept.json")
	os.WriteFile(kept, []byte("old"), 0o640)
	if code, _, errs := cli.invoke(t, "", "--output", "json="+fresh, "--output", "json="+kept, testdata("clean-stdio.jsonl")); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for path, want := range map[string]os.FileMode{fresh: 0o644, kept: 0o640} {
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", filepath.Base(path), info.Mode().Perm(), want, err)
		}
	}
}

// A link is followed (the file it names gets the report, the link stays);
// a target that is not a regular file is written in place.
func TestOutputThroughLinksAndDevices(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.json"), filepath.Join(dir, "link.json")
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink("real.json", link)
	if code, _, errs := cli.invoke(t, "", "--output", "json="+link, testdata("clean-stdio.jsonl")); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if data, _ := os.ReadFile(real); !strings.Contains(string(data), `"version": 1`) {
		t.Errorf("the linked file did not get the report: %.40q", data)
	}
	if code, _, errs := cli.invoke(t, "", "--output", "json=/dev/null", testdata("clean-stdio.jsonl")); code != 0 {
		t.Errorf("--output to /dev/null: exit %d: %s", code, errs)
	}
	if info, err := os.Lstat("/dev/null"); err != nil || info.Mode().IsRegular() {
		t.Fatalf("/dev/null was replaced by a regular file")
	}
}

func TestInputsStdinGzipDirectorySessionID(t *testing.T) {
	t.Parallel()
	clean, err := os.ReadFile(testdata("clean-stdio.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gz := filepath.Join(dir, "clean.jsonl.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(clean)
	zw.Close()
	os.WriteFile(gz, buf.Bytes(), 0o644)

	state := filepath.Join(dir, "state")
	os.MkdirAll(filepath.Join(state, "sessions"), 0o755)
	os.WriteFile(filepath.Join(state, "sessions", "notes-clean-1.jsonl"), clean, 0o644)
	os.WriteFile(filepath.Join(state, "sessions", "empty.jsonl"), nil, 0o644)

	capDir := filepath.Join(dir, "captures")
	os.Mkdir(capDir, 0o755)
	os.WriteFile(filepath.Join(capDir, "b.jsonl"), clean, 0o644)
	os.WriteFile(filepath.Join(capDir, "a.jsonl.gz"), buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(capDir, "README.md"), []byte("# not a capture"), 0o644)
	os.WriteFile(filepath.Join(capDir, "c-still-recording.jsonl"), nil, 0o644)          // empty: skipped
	os.Symlink(filepath.Join(capDir, "b.jsonl"), filepath.Join(capDir, "d-link.jsonl")) // b.jsonl again: read once

	cases := []struct {
		name  string
		stdin string
		env   map[string]string
		args  []string
		want  []string // fragments in order
	}{
		{"stdin", string(clean), nil, []string{"-"}, []string{"session notes-clean-1:", "check passed"}},
		{"gzip", "", nil, []string{gz}, []string{"session notes-clean-1:", "check passed"}},
		{"directory in lexical order", "", nil, []string{capDir}, []string{"session notes-clean-1:", "session notes-clean-1:", "check passed"}},
		{"bare session id", "", map[string]string{"MCPSNOOP_HOME": state}, []string{"notes-clean-1"}, []string{"session notes-clean-1:", "check passed"}},
		{"xdg state", "", map[string]string{"XDG_STATE_HOME": dir, "HOME": "/nonexistent"}, []string{"notes-clean-1"}, nil},
		{"newest session", "", map[string]string{"MCPSNOOP_HOME": state}, nil, []string{"session notes-clean-1:", "check passed"}},
	}
	os.MkdirAll(filepath.Join(dir, "mcpsnoop", "sessions"), 0o755)
	os.WriteFile(filepath.Join(dir, "mcpsnoop", "sessions", "notes-clean-1.jsonl"), clean, 0o644)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"NO_COLOR": "1", "HOME": dir}
			for k, v := range c.env {
				env[k] = v
			}
			cli := withEnv(env)
			code, out, errs := cli.invoke(t, c.stdin, c.args...)
			if code != 0 {
				t.Fatalf("exit %d; stderr %s", code, errs)
			}
			rest := out
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestDisableRemovesFindingsAndCounts(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	code, out, _ := cli.invoke(t, "", "--verbose", "--disable", "tool-error", testdata("demo-session.jsonl"))
	if code != 0 {
		t.Errorf("exit %d, want 0 once tool-error is disabled", code)
	}
	if strings.Contains(out, "tool-error") || !strings.Contains(out, "errors=0") {
		t.Errorf("disabled rule still reported or counted:\n%s", out)
	}
}

func TestDisableMissingFramesAlsoDropsItsCount(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	capture := filepath.Join(t.TempDir(), "gap.jsonl")
	data, _ := os.ReadFile(testdata("clean-stdio.jsonl"))
	gapped := strings.Replace(string(data), `"seq":5,`, `"seq":9,`, 1)
	os.WriteFile(capture, []byte(gapped), 0o644)
	_, out, _ := cli.invoke(t, "", capture)
	if !strings.Contains(out, "missing_frames=4") {
		t.Fatalf("the gap is not counted:\n%s", out)
	}
	_, out, _ = cli.invoke(t, "", "--verbose", "--disable", "missing-frames", capture)
	if !strings.Contains(out, "missing_frames=0") || strings.Contains(out, "(missing-frames)") {
		t.Errorf("a disabled rule is neither reported nor counted:\n%s", out)
	}
}

func TestFailOnRuleID(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	code, out, _ := cli.invoke(t, "", "--fail-on", "pending-request", testdata("demo-session.jsonl"))
	if code != 1 || !strings.Contains(out, "check failed: pending") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, _, _ = cli.invoke(t, "", "--fail-on", "invalid-frame", testdata("demo-session.jsonl"))
	if code != 0 {
		t.Errorf("--fail-on invalid-frame on a capture without invalid frames: exit %d", code)
	}
}

// TestFailOnAllAndDisabledRules: all gates every signal; a disabled rule
// may be covered by a signal or by all in --fail-on, not named in it.
func TestFailOnAllAndDisabledRules(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	demo := testdata("demo-session.jsonl") // a tool error and a pending ping
	// all gates drift too, and a baseline only recorded in this run fails
	// it (§6): the baseline rule is off here, which all may cover
	code, out, _ := cli.invoke(t, "", "--fail-on", "all", "--disable", "baseline", demo)
	if code != 1 || !strings.Contains(out, "check failed: error,pending") || strings.Count(out, ": ✗ ") != 2 {
		t.Errorf("--fail-on all: exit %d\n%s", code, out)
	}
	code, out, _ = cli.invoke(t, "", "--fail-on", "all", "--disable", "baseline", "--disable", "pending-request", "--disable", "tool-error", demo)
	if code != 0 || strings.Contains(out, "(pending-request)") {
		t.Errorf("--fail-on all with the findings' rules disabled: exit %d\n%s", code, out)
	}
	code, out, _ = cli.invoke(t, "", "--fail-on", "pending", "--disable", "pending-request", demo)
	if code != 0 || strings.Contains(out, "(pending-request)") {
		t.Errorf("--fail-on pending with pending-request disabled: exit %d\n%s", code, out)
	}
	code, out, _ = cli.invoke(t, "", "--fail-on", "all", "--disable", "baseline", testdata("clean-stdio.jsonl"))
	if code != 0 {
		t.Errorf("--fail-on all on a clean capture: exit %d\n%s", code, out)
	}
}

// TestPanickingRuleBecomesInternalError: one broken rule is reported, the
// others still run, and every format keeps the exit code.
func TestPanickingRuleBecomesInternalError(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	cli.catalogue = func() []*checks.Rule {
		broken := &checks.Rule{ID: "broken-rule", Signal: checks.SignalMismatch,
			Doc: checks.Doc{Summary: "panics", Why: "Test only.", Fix: "None.", Bad: "-", Good: "-", Since: "0.0.0"},
			New: checks.EachFrame(func(p *checks.Pass, f *session.Frame) {
				if f.Msg.Method == "tools/list" {
					panic("index out of range")
				}
			})}
		return append(checks.All(), broken)
	}
	for _, format := range report.Formats() {
		code, out, errs := cli.invoke(t, "", "--format", format, testdata("clean-stdio.jsonl"))
		if format == "sarif" {
			sariftest.Validate(t, []byte(out))
		}
		if code != 1 || errs != "" {
			t.Errorf("%s: exit %d, stderr %q; want 1 and no stderr", format, code, errs)
		}
		if !strings.Contains(out, "broken-rule") {
			t.Errorf("%s: output does not name the broken rule", format)
		}
	}
	_, out, _ := cli.invoke(t, "", testdata("clean-stdio.jsonl"))
	if !strings.Contains(out, ": ✗ error rule broken-rule failed: index out of range") || !strings.Contains(out, "(internal-error)") {
		t.Errorf("text output:\n%s", out)
	}
	code, out, _ := cli.invoke(t, "", "--disable", "internal-error", testdata("clean-stdio.jsonl"))
	if code != 0 || strings.Contains(out, "internal-error") {
		t.Errorf("--disable internal-error: exit %d\n%s", code, out)
	}
}

func TestExitMatrixForEveryFormat(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	for _, format := range report.Formats() {
		for file, want := range map[string]int{"clean-stdio.jsonl": 0, "demo-session.jsonl": 1, "stdout-pollution.jsonl": 1} {
			code, out, errs := cli.invoke(t, "", "--format", format, testdata(file))
			if format == "sarif" {
				sariftest.Validate(t, []byte(out))
			}
			quietFormat := format == "github" && want == 0 // no annotations for a clean run
			if code != want || errs != "" || (out == "" && !quietFormat) {
				t.Errorf("--format %s %s: exit %d (want %d), stderr %q, %d bytes out", format, file, code, want, errs, len(out))
			}
		}
	}
}

func TestRulesExplainVersion(t *testing.T) {
	t.Parallel()
	code, out, _ := invoke(t, "", "rules")
	for _, r := range checks.All() {
		if !strings.Contains(out, r.ID) {
			t.Errorf("rules lacks %s", r.ID)
		}
	}
	// each row shows signal, severity, revisions and whether it fails the default gate
	for _, row := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^RULE\s+SIGNAL\s+SEVERITY\s+REVISIONS\s+FAILS DEFAULT GATE\s+SUMMARY$`),
		regexp.MustCompile(`(?m)^lifecycle\s+warn\s+error\s+2025-11-25 and earlier\s+yes\s+The initialize handshake`),
		regexp.MustCompile(`(?m)^deprecated-feature\s+deprecated\s+note\s+all\s+no\s+Use of Roots`),
	} {
		if !row.MatchString(out) {
			t.Errorf("rules: no line matching %s\n%s", row, out)
		}
	}
	if code != 0 {
		t.Errorf("rules exit %d", code)
	}
	code, out, _ = invoke(t, "", "explain", "pending-request")
	if code != 0 || !strings.Contains(out, "signal:    pending (fails the default gate: no)") || !strings.Contains(out, "Bad:") {
		t.Errorf("explain: exit %d\n%s", code, out)
	}
	code, out, _ = invoke(t, "", "rules", "--format", "json")
	if code != 0 || !strings.HasPrefix(out, "[") || !strings.Contains(out, `"id": "jsonrpc-error"`) {
		t.Errorf("rules --format json: exit %d\n%s", code, out)
	}
	code, out, _ = invoke(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "mcpcheck ") {
		t.Errorf("version: %d %q", code, out)
	}
	code, out, _ = invoke(t, "", "--help")
	if code != 0 || !strings.Contains(out, "--fail-on") {
		t.Errorf("--help: %d %q", code, out)
	}
}

// The text catalogue keeps its columns aligned however long a rule id is
// (extension-negotiation is longer than the others).
func TestRulesTextColumnsAlign(t *testing.T) {
	t.Parallel()
	_, out, _ := invoke(t, "", "rules")
	col := -1
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		id, _, _ := strings.Cut(line, " ")
		signal := len(id) + len(line[len(id):]) - len(strings.TrimLeft(line[len(id):], " "))
		if col < 0 {
			col = signal
		}
		if signal != col {
			t.Errorf("the signal of %s starts at column %d, the first rule's at %d", id, signal, col)
		}
	}
}

// Done when: two --output paths that are one file — through a link, a
// dangling link, a linked directory, a hard link, or relative and absolute
// spellings — are a usage error naming both, before anything is read or
// written; a dangling link as an output keeps pointing at the report.
func TestOutputsThatAreOneFile(t *testing.T) {
	capture, _ := filepath.Abs(testdata("clean-stdio.jsonl"))
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("real.json", []byte("old"), 0o644)
	os.Symlink("real.json", "link.json")
	os.Symlink("not-yet.json", "dangling.json")
	os.Mkdir("sub", 0o755)
	os.Symlink("sub", "subdir")
	os.Link("real.json", "hard.json")
	for _, pair := range [][2]string{
		{"real.json", "link.json"},
		{"link.json", filepath.Join(dir, "real.json")},
		{"dangling.json", "not-yet.json"},
		{"sub/r.json", "subdir/r.json"},
		{"./sub/../real.json", "real.json"},
		{"hard.json", "real.json"},
	} {
		code, out, errs := invoke(t, "", "--output", "json="+pair[0], "--output", "sarif="+pair[1], capture)
		want := "--output " + pair[0] + " and --output " + pair[1] + " are the same file"
		if code != 2 || out != "" || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q (want %q)", pair, code, errs, want)
		}
	}
	if data, _ := os.ReadFile("real.json"); string(data) != "old" {
		t.Errorf("a refused run wrote %q", data)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 6 {
		t.Errorf("a refused run left files: %v", entries)
	}
	// a device takes several reports, one after the other
	if code, _, errs := invoke(t, "", "--output", "json=/dev/null", "--output", "sarif=/dev/../dev/null", capture); code != 0 {
		t.Errorf("two outputs to /dev/null: exit %d, %s", code, errs)
	}
	// a dangling link: its target receives the report, the link stays
	if code, _, errs := invoke(t, "", "--output", "json=dangling.json", capture); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if info, err := os.Lstat("dangling.json"); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the dangling link was replaced by a file")
	}
	if data, _ := os.ReadFile("not-yet.json"); !strings.Contains(string(data), `"version": 1`) {
		t.Errorf("the link's target did not get the report: %.40q", data)
	}
}

// Done when: the temporary file of an --output that a killed run left
// (kill -9 runs no cleanup) is gone after the next run writing that output,
// once stale; a recent one, maybe another run's at work, stays.
func TestStaleOutputTemporaryIsRemovedByTheNextRun(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	left := filepath.Join(dir, ".report.json.2718281828.tmp")
	recent := filepath.Join(dir, ".report.json.3141592653.tmp")
	os.WriteFile(left, []byte(`{"version": 1, "pass`), 0o644)
	os.WriteFile(recent, []byte(`{"version": 1, "pass`), 0o644)
	then := time.Now().Add(-time.Hour)
	os.Chtimes(left, then, then)
	if code, _, errs := invoke(t, "", "--output", "json="+report, testdata("clean-stdio.jsonl")); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(left); err == nil {
		t.Error("the stale temporary file is still there")
	}
	if _, err := os.Stat(recent); err != nil {
		t.Error("a recent temporary file was removed")
	}
}
