package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/session"
)

// toolsCapture writes an mcpsnoop capture of one session of label that
// lists tools (a JSON array) and calls the first one.
func toolsCapture(t *testing.T, dir, name, label, tools string) string {
	t.Helper()
	var b strings.Builder
	for i, l := range []struct{ dir, raw string }{
		{"c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`},
		{"s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"notes","version":"2"}}}`},
		{"c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"s2c", `{"jsonrpc":"2.0","id":1,"result":{"tools":` + tools + `}}`},
		{"c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_note","arguments":{}}}`},
		{"s2c", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`},
	} {
		b.WriteString(`{"session_id":"s-` + label + `","server_label":"` + label + `","seq":` + string(rune('1'+i)) + `,"ts":"2026-09-01T10:00:0` + string(rune('0'+i)) + `Z","direction":"` + l.dir + `","transport":"stdio","raw":` + l.raw + "}\n")
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	readOnlyTools    = `[{"name":"read_note","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]`
	destructiveTools = `[{"name":"read_note","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true}}]`
)

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Done when: a --baseline directory recorded from one capture gates drift
// on its successor without --fail-on drift.
func TestANamedBaselineGatesDrift(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	root := t.TempDir()
	dir := filepath.Join(root, "baselines")
	before := toolsCapture(t, root, "before.jsonl", "notes", readOnlyTools)
	after := toolsCapture(t, root, "after.jsonl", "notes", destructiveTools)
	if code, out, errs := cli.invoke(t, "", "baseline", "--accept", "--reason", "release 1", "--baseline", dir, before); code != 0 {
		t.Fatalf("accept: exit %d %s\n%s", code, errs, out)
	}
	if code, out, _ := cli.invoke(t, "", "check", "--baseline", dir, before); code != 0 || !strings.Contains(out, "check passed") {
		t.Errorf("the accepted capture: exit %d\n%s", code, out)
	}
	code, out, _ := cli.invoke(t, "", "check", "--baseline", dir, after)
	if code != 1 || !strings.Contains(out, "✗ error breaking: tool \"read_note\" changed since the baseline: ") || !strings.Contains(out, "check failed: drift") {
		t.Errorf("the successor: exit %d\n%s", code, out)
	}
	// --fail-on still overrides
	if code, out, _ := cli.invoke(t, "", "check", "--fail-on", "error", "--baseline", dir, after); code != 0 || !strings.Contains(out, "(tool-drift)") {
		t.Errorf("--fail-on error: exit %d\n%s", code, out)
	}
	// check wrote nothing: the directory holds the accepted file only
	if files := baselineFiles(t, dir); len(files) != 1 {
		t.Errorf("files %v", files)
	}
}

// Done when: a config file changes the gate and the disabled rules; flags
// override it; the text report names it first.
func TestConfigFileSetsTheGateAndDisabledRules(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	root := t.TempDir()
	capture := testdata("demo-session.jsonl") // a tool-error (error) and a pending ping (pending)
	code, out, _ := cli.invoke(t, "", "check", "--no-config", capture)
	if code != 1 || !strings.Contains(out, "check failed: error") {
		t.Fatalf("without a config: exit %d\n%s", code, out)
	}
	cfg := writeFile(t, filepath.Join(root, "c.yml"), "version: 1\nfail-on: [pending]\ndisable: [tool-error]\n")
	code, out, _ = cli.invoke(t, "", "check", "--config", cfg, capture)
	if code != 1 || !strings.HasPrefix(out, "config: "+cfg+"\n") || strings.Contains(out, "(tool-error)") || !strings.Contains(out, "check failed: pending") {
		t.Errorf("with the config: exit %d\n%s", code, out)
	}
	// a flag overrides the file's key
	code, out, _ = cli.invoke(t, "", "check", "--config", cfg, "--fail-on", "error", capture)
	if code != 0 || strings.Contains(out, "(tool-error)") {
		t.Errorf("--fail-on over the file: exit %d\n%s", code, out)
	}
	code, out, _ = cli.invoke(t, "", "check", "--config", cfg, "--disable", "pending-request", capture)
	if code != 0 || !strings.Contains(out, "(tool-error)") || strings.Contains(out, "(pending-request)") {
		t.Errorf("--disable over the file: exit %d\n%s", code, out)
	}
	if code, _, errs := cli.invoke(t, "", "check", "--config", cfg, "--no-config", capture); code != 2 || !strings.Contains(errs, "cannot be combined") {
		t.Errorf("--config with --no-config: exit %d %s", code, errs)
	}
}

// Done when: a config with an unknown key exits 2 naming the file and line;
// config verify accepts a good file and locates each problem of a bad one.
func TestConfigProblemsAreLocated(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	root := t.TempDir()
	bad := writeFile(t, filepath.Join(root, "bad.yml"), "version: 1\nfail-on: [error]\ndisabled: [tool-error]\nrules:\n  tool-drfit: {}\n")
	code, out, errs := cli.invoke(t, "", "check", "--config", bad, testdata("demo-session.jsonl"))
	want := "mcpcheck: " + bad + `:3:1: unknown key "disabled" at the top level; did you mean "disable"?` + "\nmcpcheck: " + bad + `:5:3: unknown rule "tool-drfit" in rules; did you mean "tool-drift"?; run 'mcpcheck rules' for the list` + "\n"
	if code != 2 || out != "" || errs != want {
		t.Errorf("check: exit %d, stdout %q\nstderr:\n%s\nwant:\n%s", code, out, errs, want)
	}
	if code, _, errs := cli.invoke(t, "", "config", "verify", bad); code != 2 || errs != want {
		t.Errorf("verify bad: exit %d\n%s", code, errs)
	}
	good := writeFile(t, filepath.Join(root, "good.yml"), "version: 1\ncaptures: [\"*.jsonl\"]\nservers:\n  notes-*:\n    expect-tools: [read_note]\n")
	if code, out, errs := cli.invoke(t, "", "config", "verify", good); code != 0 || out != good+": valid (version 1, 1 server entry)\n" || errs != "" {
		t.Errorf("verify good: exit %d %q %s", code, out, errs)
	}
	if code, _, errs := cli.invoke(t, "", "config", "verify", filepath.Join(root, "none.yml")); code != 2 || !strings.Contains(errs, "none.yml: no such file") {
		t.Errorf("verify missing: exit %d %s", code, errs)
	}
}

// Done when: the JSON Schema is generated from the code and the checked-in
// copy is current.
func TestCheckedInSchemaIsCurrent(t *testing.T) {
	t.Parallel()
	code, out, _ := invoke(t, "", "config", "schema")
	if code != 0 {
		t.Fatalf("config schema: exit %d", code)
	}
	path := filepath.Join("..", "..", "docs", "config.schema.json")
	if *update {
		writeFile(t, path, out)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/mcpcheck -run TestCheckedInSchemaIsCurrent -update writes it)", err)
	}
	if out != string(want) {
		t.Errorf("%s is out of date: go test ./cmd/mcpcheck -run TestCheckedInSchemaIsCurrent -update", path)
	}
	var doc map[string]any
	if err := json.Unmarshal(want, &doc); err != nil || doc["$schema"] == nil {
		t.Errorf("not a JSON Schema: %v", err)
	}
}

// Done when: docs/config.md documents every key of the schema, and no key
// the schema does not have.
func TestConfigDocumentationCoversEveryKey(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	keys := config.Keys(vocabulary(defaultCommand().catalogue()))
	documented := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if rest, ok := strings.CutPrefix(line, "| `"); ok {
			if key, _, ok := strings.Cut(rest, "`"); ok {
				documented[key] = true
			}
		}
	}
	known := map[string]bool{}
	for _, k := range keys {
		known[k.Path] = true
		if strings.HasPrefix(k.Path, "rules.") {
			continue // one row documents rules:, mcpcheck explain the options
		}
		if !documented[k.Path] {
			t.Errorf("docs/config.md has no row | `%s` | (%s)", k.Path, k.Doc)
		}
	}
	for key := range documented {
		if !known[key] {
			t.Errorf("docs/config.md documents %q, which the schema does not have", key)
		}
	}
}

