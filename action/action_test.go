package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
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
	m := regexp.MustCompile(`^steps\.run\.outputs\.([a-z-]+) == '([^']*)'$`).FindStringSubmatch(cond)
	if m == nil {
		t.Fatalf("condition %q is not of the form this test evaluates", cond)
	}
	return outputs[m[1]] == m[2]
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
	want := map[string]string{"outcome": "passed", "exit-code": "0", "upload": "true", "sarif": s.outputs["sarif"]}
	checkOutputs(t, s, want)
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
	checkOutputs(t, s, map[string]string{"outcome": "findings", "exit-code": "1", "upload": "true", "sarif": s.outputs["sarif"]})
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
	checkOutputs(t, s, map[string]string{"outcome": "findings", "exit-code": "1", "upload": "false", "sarif": s.outputs["sarif"]})
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
			checkOutputs(t, s, map[string]string{"outcome": "error", "exit-code": "2", "upload": "false"})
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
	checkOutputs(t, s, map[string]string{"outcome": "findings", "exit-code": "1", "upload": "true", "sarif": s.outputs["sarif"]})
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
		"--fail-on", `error"; touch pwned-failon; "`,
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
	checkOutputs(t, s, map[string]string{"outcome": "findings", "exit-code": "1", "upload": "true", "sarif": filepath.Join(dir, "mcpcheck.sarif")})
	env["FAKE_EXIT"] = "2"
	s = runStep(t, ws, "run", env)
	checkOutputs(t, s, map[string]string{"outcome": "error", "exit-code": "2", "upload": "false"})

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
	for _, in := range []string{"session", "fail-on", "baseline", "args", "upload-sarif", "fail-on-findings", "junit", "category", "go-version"} {
		if !strings.Contains(a, "\n  "+in+":\n") {
			t.Errorf("input %s is missing", in)
		}
		if !regexp.MustCompile(`(?m)^        INPUT_[A-Z_]+: \$\{\{ inputs\.` + regexp.QuoteMeta(in) + ` \}\}$`).MatchString(a) {
			t.Errorf("input %s does not reach the scripts through env", in)
		}
	}
	for _, out := range []string{"outcome", "exit-code", "sarif"} {
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
// on the staged captures its files pattern selects.
func TestPreCommitHook(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	hook := string(data)
	for _, want := range []string{"\n- id: mcpcheck\n", "\n  entry: mcpcheck check\n", "\n  language: golang\n"} {
		if !strings.Contains(hook, want) {
			t.Errorf(".pre-commit-hooks.yaml lacks %q", strings.TrimSpace(want))
		}
	}
	m := regexp.MustCompile(`(?m)^  files: (.+)$`).FindStringSubmatch(hook)
	if m == nil {
		t.Fatal("no files pattern")
	}
	files := regexp.MustCompile(m[1]) // pre-commit's Python regexp; this one means the same in Go
	for name, want := range map[string]bool{"captures/a.jsonl": true, "b.ndjson": true, "c.jsonl.gz": true, "d.json": false, "e.jsonl.bak": false} {
		if files.MatchString(name) != want {
			t.Errorf("files pattern %s on %s: %v", m[1], name, !want)
		}
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
	checkOutputs(t, s, map[string]string{"outcome": "findings", "exit-code": "1", "upload": "false", "sarif": s.outputs["sarif"]})
	if !strings.Contains(s.stdout, `tool "search_notes" changed since the baseline (review)`) || !strings.Contains(s.stdout, "check failed: drift") {
		t.Errorf("drift did not fail the gate:\n%s", s.stdout)
	}
	env["INPUT_FAIL_ON"] = "error,invalid,warn"
	s = runStep(t, ws, "run", env)
	checkOutputs(t, s, map[string]string{"outcome": "passed", "exit-code": "0", "upload": "false", "sarif": s.outputs["sarif"]})
}
