package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// --skip-unrecognised (the pre-commit hook's flag): a file that is not a
// capture of any format is skipped with a note instead of failing the
// run; captures are checked as without it; a run that skips every input
// passes with a note; a file that cannot be read still fails.
func TestSkipUnrecognised(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logs := filepath.Join(dir, "app-log.jsonl")
	notes := filepath.Join(dir, "notes.har")
	for path, body := range map[string]string{
		logs:  `{"level":"info","msg":"started","ts":1}` + "\n" + `{"level":"warn","msg":"slow disk"}` + "\n",
		notes: "these are my notes, not a HAR\n",
	} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	demo := testdata("demo-session.jsonl")

	code, _, stderr := ownHome(t).invoke(t, "", logs, demo)
	if code != 2 || !strings.Contains(stderr, "app-log.jsonl") {
		t.Fatalf("without the flag: exit %d, stderr %q; want 2 naming the file", code, stderr)
	}

	// Each run records the tool baseline in a home of its own, at a time,
	// which its report names: compare the two with those named alike.
	homeA, homeB := t.TempDir(), t.TempDir()
	wantCode, wantOut, _ := withEnv(map[string]string{"MCPCHECK_HOME": homeA}).invoke(t, "", "--format", "json", demo)
	code, stdout, stderr := withEnv(map[string]string{"MCPCHECK_HOME": homeB}).invoke(t, "", "--skip-unrecognised", "--format", "json", logs, demo, notes)
	recorded := regexp.MustCompile(`"time": "[^"]*"`)
	wantOut = recorded.ReplaceAllString(strings.ReplaceAll(wantOut, homeA, "HOME"), `"time": "T"`)
	stdout = recorded.ReplaceAllString(strings.ReplaceAll(stdout, homeB, "HOME"), `"time": "T"`)
	if code != wantCode || stdout != wantOut || !strings.Contains(stdout, `"sessions"`) {
		t.Errorf("with the flag: exit %d, want %d as for the capture alone; report:\n%s\nalone:\n%s", code, wantCode, stdout, wantOut)
	}
	for _, f := range []string{logs, notes} {
		if !strings.Contains(stderr, "mcpcheck: note: skipped "+f+":1: not a capture: ") {
			t.Errorf("stderr does not note %s skipped:\n%s", f, stderr)
		}
	}

	code, stdout, stderr = ownHome(t).invoke(t, "", "--skip-unrecognised", logs, notes)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "none of the 2 inputs is a capture; nothing to check") {
		t.Errorf("only non-captures: exit %d, stdout %q, stderr %q; want 0 and the note", code, stdout, stderr)
	}

	code, _, stderr = ownHome(t).invoke(t, "", "--skip-unrecognised", filepath.Join(dir, "missing.jsonl"), demo)
	if code != 2 || !strings.Contains(stderr, "missing.jsonl") {
		t.Errorf("a missing file: exit %d, stderr %q; want 2 naming it", code, stderr)
	}
}