// Done when: config init writes a starter that config verify accepts,
// naming the captures' servers; it never replaces a file unasked.
func TestConfigInitWritesAVerifiableStarter(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	root := t.TempDir()
	capture := toolsCapture(t, root, "notes.jsonl", "notes", readOnlyTools)
	out := filepath.Join(root, ".mcpcheck.yml")
	code, stdout, errs := cli.invoke(t, "", "config", "init", "--file", out, capture)
	if code != 0 || errs != "" || !strings.Contains(stdout, "for 1 capture and 1 server") {
		t.Fatalf("init: exit %d %s\n%s", code, errs, stdout)
	}
	text, _ := os.ReadFile(out)
	if !strings.Contains(string(text), "\n  \"notes\": {}\n") || !strings.Contains(string(text), "\n  - \"notes.jsonl\"\n") {
		t.Errorf("starter:\n%s", text)
	}
	if code, _, errs := cli.invoke(t, "", "config", "verify", out); code != 0 {
		t.Errorf("verify the starter: exit %d %s", code, errs)
	}
	// bare check of the starter's captures, named relative to the file
	code, stdout, _ = cli.invoke(t, "", "check", "--config", out)
	if code != 0 || !strings.Contains(stdout, "session s-notes:") {
		t.Errorf("check the starter's captures: exit %d\n%s", code, stdout)
	}
	if code, _, errs := cli.invoke(t, "", "config", "init", "--file", out, capture); code != 2 || !strings.Contains(errs, "exists; pass --force") {
		t.Errorf("init over a file: exit %d %s", code, errs)
	}
}

