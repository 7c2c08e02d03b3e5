package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// help is complete: every check flag is listed, and every command has a
// help of its own, by 'help COMMAND' and by COMMAND --help alike.
func TestHelpIsCompleteForEveryCommand(t *testing.T) {
	t.Parallel()
	cli := withEnv(nil)
	code, out, errs := cli.invoke(t, "", "help")
	if code != 0 || errs != "" || strings.HasSuffix(out, "Check flags:\n") {
		t.Fatalf("help: exit %d, stderr %q\n%s", code, errs, out)
	}
	checkFlags(&checkOptions{}).VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(out, "--"+f.Name+" ") && !strings.Contains(out, "--"+f.Name+"[") {
			t.Errorf("help does not list --%s", f.Name)
		}
	})
	for _, name := range []string{"fail-on", "verbose", "show-fingerprints"} {
		if !strings.Contains(out, "--"+name) {
			t.Errorf("help lacks --%s", name)
		}
	}
	for _, cmd := range commands {
		code, viaHelp, errs := cli.invoke(t, "", "help", cmd)
		if code != 0 || errs != "" || !strings.Contains(viaHelp, "Usage:\n  mcpcheck ") || !strings.Contains(viaHelp, "mcpcheck "+cmd) && cmd != "check" {
			t.Errorf("help %s: exit %d, stderr %q\n%s", cmd, code, errs, viaHelp)
		}
		code, viaFlag, _ := cli.invoke(t, "", cmd, "--help")
		if code != 0 || (cmd != "help" && viaFlag != viaHelp) {
			t.Errorf("%s --help: exit %d, and not what help %s says:\n%s", cmd, code, cmd, viaFlag)
		}
	}
	if _, out, _ := cli.invoke(t, "", "version", "--help"); strings.Contains(out, thisBuild().String()) || !strings.Contains(out, "Usage:") {
		t.Errorf("version --help prints the version:\n%s", out)
	}
	if code, out, _ := cli.invoke(t, "", "version"); code != 0 || out != thisBuild().String()+"\n" {
		t.Errorf("version: exit %d %q", code, out)
	}
}

// A slip is answered with the name meant, and exit 2, nothing on stdout.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	state := t.TempDir() // no mcpsnoop session is named like a command
	cli := withEnv(map[string]string{"MCPSNOOP_HOME": state, "NO_COLOR": "1"})
	demo := testdata("demo-session.jsonl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"chek", demo}, `unknown command "chek" (did you mean check?)`},
		{[]string{"explian", "tool-error"}, `unknown command "explian" (did you mean explain?)`},
		{[]string{"help", "supress"}, `help: unknown command "supress" (did you mean suppress?)`},
		{[]string{"--fial-on", "error", demo}, "unknown flag --fial-on (did you mean --fail-on?); run 'mcpcheck --help' for usage"},
		{[]string{"suppress", "--reson", "x"}, "suppress: unknown flag --reson (did you mean --reason?); run 'mcpcheck suppress --help'"},
		{[]string{"baseline", "--acept", demo}, "baseline: unknown flag --acept (did you mean --accept?)"},
		{[]string{"rules", "--fromat", "json"}, "rules: unknown flag --fromat (did you mean --format?)"},
		{[]string{"stats", "--fromat", "json", demo}, "stats: unknown flag --fromat (did you mean --format?)"},
		{[]string{"diff", "--duration-raito", "2", demo, demo}, "diff: unknown flag --duration-raito (did you mean --duration-ratio?)"},
		{[]string{"config", "init", "--forse", demo}, "config: unknown flag --forse (did you mean --force?)"},
		{[]string{"explain", "tool-erorr"}, `explain: unknown rule "tool-erorr" (did you mean tool-error?)`},
		{[]string{"--disable", "pending-reqest", demo}, `--disable: unknown rule "pending-reqest" (did you mean pending-request?)`},
		{[]string{"--fail-on", "warning", demo}, `--fail-on: unknown entry "warning" (did you mean warn?); valid are none, all, the signals error, invalid, warn,`},
		{[]string{"--format", "jsn", demo}, `--format: unknown format "jsn" (did you mean json?)`},
		{[]string{"--output", "sraif=x.sarif", demo}, `--output: unknown format "sraif" (did you mean sarif?)`},
		{[]string{"--input-format", "mcpsnop", demo}, `--input-format: unknown format "mcpsnop" (did you mean mcpsnoop?)`},
		{[]string{"--color", "allways", demo}, `--color: "allways" is not auto, always or never (did you mean always?)`},
		{[]string{"rules", "--format", "markdwn"}, `"markdwn" is not text, json or markdown (did you mean markdown?)`},
	} {
		code, out, errs := cli.invoke(t, "", c.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.want)
		}
	}
	// "did you mean warn?" and a short list, not every rule id
	_, _, errs := cli.invoke(t, "", "--fail-on", "warning", demo)
	if len(errs) > 300 || strings.Contains(errs, "tool-error") {
		t.Errorf("--fail-on warning answered with %d characters: %s", len(errs), errs)
	}
	// a word near nothing keeps its own error
	if _, _, errs := cli.invoke(t, "", "zzzzzzzz"); strings.Contains(errs, "did you mean") {
		t.Errorf("a word near no command got a suggestion: %s", errs)
	}
}

// Rule ids are case-insensitive everywhere.
func TestRuleIDsIgnoreCase(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	if code, out, _ := cli.invoke(t, "", "explain", "Tool-Error"); code != 0 || !strings.HasPrefix(out, "tool-error: ") {
		t.Errorf("explain Tool-Error: exit %d\n%s", code, out)
	}
	demo := testdata("demo-session.jsonl") // a tool error and a pending ping
	if code, out, _ := cli.invoke(t, "", "--disable", "TOOL-ERROR", demo); code != 0 || strings.Contains(out, "(tool-error)") {
		t.Errorf("--disable TOOL-ERROR: exit %d\n%s", code, out)
	}
	if code, out, _ := cli.invoke(t, "", "--fail-on", "Pending-Request", demo); code != 1 || !strings.Contains(out, "check failed: pending-request") {
		t.Errorf("--fail-on Pending-Request: exit %d\n%s", code, out)
	}
}

// --expect-tool with a slip of a called tool's name points at it and names
// the session that lacks it.
func TestExpectToolSuggestsTheCalledTool(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	code, out, _ := cli.invoke(t, "", "--expect-tool", "read_nte", testdata("demo-session.jsonl"))
	want := `assertion failed: expect-tool: tool "read_nte" was never called in session notes-7f3a; did you mean "read_note"? it was called` + "\n"
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("exit %d, want %q in\n%s", code, want, out)
	}
}

// A bare word that names a file is a capture, even when it is one edit
// from a command.
func TestAFileNamedLikeACommandIsACapture(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(testdata("demo-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chek"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, out, errs := withEnv(map[string]string{"NO_COLOR": "1"}).invoke(t, "", "chek")
	if code != 1 || errs != "" || !strings.Contains(out, "chek:13: ✗ error ") {
		t.Errorf("chek as a capture: exit %d, stderr %q\n%s", code, errs, out)
	}
}
