package action

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	// Linked in for go test's cache only (see cacheInputs).
	_ "github.com/mcpcheck/mcpcheck/checks"
	_ "github.com/mcpcheck/mcpcheck/report"
)

// mcpcheckBin is mcpcheck built once for these tests, as the action's build
// step builds it.
var mcpcheckBin string

func TestMain(m *testing.M) {
	os.Exit(func() int {
		if _, err := exec.LookPath("bash"); err != nil {
			fmt.Fprintln(os.Stderr, "the action's script needs bash:", err)
			return 1
		}
		dir, err := os.MkdirTemp("", "mcpcheck-action-test")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		mcpcheckBin = filepath.Join(dir, "mcpcheck")
		build := exec.Command("go", "build", "-o", mcpcheckBin, "./cmd/mcpcheck")
		build.Dir = ".."
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building mcpcheck: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}())
}

var script, _ = filepath.Abs("mcpcheck-action.sh")

// cacheInputs reads what these tests run but do not import: the script
// (bash runs it) and the command's sources (the binary is built by go
// build). go test caches a result until a file the test read changes, so
// a change to either must not reuse an old result. The packages the
// command is built from are imported below for the same reason.
func cacheInputs(t *testing.T) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "cmd", "mcpcheck", "*.go"))
	for _, f := range append(files, script, filepath.Join("..", "go.mod"), filepath.Join("..", "go.sum")) {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
}

// step is one run of the script as a step of the action runs it.
type step struct {
	code           int
	stdout, stderr string
	outputs        map[string]string
	summary        string
}