// Done when: per-server settings apply to the matching labels only.
func TestServersSettingsApplyByLabel(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	root := t.TempDir()
	notes := toolsCapture(t, root, "a.jsonl", "notes-prod", readOnlyTools)
	other := toolsCapture(t, root, "b.jsonl", "weather", readOnlyTools)
	cfg := writeFile(t, filepath.Join(root, "c.yml"), "version: 1\nservers:\n  notes-*:\n    forbid-tools: [read_note]\n  weather:\n    expect-tools: [forecast]\n    fail-on: none\n")
	code, out, _ := cli.invoke(t, "", "check", "--config", cfg, notes, other)
	for _, want := range []string{
		`assertion failed: forbid-tool: forbidden tool "read_note" was called 1 time`,
		`assertion failed: expect-tool: tool "forecast" was never called`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
	if code != 1 || strings.Count(out, "assertion failed") != 2 {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// Done when: two runs give identical reports in every format, whatever the
// order the captures are named in, and none carries a home or temporary
// path the user did not give.
func TestReportsAreReproducible(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cli := withEnv(map[string]string{"NO_COLOR": "1", "HOME": home, "XDG_STATE_HOME": home + "/state", "MCPCHECK_HOME": home + "/mc"})
	a, b := testdata("demo-session.jsonl"), testdata("clean-stdio.jsonl")
	render := func(captures ...string) map[string]string {
		dir := t.TempDir()
		args := []string{"check", "--no-config", "--format", "json"}
		for _, f := range []string{"sarif", "junit", "text", "github"} {
			args = append(args, "--output", f+"="+filepath.Join(dir, f))
		}
		code, out, errs := cli.invoke(t, "", append(args, captures...)...)
		if code == 2 {
			t.Fatalf("exit 2: %s", errs)
		}
		got := map[string]string{"json": out}
		for _, f := range []string{"sarif", "junit", "text", "github"} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			got[f] = string(data)
		}
		return got
	}
	first, second, swapped := render(a, b), render(a, b), render(b, a)
	// The repository is where the user works (SARIF names it as the
	// working directory and the source root); a clone of it may itself lie
	// in the temporary directory, which must then not count against it.
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range first {
		if second[f] != want {
			t.Errorf("%s differs between two runs", f)
		}
		if swapped[f] != want {
			t.Errorf("%s differs when the captures are named in the other order", f)
		}
		for _, p := range []string{home, os.TempDir()} {
			if strings.Contains(strings.ReplaceAll(want, repo, "REPO"), p) {
				t.Errorf("%s carries %s", f, p)
			}
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("check wrote into $HOME: %v", entries)
	}
}

// Done when: a .mcpcheck.yml in the working directory is found (up to the
// repository's top, not beyond), and a bare mcpcheck checks its captures;
// $HOME, $XDG_STATE_HOME and $MCPCHECK_HOME stay untouched.
func TestConfigIsDiscoveredInTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	toolsCapture(t, repo, "notes.jsonl", "notes", readOnlyTools)
	writeFile(t, filepath.Join(repo, ".mcpcheck.yml"), "version: 1\ncaptures: [\"*.jsonl\"]\nforbid-tools: [read_note]\n")
	sub := filepath.Join(repo, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	for _, wd := range []string{repo, sub} {
		cmd := mcpcheckProcess()
		cmd.Dir = wd
		cmd.Env = append(cmd.Env, "HOME="+home, "XDG_STATE_HOME="+home+"/state", "MCPCHECK_HOME="+home+"/mc", "GITHUB_WORKSPACE=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		out := stdout.String()
		if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(out, "forbidden tool \"read_note\" was called") {
			t.Errorf("in %s: exit %d %s\n%s", wd, cmd.ProcessState.ExitCode(), stderr.String(), out)
		}
		wantConfig := ".mcpcheck.yml"
		if wd == sub {
			wantConfig = filepath.Join("..", ".mcpcheck.yml")
		}
		if !strings.HasPrefix(out, "config: "+wantConfig+"\n") {
			t.Errorf("in %s the report does not name %s first:\n%s", wd, wantConfig, out)
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("check wrote into $HOME: %v", entries)
	}
}

// Done when: a rule option declared in code (checks.Option) is set, typed
// and validated under rules:.
func TestRuleOptionsAreSetFromTheFile(t *testing.T) {
	t.Parallel()
	limit := &checks.Option[int]{Name: "max-tools", Doc: "how many tools a listing may hold", Default: 100}
	budget := &checks.Option[time.Duration]{Name: "budget", Doc: "a duration", Default: time.Second}
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	cli.catalogue = func() []*checks.Rule {
		r := &checks.Rule{ID: "list-size", Signal: checks.SignalWarn, Severity: checks.SeverityWarning,
			Doc:     checks.Doc{Summary: "reports its options", Why: "Test only.", Fix: "None.", Bad: "-", Good: "-", Since: "0.0.0"},
			Options: []checks.Setting{limit, budget},
			New: checks.EachFrame(func(p *checks.Pass, f *session.Frame) {
				if f.Msg.Method == "tools/list" && f.Direction == session.ClientToServer {
					p.Report(f, "options", "max-tools %d, budget %s", limit.Get(p), budget.Get(p))
				}
			})}
		return append(checks.All(), r)
	}
	root := t.TempDir()
	capture := toolsCapture(t, root, "c.jsonl", "notes", readOnlyTools)
	_, out, _ := cli.invoke(t, "", "check", "--no-config", capture)
	if !strings.Contains(out, "max-tools 100, budget 1s (list-size)") {
		t.Errorf("defaults:\n%s", out)
	}
	cfg := writeFile(t, filepath.Join(root, "c.yml"), "version: 1\nrules:\n  list-size:\n    max-tools: 2\n    budget: 3s\n")
	_, out, _ = cli.invoke(t, "", "check", "--config", cfg, capture)
	if !strings.Contains(out, "max-tools 2, budget 3s (list-size)") {
		t.Errorf("set by the file:\n%s", out)
	}
	for text, want := range map[string]string{
		"version: 1\nrules:\n  list-size:\n    max-tools: two\n": cfg + ":4:16: rules.list-size.max-tools: got string, want integer",
		"version: 1\nrules:\n  list-size:\n    budget: soon\n":   cfg + `:4:13: rules.list-size.budget: "soon" is not a duration`,
		"version: 1\nrules:\n  list-size:\n    max-tool: 2\n":    cfg + `:4:5: rule list-size has no option "max-tool"; did you mean "max-tools"?; its options: budget, max-tools`,
	} {
		writeFile(t, cfg, text)
		if code, _, errs := cli.invoke(t, "", "config", "verify", cfg); code != 2 || !strings.HasPrefix(errs, "mcpcheck: "+want) {
			t.Errorf("%q: exit %d\n%s\nwant %s", text, code, errs, want)
		}
	}
}

// Done when: max-duration takes one budget per tool, at the top level and
// per server; a tool's budget replaces the general one for that tool.
func TestMaxDurationPerToolFromTheFile(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	root := t.TempDir()
	capture := toolsCapture(t, root, "c.jsonl", "notes", readOnlyTools) // read_note answers in 1s
	for text, want := range map[string]string{
		"version: 1\nmax-duration: {read_note: 500ms, \"*\": 1h}\n":                                `assertion failed: max-duration: 1 tool call of "read_note" took longer than 500ms; the worst, tools/call "read_note" (id 2) at ` + capture + `:6, took 1s`,
		"version: 1\nmax-duration: 500ms\nservers:\n  notes:\n    max-duration: {read_note: 2s}\n": "",
		"version: 1\nservers:\n  notes:\n    max-duration: {read_note: 500ms}\n":                   `assertion failed: max-duration: 1 tool call of "read_note" took longer than 500ms`,
	} {
		cfg := writeFile(t, filepath.Join(t.TempDir(), "c.yml"), text)
		code, out, errs := cli.invoke(t, "", "check", "--config", cfg, capture)
		switch {
		case want == "" && (code != 0 || strings.Contains(out, "assertion failed")):
			t.Errorf("%q: exit %d %s\n%s", text, code, errs, out)
		case want != "" && (code != 1 || !strings.Contains(out, want)):
			t.Errorf("%q: exit %d %s\n%s\nwant %s", text, code, errs, out, want)
		}
	}
}

// Done when: mcpcheck baseline writes where check reads: the config's
// baseline: directory, for the config's captures.
func TestBaselineCommandReadsTheConfig(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	root := t.TempDir()
	toolsCapture(t, root, "notes.jsonl", "notes", readOnlyTools)
	cfg := writeFile(t, filepath.Join(root, "c.yml"), "version: 1\ncaptures: [\"*.jsonl\"]\nbaseline: team/baselines\n")
	if code, out, errs := cli.invoke(t, "", "baseline", "--config", cfg, "--accept", "--reason", "first"); code != 0 {
		t.Fatalf("accept: exit %d %s\n%s", code, errs, out)
	}
	if files := baselineFiles(t, filepath.Join(root, "team", "baselines")); len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	if code, out, _ := cli.invoke(t, "", "check", "--config", cfg); code != 0 || strings.Contains(out, "(baseline)") || strings.Contains(out, "drift not checked") {
		t.Errorf("check against the accepted baseline: exit %d\n%s", code, out)
	}
}

// Done when: mcpcheck suppress adds to the file the config's suppressions:
// names, the one check reads.
func TestSuppressWritesTheConfiguredFile(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	root := t.TempDir()
	cfg := writeFile(t, filepath.Join(root, "c.yml"), "version: 1\nsuppressions: team/accepted.json\n")
	if err := os.Mkdir(filepath.Join(root, "team"), 0o755); err != nil {
		t.Fatal(err)
	}
	fp := strings.Repeat("ab", 16)
	if code, out, errs := cli.invoke(t, "", "suppress", "--config", cfg, "--reason", "known", fp); code != 0 {
		t.Fatalf("suppress: exit %d %s\n%s", code, errs, out)
	}
	data, err := os.ReadFile(filepath.Join(root, "team", "accepted.json"))
	if err != nil || !strings.Contains(string(data), fp) {
		t.Fatalf("the configured file: %v\n%s", err, data)
	}
	// check reads it: the entry matches nothing, a stale-suppression note
	_, out, _ := cli.invoke(t, "", "check", "--config", cfg, testdata("clean-stdio.jsonl"))
	if !strings.Contains(out, "(stale-suppression)") {
		t.Errorf("check did not read the configured file:\n%s", out)
	}
}
