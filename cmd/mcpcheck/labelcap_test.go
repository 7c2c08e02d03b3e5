package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session/sessiontest"
	"github.com/mcpcheck/mcpcheck/usage"
)

// A run follows the usage of at most usage.MaxLabels server labels: the
// sessions of later ones are checked as ever (a tool error under one
// still fails the gate) but counted, not followed, and every report says
// so. A coverage assertion cannot be met by what was not followed: it
// fails (fail closed) rather than passing the labels it could not see.
func TestLabelsPastTheCapAreCheckedAndCounted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	listings, err := io.ReadAll(sessiontest.Labels(usage.MaxLabels + 1))
	if err != nil {
		t.Fatal(err)
	}
	// a second session under the label past the cap, whose call fails
	failing := `{"session_id":"late-1","server_label":"server-10001","seq":1,"ts":"2026-09-02T10:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}}` + "\n" +
		`{"session_id":"late-1","server_label":"server-10001","seq":2,"ts":"2026-09-02T10:00:01Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"no"}]}}}` + "\n"
	capture := filepath.Join(dir, "labels.jsonl")
	if err := os.WriteFile(capture, append(listings, failing...), 0o644); err != nil {
		t.Fatal(err)
	}
	const note = "note: 10000 server labels followed, the most a run keeps: the usage and coverage of 2 sessions under later labels were not followed"

	textPath, jsonPath, htmlPath, summaryPath := filepath.Join(dir, "out.txt"), filepath.Join(dir, "out.json"), filepath.Join(dir, "out.html"), filepath.Join(dir, "summary.md")
	cli := withEnv(map[string]string{"NO_COLOR": "1", "GITHUB_STEP_SUMMARY": summaryPath})
	code, _, errs := cli.invoke(t, "", "--no-config", "--format", "github", "--output", "text="+textPath, "--output", "json="+jsonPath, "--output", "html="+htmlPath, capture)
	if code != 1 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	data, _ := os.ReadFile(textPath)
	text := string(data)
	if !strings.Contains(text, note+"\n") {
		t.Errorf("the text report lacks %q", note)
	}
	if !strings.Contains(text, `labels.jsonl:20004: ✗ error tool "echo" (id 1) reported an error: "no" (tool-error)`) {
		t.Error("the text report lacks the tool error under the label past the cap")
	}
	if n := strings.Count(text, "coverage server-"); n != usage.MaxLabels {
		t.Errorf("%d coverage lines, want one per followed label, %d", n, usage.MaxLabels)
	}
	var js struct {
		Usage struct {
			Servers []struct {
				Label string `json:"label"`
			} `json:"servers"`
			MaxLabels int `json:"max_labels"`
			Past      int `json:"sessions_past_label_cap"`
		} `json:"usage"`
	}
	data, _ = os.ReadFile(jsonPath)
	if err := json.Unmarshal(data, &js); err != nil {
		t.Fatal(err)
	}
	if n := len(js.Usage.Servers); n != usage.MaxLabels || js.Usage.MaxLabels != usage.MaxLabels || js.Usage.Past != 2 {
		t.Errorf("JSON usage: %d servers, max_labels %d, sessions_past_label_cap %d; want %d, %d, 2", n, js.Usage.MaxLabels, js.Usage.Past, usage.MaxLabels, usage.MaxLabels)
	}
	for _, s := range js.Usage.Servers {
		if s.Label == "server-10001" {
			t.Error("the label past the cap has a coverage record")
		}
	}
	for path, want := range map[string]string{htmlPath: "<p class=\"note\">" + strings.TrimPrefix(note, "note: ") + ".</p>", summaryPath: "**Note:** " + strings.TrimPrefix(note, "note: ") + "."} {
		if data, _ := os.ReadFile(path); !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q", filepath.Base(path), want)
		}
	}

	// every followed label lists one tool and calls none: 0% reaches a
	// 0% assertion, and only the labels not followed fail it
	code, text, errs = cli.invoke(t, "", "--no-config", "--min-tool-coverage", "0", "--disable", "tool-error", capture)
	if code != 1 || errs != "" {
		t.Fatalf("with --min-tool-coverage 0: exit %d, stderr %q", code, errs)
	}
	// nothing is accepted from captures of more servers than a run keeps
	baselines := filepath.Join(dir, "baselines")
	code, _, errs = cli.invoke(t, "", "baseline", "--accept", "--reason", "x", "--baseline", baselines, capture)
	if want := "the captures name more than 10000 servers, the most one run keeps; nothing was accepted: accept them in smaller runs"; code != exitUsage || !strings.Contains(errs, want) {
		t.Errorf("baseline --accept: exit %d, stderr %q; want %d and %q", code, errs, exitUsage, want)
	}
	if entries, _ := os.ReadDir(baselines); len(entries) != 0 {
		t.Errorf("baseline --accept wrote %d files", len(entries))
	}

	const failed = "assertion failed: min-tool-coverage: 10000 server labels followed, the most a run keeps: the usage and coverage of 2 sessions under later labels were not followed, so whether they reach the asserted coverage is unknown"
	if !strings.Contains(text, failed+"\n") || strings.Count(text, "assertion failed:") != 1 {
		t.Errorf("want one failed assertion %q:\n%s", failed, text[max(0, len(text)-2000):])
	}
}