// workspace is a checked-out repository with the project's captures in
// testdata/, as a workflow sees it.
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"demo-session.jsonl", "clean-stdio.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "testdata", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// runStep runs `mcpcheck-action.sh cmd` in workspace ws with only the
// given environment (and PATH), a fresh GITHUB_OUTPUT and
// GITHUB_STEP_SUMMARY, and reads back what the step left.
func runStep(t *testing.T, ws, cmd string, env map[string]string) step {
	t.Helper()
	cacheInputs(t)
	files := t.TempDir()
	out, summary := filepath.Join(files, "output"), filepath.Join(files, "summary.md")
	full := map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": files,
		"GITHUB_OUTPUT": out, "GITHUB_STEP_SUMMARY": summary, "GITHUB_WORKSPACE": ws,
		"RUNNER_TEMP": t.TempDir(),
	}
	for k, v := range env {
		full[k] = v
	}
	c := exec.Command("bash", script, cmd)
	c.Dir = ws
	for k, v := range full {
		c.Env = append(c.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	s := step{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		s.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	s.outputs = parseOutputs(t, string(data))
	sum, _ := os.ReadFile(summary)
	s.summary = string(sum)
	return s
}

// parseOutputs reads GITHUB_OUTPUT as the runner does: NAME=VALUE lines and
// NAME<<DELIMITER blocks; a later value of a name replaces an earlier one.
func parseOutputs(t *testing.T, data string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(data, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		if name, delim, ok := strings.Cut(line, "<<"); ok {
			var value []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				value = append(value, lines[i])
			}
			if i == len(lines) {
				t.Fatalf("GITHUB_OUTPUT: %s has no closing %s:\n%s", name, delim, data)
			}
			out[name] = strings.Join(value, "\n")
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT: line %q is neither form", line)
		}
		out[name] = value
	}
	return out
}

// action is action.yml, read as text.
func action(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// stepIf is the `if:` condition of the action step that uses uses.
func stepIf(t *testing.T, uses string) string {
	t.Helper()
	for _, block := range strings.Split(action(t), "\n    - ") {
		if strings.Contains(block, "uses: "+uses+"@") {
			m := regexp.MustCompile(`(?m)^(?:if|      if): (.+)$`).FindStringSubmatch(block)
			if m == nil {
				t.Fatalf("the %s step has no if:", uses)
			}
			return m[1]
		}
	}
	t.Fatalf("action.yml has no %s step", uses)
	return ""
}

// evalIf evaluates the one form of condition the action uses,
// steps.run.outputs.NAME == 'VALUE', as the runner would.
func evalIf(t *testing.T, cond string, outputs map[string]string) bool {
	t.Helper()
	m := regexp.MustCompile(`^(?:\$\{\{ )?steps\.run\.outputs\.([a-z-]+) (==|!=) '([^']*)'(?: \}\})?$`).FindStringSubmatch(cond)
	if m == nil {
		t.Fatalf("condition %q is not of the form this test evaluates", cond)
	}
	return (outputs[m[1]] == m[3]) == (m[2] == "==")
}

// decide runs the last step with the run step's exit code.
func decide(t *testing.T, exitCode, failOnFindings string) step {
	t.Helper()
	return runStep(t, t.TempDir(), "decide", map[string]string{"EXIT_CODE": exitCode, "INPUT_FAIL_ON_FINDINGS": failOnFindings})
}

func TestRunPassed(t *testing.T) {
	ws := workspace(t)
	s := runStep(t, ws, "run", map[string]string{"MCPCHECK_BIN": mcpcheckBin, "INPUT_SESSION": "testdata/clean-stdio.jsonl", "INPUT_FAIL_ON": "error,invalid,warn", "INPUT_UPLOAD_SARIF": "true"})
	if s.code != 0 {
		t.Fatalf("the step failed: %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	want := map[string]string{"outcome": "passed", "exit-code": "0", "upload": "true", "sarif": s.outputs["sarif"], "upload-required": "true"}
	checkOutputs(t, s, reported(t, s, want))
	checkSARIF(t, s.outputs["sarif"], 0)
	// The text report, with workflow commands stopped around it.
	m := regexp.MustCompile(`(?s)::group::mcpcheck report\n::stop-commands::(mcpcheck-\d+)\n(.*)\n::(mcpcheck-\d+)::\n::endgroup::\n`).FindStringSubmatch(s.stdout)
	if m == nil || m[1] != m[3] || !strings.HasSuffix(m[2], "; check passed") {
		t.Errorf("the text report is not in the log between stop-commands:\n%s", s.stdout)
	}
	if !strings.Contains(s.summary, "**Check passed**") {
		t.Errorf("summary:\n%s", s.summary)
	}
	if !evalIf(t, stepIf(t, "github/codeql-action/upload-sarif"), s.outputs) {
		t.Error("the upload step would not run")
	}
	if d := decide(t, s.outputs["exit-code"], "true"); d.code != 0 {
		t.Errorf("decide failed a passing run: %s", d.stderr)
	}
}

func TestRunFindings(t *testing.T) {
	ws := workspace(t)
	junit := filepath.Join(t.TempDir(), "reports", "mcpcheck.xml")
	if err := os.MkdirAll(filepath.Dir(junit), 0o755); err != nil {
		t.Fatal(err)
	}
	s := runStep(t, ws, "run", map[string]string{
		"MCPCHECK_BIN": mcpcheckBin, "INPUT_SESSION": "testdata/demo-session.jsonl", "INPUT_FAIL_ON": "error,invalid,warn",
		"INPUT_UPLOAD_SARIF": "true", "INPUT_JUNIT": junit, "INPUT_CATEGORY": "notes",
	})
	if s.code != 0 {
		t.Fatalf("the step itself failed (it must leave that to the last step): %d\n%s", s.code, s.stderr)
	}
	checkOutputs(t, s, reported(t, s, map[string]string{"outcome": "findings", "exit-code": "1", "upload": "true", "sarif": s.outputs["sarif"], "junit": junit, "upload-required": "true"}))
	if s.outputs["count-error"] != "1" || s.outputs["count-pending"] != "1" {
		t.Errorf("counts: error %s, pending %s; want the demo's 1 and 1", s.outputs["count-error"], s.outputs["count-pending"])
	}
	log := checkSARIF(t, s.outputs["sarif"], 1)
	if id := log.Runs[0].AutomationDetails.ID; id != "mcpcheck/notes/" {
		t.Errorf("category: automationDetails.id %q", id)
	}
	if !strings.Contains(s.stdout, "::error file=testdata/demo-session.jsonl,line=13,title=tool-error::") {
		t.Errorf("no annotation at the repository-relative path:\n%s", s.stdout)
	}
	if !strings.Contains(s.stdout, "testdata/demo-session.jsonl:13: ✗ error ") {
		t.Errorf("the text report is not in the log:\n%s", s.stdout)
	}
	if !strings.Contains(s.summary, "```mermaid\nsequenceDiagram\n") || !strings.Contains(s.summary, "**Check failed**") {
		t.Errorf("summary:\n%s", s.summary)
	}
	if data, err := os.ReadFile(junit); err != nil || !bytes.Contains(data, []byte("<testsuites")) {
		t.Errorf("junit: %v", err)
	}
	if !evalIf(t, stepIf(t, "github/codeql-action/upload-sarif"), s.outputs) {
		t.Error("the upload step would not run")
	}
	if d := decide(t, s.outputs["exit-code"], "true"); d.code == 0 || !strings.Contains(d.stderr, "::error") {
		t.Errorf("decide let findings pass with fail-on-findings true: %d %s", d.code, d.stderr)
	}
	if d := decide(t, s.outputs["exit-code"], "false"); d.code != 0 || !strings.Contains(d.stdout, "::warning") {
		t.Errorf("decide failed findings with fail-on-findings false: %d %s", d.code, d.stderr)
	}

	// Without upload, the report is still there for later steps.
	s = runStep(t, ws, "run", map[string]string{"MCPCHECK_BIN": mcpcheckBin, "INPUT_SESSION": "testdata/demo-session.jsonl", "INPUT_UPLOAD_SARIF": "false"})
	checkOutputs(t, s, reported(t, s, map[string]string{"outcome": "findings", "exit-code": "1", "upload": "false", "sarif": s.outputs["sarif"]}))
	if s.outputs["sarif"] == "" || evalIf(t, stepIf(t, "github/codeql-action/upload-sarif"), s.outputs) {
		t.Errorf("upload-sarif false: sarif %q, upload step runs %v", s.outputs["sarif"], evalIf(t, stepIf(t, "github/codeql-action/upload-sarif"), s.outputs))
	}
}

// Exit 2, whether the script or mcpcheck found nothing to check: outcome
// error, no report, no upload, and the job fails even with
// fail-on-findings false.
func TestRunError(t *testing.T) {
	ws := workspace(t)
	for name, c := range map[string]struct {
		env    map[string]string
		stderr string
	}{
		"glob matching nothing": {map[string]string{"INPUT_SESSION": "testdata/*.nothing"}, "matches no file"},
		"empty session":         {map[string]string{"INPUT_SESSION": " \n\t\n"}, "session is empty"},
		"hostile glob":          {map[string]string{"INPUT_SESSION": "$(touch pwned-glob)*.jsonl\n`touch pwned-glob2`?"}, "matches no file"},
		"unknown flag":          {map[string]string{"INPUT_SESSION": "testdata/demo-session.jsonl", "INPUT_ARGS": "--no-such-flag"}, "unknown flag: --no-such-flag"},
		"missing file":          {map[string]string{"INPUT_SESSION": "testdata/gone.jsonl"}, "no such file"},
		"unbalanced quote":      {map[string]string{"INPUT_SESSION": "testdata/demo-session.jsonl", "INPUT_ARGS": `--expect-tool "read`}, "unbalanced quotes"},
		"bad boolean":           {map[string]string{"INPUT_SESSION": "testdata/demo-session.jsonl", "INPUT_UPLOAD_SARIF": "yes"}, "upload-sarif is yes"},
		"bad sarif-notes":       {map[string]string{"INPUT_SESSION": "testdata/demo-session.jsonl", "INPUT_SARIF_NOTES": "some"}, "sarif-notes is some"},
	} {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{"MCPCHECK_BIN": mcpcheckBin, "INPUT_UPLOAD_SARIF": "true", "INPUT_FAIL_ON_FINDINGS": "false"}
			for k, v := range c.env {
				env[k] = v
			}
			s := runStep(t, ws, "run", env)
			if s.code != 0 {
				t.Fatalf("the step itself failed: %d\n%s", s.code, s.stderr)
			}
			checkOutputs(t, s, map[string]string{"outcome": "error", "exit-code": "2", "upload": "false", "upload-required": "false"})
			if !strings.Contains(s.stderr, c.stderr) {
				t.Errorf("stderr %q lacks %q", s.stderr, c.stderr)
			}
			if evalIf(t, stepIf(t, "github/codeql-action/upload-sarif"), s.outputs) {
				t.Error("the upload step would run on exit 2")
			}
			if d := decide(t, s.outputs["exit-code"], "false"); d.code == 0 {
				t.Error("the job passes on exit 2 with fail-on-findings false")
			}
			if d := decide(t, s.outputs["exit-code"], "true"); d.code == 0 {
				t.Error("the job passes on exit 2")
			}
			if matches, _ := filepath.Glob(filepath.Join(ws, "pwned-*")); len(matches) > 0 {
				t.Errorf("an input ran a command: %v", matches)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		code, failOnFindings string
		fails                bool
	}{
		{"0", "true", false}, {"0", "false", false},
		{"1", "true", true}, {"1", "false", false}, {"1", "FALSE", false},
		{"2", "true", true}, {"2", "false", true},
		{"", "false", true}, {"137", "false", true},
		{"0", "maybe", true},
	} {
		d := decide(t, c.code, c.failOnFindings)
		if (d.code != 0) != c.fails {
			t.Errorf("exit code %q, fail-on-findings %q: step exit %d, want failing %v\n%s%s", c.code, c.failOnFindings, d.code, c.fails, d.stdout, d.stderr)
		}
	}
}

// Paths with spaces, globs over them, and a glob with a ** in it.
func TestRunSessionPathsAndGlobs(t *testing.T) {
	ws := workspace(t)
	demo, _ := os.ReadFile(filepath.Join(ws, "testdata", "demo-session.jsonl"))
	for _, p := range []string{"my captures/a b.jsonl", "my captures/c.jsonl", "deep/x/y/z.jsonl", "one [1].jsonl"} {
		full := filepath.Join(ws, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, demo, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := runStep(t, ws, "run", map[string]string{
		"MCPCHECK_BIN":  mcpcheckBin,
		"INPUT_SESSION": "  my captures/*.jsonl  \r\n\ndeep/**/*.jsonl\none [1].jsonl\ntestdata/clean-stdio.jsonl\n",
	})
	checkOutputs(t, s, reported(t, s, map[string]string{"outcome": "findings", "exit-code": "1", "upload": "true", "sarif": s.outputs["sarif"]}))
	for _, p := range []string{"my captures/a b.jsonl:13:", "my captures/c.jsonl:13:", "one [1].jsonl:13:", "session notes-clean-1:"} {
		if !strings.Contains(s.stdout, p) {
			t.Errorf("%s was not checked:\n%s", p, s.stdout)
		}
	}
	if runtime.GOOS != "darwin" && !strings.Contains(s.stdout, "deep/x/y/z.jsonl:") { // bash 3.2 has no **
		t.Errorf("** did not reach deep/x/y/z.jsonl:\n%s", s.stdout)
	}
}

// fakeMcpcheck records its arguments, writes the SARIF report it is asked
// for and exits with $FAKE_EXIT: what the script passes is seen exactly.
func fakeMcpcheck(t *testing.T) (bin, argv string) {
	t.Helper()
	dir := t.TempDir()
	bin, argv = filepath.Join(dir, "mcpcheck"), filepath.Join(dir, "argv")
	src := `#!/usr/bin/env bash
printf '%s\0' "$@" > "$FAKE_ARGV"
for a in "$@"; do
  case $a in sarif=*) echo '{}' > "${a#sarif=}" ;; esac
done
exit "${FAKE_EXIT:-0}"
`
	if err := os.WriteFile(bin, []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, argv
}

// Hostile input values reach mcpcheck as the very strings given, one
// argument each, and nothing in them runs.
func TestRunHostileInputs(t *testing.T) {
	ws := t.TempDir()
	bin, argv := fakeMcpcheck(t)
	junit := filepath.Join(ws, "out dir", "$(touch pwned-junit).xml")
	runnerTemp := filepath.Join(t.TempDir(), "tmp\nupload<<x\ntrue\nx")
	if err := os.MkdirAll(runnerTemp, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"MCPCHECK_BIN": bin, "FAKE_ARGV": argv, "FAKE_EXIT": "1", "RUNNER_TEMP": runnerTemp,
		"INPUT_SESSION":          "$(touch pwned-session)\n'quoted' \"double\" file.jsonl\n  spaced name.jsonl  \n`touch pwned-backtick`\n-leading-dash.jsonl\n${HOME}.jsonl",
		"INPUT_ARGS":             `--expect-tool "read note" --forbid-tool 'a b' $(touch pwned-args) ; rm -rf x "" '$HOME'`,
		"INPUT_FAIL_ON":          `error"; touch pwned-failon; "`,
		"INPUT_CATEGORY":         "$(id)\nupload=true",
		"INPUT_JUNIT":            junit,
		"INPUT_BASELINE":         "base line/`id`",
		"INPUT_UPLOAD_SARIF":     "true",
		"INPUT_FAIL_ON_FINDINGS": "true",
	}
	s := runStep(t, ws, "run", env)
	if s.code != 0 {
		t.Fatalf("step failed: %d\n%s", s.code, s.stderr)
	}
	data, err := os.ReadFile(argv)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	dir := filepath.Dir(s.outputs["sarif"])
	want := []string{
		"check", "--format", "github", "--output", "text=" + filepath.Join(dir, "mcpcheck.txt"), "--output", "sarif=" + filepath.Join(dir, "mcpcheck.sarif"),
		"--output", "json=" + filepath.Join(dir, "mcpcheck.json"),
		"--fail-on", `error"; touch pwned-failon; "`, "--sarif-gated-only",
		"--output", "junit=" + junit,
		"--baseline", "base line/`id`",
		"--category", "$(id)\nupload=true",
		"--expect-tool", "read note", "--forbid-tool", "a b", "$(touch", "pwned-args)", ";", "rm", "-rf", "x", "", "$HOME",
		"--",
		"$(touch pwned-session)", `'quoted' "double" file.jsonl`, "spaced name.jsonl", "`touch pwned-backtick`", "-leading-dash.jsonl", "${HOME}.jsonl",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mcpcheck got\n%q\nwant\n%q", got, want)
	}
	if !strings.HasPrefix(dir, runnerTemp+string(filepath.Separator)) {
		t.Errorf("report directory %q is not in RUNNER_TEMP", dir)
	}
	// A path with a line feed in it does not add outputs of its own.
	checkOutputs(t, s, map[string]string{"outcome": "findings", "exit-code": "1", "upload": "true", "upload-required": "true", "sarif": filepath.Join(dir, "mcpcheck.sarif"), "junit": junit})
	env["FAKE_EXIT"] = "2"
	s = runStep(t, ws, "run", env)
	checkOutputs(t, s, map[string]string{"outcome": "error", "exit-code": "2", "upload": "false", "upload-required": "false"})

	for _, d := range []string{ws, filepath.Dir(junit), os.TempDir()} {
		matches, _ := filepath.Glob(filepath.Join(d, "pwned-*"))
		if len(matches) > 0 {
			t.Errorf("an input ran a command: %v", matches)
		}
	}
}

func TestGoVersion(t *testing.T) {
	s := runStep(t, t.TempDir(), "go-version", map[string]string{"INPUT_GO_VERSION": "1.25.4"})
	if s.code != 0 || s.outputs["go-version"] != "1.25.4" {
		t.Errorf("input: %d %v %s", s.code, s.outputs, s.stderr)
	}
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	want := string(m[1])
	if tc := regexp.MustCompile(`(?m)^toolchain go(\S+)$`).FindSubmatch(mod); tc != nil {
		want = string(tc[1])
	}
	s = runStep(t, t.TempDir(), "go-version", map[string]string{"INPUT_GO_VERSION": ""})
	if s.code != 0 || s.outputs["go-version"] != want {
		t.Errorf("from go.mod: %d %v, want %s; %s", s.code, s.outputs, want, s.stderr)
	}
}

// action.yml: inputs reach scripts through env only, third-party actions
// are pinned by commit, every input the contract names exists, and the
// steps read the outputs the tests above check.
func TestActionYAML(t *testing.T) {
	a := action(t)
	for _, line := range strings.Split(a, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "run:") && strings.Contains(trimmed, "${{") {
			t.Errorf("a script interpolates an expression: %s", trimmed)
		}
		if u, ok := strings.CutPrefix(trimmed, "uses: "); ok && !strings.HasPrefix(u, "./") {
			if !regexp.MustCompile(`^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40} # v\d`).MatchString(u) {
				t.Errorf("not pinned to a full commit SHA (with its version in a comment): %s", u)
			}
		}
	}
	for _, in := range []string{"session", "fail-on", "baseline", "args", "upload-sarif", "sarif-notes", "html-artifact", "fail-on-findings", "junit", "category", "new-from", "go-version"} {
		if !strings.Contains(a, "\n  "+in+":\n") {
			t.Errorf("input %s is missing", in)
		}
		if !regexp.MustCompile(`(?m)^        INPUT_[A-Z_]+: \$\{\{ inputs\.` + regexp.QuoteMeta(in) + ` \}\}$`).MatchString(a) {
			t.Errorf("input %s does not reach the scripts through env", in)
		}
	}
	outs := []string{"outcome", "exit-code", "sarif", "json", "junit", "html", "new-findings"}
	for _, sig := range []string{"error", "invalid", "warn", "mismatch", "pending", "late-result", "drift", "deprecated", "incomplete", "schema", "contract", "security", "suppression", "flaky", "suppressed"} {
		outs = append(outs, "count-"+sig)
	}
	for _, out := range outs {
		if !strings.Contains(a, "\n  "+out+":\n") || !strings.Contains(a, "value: ${{ steps.run.outputs."+out+" }}") {
			t.Errorf("output %s is missing or not the run step's", out)
		}
	}
	if cond := stepIf(t, "github/codeql-action/upload-sarif"); cond != "steps.run.outputs.upload == 'true'" {
		t.Errorf("upload condition %q", cond)
	}
	if !strings.Contains(a, "EXIT_CODE: ${{ steps.run.outputs.exit-code }}") || !strings.HasSuffix(strings.TrimSpace(a), `mcpcheck-action.sh" decide'`) {
		t.Error("the last step does not decide from the run step's exit code")
	}
	// The job's Go stays its own: no setup action puts another on PATH.
	if strings.Contains(a, "actions/setup-go") {
		t.Error("the action sets up a Go of its own, which changes the job's PATH")
	}
	if !strings.Contains(a, "using: composite") {
		t.Error("not a composite action")
	}
}

// sarifLog is what these tests read of a report.
type sarifLog struct {
	Runs []struct {
		AutomationDetails struct{ ID string } `json:"automationDetails"`
		Results           []json.RawMessage   `json:"results"`
	} `json:"runs"`
}

func checkSARIF(t *testing.T, path string, minResults int) sarifLog {
	t.Helper()
	var log sarifLog
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &log)
	}
	if err != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) < minResults {
		t.Fatalf("SARIF %s: %v, %d runs", path, err, len(log.Runs))
	}
	return log
}

// reported adds to want the outputs of a run that wrote its reports: the
// JSON report's path and, read from that report, the count of every
// signal summed over its sessions and of suppressed findings; and
// upload-required as upload-sarif true makes it.
func reported(t *testing.T, s step, want map[string]string) map[string]string {
	t.Helper()
	path := s.outputs["json"]
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the JSON report %q: %v", path, err)
	}
	var rep struct {
		Sessions []struct {
			Counts     map[string]int `json:"counts"`
			Suppressed int            `json:"suppressed"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Sessions) == 0 {
		t.Fatalf("the JSON report: %v", err)
	}
	want["json"] = path
	sums := map[string]int{"suppressed": 0}
	for _, sess := range rep.Sessions {
		for k, v := range sess.Counts {
			sums[k] += v
		}
		sums["suppressed"] += sess.Suppressed
	}
	if len(sums) < 14 {
		t.Fatalf("the JSON report counts %d signals: %v", len(sums)-1, sums)
	}
	for k, v := range sums {
		want["count-"+k] = fmt.Sprint(v)
	}
	if _, ok := want["upload-required"]; !ok {
		want["upload-required"] = "false"
	}
	return want
}

func checkOutputs(t *testing.T, s step, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for k, v := range s.outputs {
		got[k] = v
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("output %s is not set", k)
		}
	}
	for k, v := range got {
		if w, ok := want[k]; !ok || w != v {
			t.Errorf("output %s = %q, want %q (set: %v)", k, v, w, ok)
		}
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", s.stdout, s.stderr)
	}
}

// The pre-commit hook: pre-commit builds the module and runs its mcpcheck
// on the staged captures its files pattern selects. The test runs the
// hook's entry as pre-commit would, on the files of a repository its
// pattern selects: captures of every format are checked, a JSONL file
// that is no capture is skipped, and the verdict is the captures'.
func TestPreCommitHook(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	hook := string(data)
	for _, want := range []string{"\n- id: mcpcheck\n", "\n  language: golang\n", "\n  require_serial: true\n"} {
		if !strings.Contains(hook, want) {
			t.Errorf(".pre-commit-hooks.yaml lacks %q", strings.TrimSpace(want))
		}
	}
	entry := regexp.MustCompile(`(?m)^  entry: (.+)$`).FindStringSubmatch(hook)
	m := regexp.MustCompile(`(?m)^  files: (.+)$`).FindStringSubmatch(hook)
	if m == nil || entry == nil {
		t.Fatal("no files pattern or no entry")
	}
	files := regexp.MustCompile(m[1]) // pre-commit's Python regexp; this one means the same in Go
	for name, want := range map[string]bool{
		"captures/a.jsonl": true, "b.ndjson": true, "c.jsonl.gz": true, "d.har": true, "e.har.gz": true,
		"logs/mcp-server-notes.log": true, "mcp-server-x.log.gz": true,
		"d.json": false, "e.jsonl.bak": false, "mcp.log": false, "logs/my-mcp-server-x.log": false, "README.md": false,
	} {
		if files.MatchString(name) != want {
			t.Errorf("files pattern %s on %s: %v", m[1], name, !want)
		}
	}

	// A repository as pre-commit sees it: the staged files, of which the
	// hook is given those its pattern selects.
	repo := t.TempDir()
	staged := map[string]string{
		"captures/demo.jsonl":       "demo-session.jsonl",
		"captures/api.har":          "formats/har/streamable-http.har",
		"logs/mcp-server-notes.log": "formats/claude-desktop/mcp-server-notes.log",
		"logs/app.jsonl":            "",
		"README.md":                 "",
	}
	var args []string
	for name, from := range staged {
		body := []byte(`{"level":"info","msg":"an application log, not MCP"}` + "\n")
		if from != "" {
			if body, err = os.ReadFile(filepath.Join("..", "testdata", from)); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		if files.MatchString(name) {
			args = append(args, name)
		}
	}
	sort.Strings(args)
	if len(args) != 4 {
		t.Fatalf("the pattern selects %v, want the four capture names", args)
	}
	words := strings.Fields(entry[1])
	if words[0] != "mcpcheck" {
		t.Fatalf("entry %q does not run mcpcheck", entry[1])
	}
	run := func(args ...string) (int, string) {
		c := exec.Command(mcpcheckBin, args...)
		c.Dir = repo
		c.Env = append(os.Environ(), "MCPCHECK_HOME="+t.TempDir())
		out, err := c.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	code, out := run(append(words[1:], args...)...)
	if !strings.Contains(out, "skipped logs/app.jsonl") {
		t.Errorf("the hook does not note the JSONL log skipped:\n%s", out)
	}
	for _, c := range []string{"captures/demo.jsonl", "captures/api.har", "logs/mcp-server-notes.log"} {
		if !strings.Contains(out, c) {
			t.Errorf("the hook's report does not name %s:\n%s", c, out)
		}
	}
	wantCode, _ := run(append([]string{"check"}, "captures/demo.jsonl", "captures/api.har", "logs/mcp-server-notes.log")...)
	if code != wantCode || code == 2 {
		t.Errorf("the hook exits %d, want %d as for the captures alone:\n%s", code, wantCode, out)
	}
	// Only the log staged: nothing to check, and the commit goes on.
	if code, out := run(append(words[1:], "logs/app.jsonl")...); code != 0 {
		t.Errorf("a commit of no capture: the hook exits %d, want 0:\n%s", code, out)
	}
}

// fakeRelease is a release directory as the release script lays it out:
// mcpcheck_VERSION_OS_ARCH.tar.gz (a .zip on Windows) holding a mcpcheck
// that prints its version, and checksums.txt in sha256sum's format. It
// returns the directory's file:// URL.
func fakeRelease(t *testing.T, version string) (dir, url string) {
	t.Helper()
	dir = t.TempDir()
	stage := t.TempDir()
	bin := "#!/usr/bin/env bash\necho \"mcpcheck v" + version + " (fake release)\"\n"
	if err := os.MkdirAll(filepath.Join(stage, "mcpcheck_"+version), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mcpcheck", "mcpcheck.exe"} {
		if err := os.WriteFile(filepath.Join(stage, "mcpcheck_"+version, name), []byte(bin), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var sums strings.Builder
	for _, plat := range []string{"linux_amd64", "linux_arm64", "darwin_arm64", "windows_amd64"} {
		archive := "mcpcheck_" + version + "_" + plat + ".tar.gz"
		cmd := exec.Command("tar", "-czf", filepath.Join(dir, archive), "-C", stage, "mcpcheck_"+version+"/mcpcheck")
		if strings.HasPrefix(plat, "windows") {
			archive = "mcpcheck_" + version + "_" + plat + ".zip"
			cmd = exec.Command("zip", "-qr", filepath.Join(dir, archive), "mcpcheck_"+version+"/mcpcheck.exe")
			cmd.Dir = stage
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		data, err := os.ReadFile(filepath.Join(dir, archive))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256(data), archive)
	}
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, "file://" + dir
}

// A release tag: plan says release; install downloads the archive for the
// runner, verifies it against checksums.txt, keeps it in the tool cache
// and uses the cached one next time, without the network; a corrupt
// archive or a checksums.txt without its line installs nothing.
func TestInstallRelease(t *testing.T) {
	s := runStep(t, t.TempDir(), "plan", map[string]string{"ACTION_REF": "v1.4.2"})
	checkOutputs(t, s, map[string]string{"mode": "release", "version": "1.4.2"})

	dir, url := fakeRelease(t, "1.4.2")
	for _, c := range []struct{ os, arch, exe string }{{"Linux", "X64", ""}, {"macOS", "ARM64", ""}, {"Windows", "X64", ".exe"}} {
		t.Run(c.os, func(t *testing.T) {
			toolCache := t.TempDir()
			env := map[string]string{"ACTION_REF": "v1.4.2", "MCPCHECK_RELEASE_URL": url, "RUNNER_TOOL_CACHE": toolCache, "RUNNER_OS": c.os, "RUNNER_ARCH": c.arch}
			s := runStep(t, t.TempDir(), "install", env)
			arch := map[string]string{"X64": "amd64", "ARM64": "arm64"}[c.arch]
			bin := filepath.Join(toolCache, "mcpcheck", "1.4.2", arch, "mcpcheck"+c.exe)
			if s.code != 0 || !strings.Contains(s.stdout, "downloaded and verified") || !strings.Contains(s.stdout, "mcpcheck v1.4.2 (fake release)") {
				t.Fatalf("install: %d\n%s%s", s.code, s.stdout, s.stderr)
			}
			checkOutputs(t, s, map[string]string{"bin": bin, "installed": "release"})
			if _, err := os.Stat(filepath.Join(toolCache, "mcpcheck", "1.4.2", arch+".complete")); err != nil {
				t.Errorf("no tool-cache marker: %v", err)
			}
			// Cached: no download, even with the release gone.
			env["MCPCHECK_RELEASE_URL"] = "file:///nonexistent"
			s = runStep(t, t.TempDir(), "install", env)
			if s.code != 0 || !strings.Contains(s.stdout, "from the tool cache") || s.outputs["bin"] != bin {
				t.Errorf("second install: %d %v\n%s%s", s.code, s.outputs, s.stdout, s.stderr)
			}
		})
	}

	// A corrupt archive: the checksum refuses it.
	bad := t.TempDir()
	for _, f := range []string{"checksums.txt", "mcpcheck_1.4.2_linux_amd64.tar.gz"} {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		if strings.HasSuffix(f, ".gz") {
			data = append(data, 0)
		}
		if err := os.WriteFile(filepath.Join(bad, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	toolCache := t.TempDir()
	s = runStep(t, t.TempDir(), "install", map[string]string{"ACTION_REF": "v1.4.2", "MCPCHECK_RELEASE_URL": "file://" + bad, "RUNNER_TOOL_CACHE": toolCache, "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64"})
	if s.code == 0 || !strings.Contains(s.stderr, "checksums.txt says") || s.outputs["bin"] != "" {
		t.Errorf("a corrupt archive: %d %v %s", s.code, s.outputs, s.stderr)
	}
	if entries, _ := os.ReadDir(toolCache); len(entries) != 0 {
		t.Errorf("a corrupt archive reached the tool cache: %v", entries)
	}
	// No line for the archive.
	if err := os.WriteFile(filepath.Join(bad, "checksums.txt"), []byte("0000  mcpcheck_1.4.2_other.tar.gz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s = runStep(t, t.TempDir(), "install", map[string]string{"ACTION_REF": "v1.4.2", "MCPCHECK_RELEASE_URL": "file://" + bad, "RUNNER_TOOL_CACHE": t.TempDir(), "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64"})
	if s.code == 0 || !strings.Contains(s.stderr, "has no line for mcpcheck_1.4.2_linux_amd64.tar.gz") {
		t.Errorf("no checksum line: %d %s", s.code, s.stderr)
	}
	// A release that is not there.
	s = runStep(t, t.TempDir(), "install", map[string]string{"ACTION_REF": "v9.9.9", "MCPCHECK_RELEASE_URL": url, "RUNNER_TOOL_CACHE": t.TempDir(), "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64"})
	if s.code == 0 || !strings.Contains(s.stderr, "downloading") {
		t.Errorf("a missing release: %d %s", s.code, s.stderr)
	}
}

// A commit SHA (or a branch, or uses: ./): plan says source, with caches
// of the action's own keyed on go.sum; install builds mcpcheck with the
// job's Go by absolute path, adds nothing to PATH, and says what to do
// when the runner has no Go.
func TestInstallSource(t *testing.T) {
	sha := strings.Repeat("ab12", 10)
	temp := t.TempDir()
	s := runStep(t, t.TempDir(), "plan", map[string]string{"ACTION_REF": sha, "RUNNER_TEMP": temp, "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64"})
	if s.outputs["mode"] != "source" || s.outputs["gomodcache"] != filepath.Join(temp, "mcpcheck-go", "mod") ||
		s.outputs["gocache"] != filepath.Join(temp, "mcpcheck-go", "build") || !regexp.MustCompile(`^mcpcheck-go-Linux-X64-gomod-[0-9a-f]{16}$`).MatchString(s.outputs["cache-key"]) {
		t.Errorf("plan for a commit: %v %s", s.outputs, s.stderr)
	}
	for _, ref := range []string{"main", "", "v1.2", "v1.2.3.4", "1.2.3"} {
		if s := runStep(t, t.TempDir(), "plan", map[string]string{"ACTION_REF": ref}); s.outputs["mode"] != "source" {
			t.Errorf("ref %q: mode %q, want source", ref, s.outputs["mode"])
		}
	}
	for _, ref := range []string{"v0.3.0", "v1.0.0-rc.1"} {
		if s := runStep(t, t.TempDir(), "plan", map[string]string{"ACTION_REF": ref}); s.outputs["mode"] != "release" {
			t.Errorf("ref %q: mode %q, want release", ref, s.outputs["mode"])
		}
	}

	githubPath := filepath.Join(t.TempDir(), "path")
	// The caches the plan names, here the test's own (warm) ones.
	caches := map[string]string{}
	for _, v := range []string{"GOCACHE", "GOMODCACHE"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatal(err)
		}
		caches[v] = strings.TrimSpace(string(out))
	}
	s = runStep(t, t.TempDir(), "install", map[string]string{"ACTION_REF": sha, "GITHUB_PATH": githubPath,
		"MCPCHECK_GOCACHE": caches["GOCACHE"], "MCPCHECK_GOMODCACHE": caches["GOMODCACHE"]})
	if s.code != 0 || s.outputs["installed"] != "source" {
		t.Fatalf("install from source: %d %v\n%s%s", s.code, s.outputs, s.stdout, s.stderr)
	}
	if out, err := exec.Command(s.outputs["bin"], "version").CombinedOutput(); err != nil {
		t.Errorf("the built mcpcheck: %v %s", err, out)
	}
	if data, err := os.ReadFile(githubPath); err == nil && len(data) > 0 {
		t.Errorf("the build added to the job's PATH: %s", data)
	}

	noGo := t.TempDir()
	for _, tool := range []string{"bash", "env", "mktemp", "dirname", "sed", "head", "printf"} {
		if p, err := exec.LookPath(tool); err == nil {
			os.Symlink(p, filepath.Join(noGo, tool))
		}
	}
	s = runStep(t, t.TempDir(), "install", map[string]string{"ACTION_REF": sha, "PATH": noGo})
	if s.code == 0 || !strings.Contains(s.stderr, "needs Go on the runner") {
		t.Errorf("no Go: %d %s", s.code, s.stderr)
	}
}

// upload-sarif auto: the upload is tried and may fail without failing the
// job (continue-on-error), and a failed one warns with the permissions it
// needs; true makes a failed upload fail the job.
func TestUploadAuto(t *testing.T) {
	ws := workspace(t)
	s := runStep(t, ws, "run", map[string]string{"MCPCHECK_BIN": mcpcheckBin, "INPUT_SESSION": "testdata/demo-session.jsonl", "INPUT_UPLOAD_SARIF": "auto"})
	checkOutputs(t, s, reported(t, s, map[string]string{"outcome": "findings", "exit-code": "1", "upload": "true", "upload-required": "false", "sarif": s.outputs["sarif"]}))
	a := action(t)
	m := regexp.MustCompile(`(?m)^      continue-on-error: (.+)$`).FindStringSubmatch(a)
	if m == nil || !evalIf(t, m[1], s.outputs) {
		t.Errorf("with upload-sarif auto the upload step does not continue on error: %v", m)
	}
	s2 := runStep(t, ws, "run", map[string]string{"MCPCHECK_BIN": mcpcheckBin, "INPUT_SESSION": "testdata/demo-session.jsonl", "INPUT_UPLOAD_SARIF": "true"})
	if evalIf(t, m[1], s2.outputs) {
		t.Error("with upload-sarif true a failed upload would not fail the job")
	}
	if !strings.Contains(a, "    - if: steps.upload.outcome == 'failure'\n      shell: bash\n      run: '\"$GITHUB_ACTION_PATH/action/mcpcheck-action.sh\" upload-failed'") {
		t.Error("no warning step after a failed upload")
	}
	w := runStep(t, t.TempDir(), "upload-failed", nil)
	for _, want := range []string{"::warning", "security-events: write", "actions: read", "contents: read", "upload-sarif: false"} {
		if w.code != 0 || !strings.Contains(w.stdout, want) {
			t.Errorf("the warning lacks %q: %d %s", want, w.code, w.stdout)
		}
	}
}

// Notes stay out of code scanning unless sarif-notes is true.
func TestSARIFNotes(t *testing.T) {
	ws := workspace(t)
	levels := func(notes string) map[string]int {
		s := runStep(t, ws, "run", map[string]string{"MCPCHECK_BIN": mcpcheckBin, "INPUT_SESSION": "testdata/demo-session.jsonl", "INPUT_SARIF_NOTES": notes})
		var log struct {
			Runs []struct {
				Results []struct {
					Level string `json:"level"`
				} `json:"results"`
			} `json:"runs"`
		}
		data, _ := os.ReadFile(s.outputs["sarif"])
		if err := json.Unmarshal(data, &log); err != nil {
			t.Fatalf("sarif-notes %s: %v", notes, err)
		}
		out := map[string]int{}
		for _, r := range log.Runs[0].Results {
			out[r.Level]++
		}
		return out
	}
	if l := levels("false"); l["note"] != 0 || l["error"] != 1 {
		t.Errorf("sarif-notes false: %v; want the gated finding alone", l)
	}
	if l := levels("true"); l["note"] == 0 || l["error"] != 1 {
		t.Errorf("sarif-notes true: %v; want the notes too", l)
	}
}

// html-artifact: the HTML report is written, its path is an output, and
// the upload-artifact step runs with its name.
func TestHTMLArtifact(t *testing.T) {
	ws := workspace(t)
	s := runStep(t, ws, "run", map[string]string{"MCPCHECK_BIN": mcpcheckBin, "INPUT_SESSION": "testdata/demo-session.jsonl", "INPUT_HTML_ARTIFACT": "mcpcheck-report"})
	data, err := os.ReadFile(s.outputs["html"])
	if err != nil || !bytes.Contains(data, []byte("Content-Security-Policy")) || s.outputs["html-artifact"] != "mcpcheck-report" {
		t.Fatalf("html: %v %v", err, s.outputs)
	}
	if !evalIf(t, stepIf(t, "actions/upload-artifact"), s.outputs) {
		t.Error("the artifact step would not run")
	}
	s = runStep(t, ws, "run", map[string]string{"MCPCHECK_BIN": mcpcheckBin, "INPUT_SESSION": "testdata/demo-session.jsonl"})
	if s.outputs["html"] != "" || evalIf(t, stepIf(t, "actions/upload-artifact"), s.outputs) {
		t.Errorf("no html-artifact asked: html %q", s.outputs["html"])
	}
}

// Done when: the baseline input gates drift without fail-on (issue 22): a
// baseline accepted from one capture fails the job on a successor whose
// tool changed, and a fail-on given still overrides.
func TestBaselineInputGatesDrift(t *testing.T) {
	ws := workspace(t)
	base := filepath.Join(ws, ".mcpcheck", "baselines")
	accept := exec.Command(mcpcheckBin, "baseline", "--accept", "--reason", "release 1", "--baseline", base, "testdata/clean-stdio.jsonl")
	accept.Dir = ws
	if out, err := accept.CombinedOutput(); err != nil {
		t.Fatalf("accept: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(ws, "testdata", "clean-stdio.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(data, []byte(`"Full-text search over the notes directory"`), []byte(`"Full-text search; also deletes notes"`), 1)
	if bytes.Equal(changed, data) {
		t.Fatal("the capture no longer holds the description this test changes")
	}
	if err := os.WriteFile(filepath.Join(ws, "testdata", "next.jsonl"), changed, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MCPCHECK_BIN": mcpcheckBin, "INPUT_SESSION": "testdata/next.jsonl", "INPUT_BASELINE": ".mcpcheck/baselines", "INPUT_UPLOAD_SARIF": "false"}
	s := runStep(t, ws, "run", env)
	checkOutputs(t, s, reported(t, s, map[string]string{"outcome": "findings", "exit-code": "1", "upload": "false", "sarif": s.outputs["sarif"], "upload-required": "false"}))
	if !strings.Contains(s.stdout, `review: tool "search_notes" changed since the baseline: `) || !strings.Contains(s.stdout, "check failed: drift") {
		t.Errorf("drift did not fail the gate:\n%s", s.stdout)
	}
	env["INPUT_FAIL_ON"] = "error,invalid,warn"
	s = runStep(t, ws, "run", env)
	checkOutputs(t, s, reported(t, s, map[string]string{"outcome": "passed", "exit-code": "0", "upload": "false", "sarif": s.outputs["sarif"], "upload-required": "false"}))
}

// new-from: the findings an earlier report held are existing and do not
// fail the job; new-findings counts the others, and is unset without it.
func TestNewFrom(t *testing.T) {
	ws := workspace(t)
	earlier := filepath.Join(ws, "main.json")
	cmd := exec.Command(mcpcheckBin, "--format", "json", "--output", "json="+earlier, "testdata/demo-session.jsonl")
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("the earlier report: %v\n%s", err, out)
	}
	base := map[string]string{"MCPCHECK_BIN": mcpcheckBin, "INPUT_SESSION": "testdata/demo-session.jsonl", "INPUT_UPLOAD_SARIF": "false"}
	s := runStep(t, ws, "run", base)
	if s.outputs["exit-code"] != "1" || s.outputs["new-findings"] != "" {
		t.Errorf("without new-from: exit %s, new-findings %q", s.outputs["exit-code"], s.outputs["new-findings"])
	}
	with := maps.Clone(base)
	with["INPUT_NEW_FROM"] = "main.json"
	s = runStep(t, ws, "run", with)
	if s.outputs["exit-code"] != "0" || s.outputs["new-findings"] != "0" {
		t.Errorf("the same capture against its own report: exit %s, new-findings %q\n%s", s.outputs["exit-code"], s.outputs["new-findings"], s.stdout)
	}
	polluted, err := os.ReadFile(filepath.Join("..", "testdata", "stdout-pollution.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "testdata", "stdout-pollution.jsonl"), polluted, 0o644); err != nil {
		t.Fatal(err)
	}
	with["INPUT_SESSION"] = "testdata/stdout-pollution.jsonl\ntestdata/demo-session.jsonl"
	s = runStep(t, ws, "run", with)
	rep, err := os.ReadFile(s.outputs["json"])
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(bytes.Count(rep, []byte(`"existing": false`))); s.outputs["new-findings"] != want || want == "0" {
		t.Errorf("a capture more: new-findings %q, want %s", s.outputs["new-findings"], want)
	}
}
