package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/report/sariftest"
)

// TestSixThousandGatedFindings: SARIF keeps 5,000 results (the gated ones,
// then report-truncated last); text and JSON list all 6,000 (six sessions
// of 1,000 tool errors each: a rule lists at most 1,000 per session).
func TestSixThousandGatedFindings(t *testing.T) {
	t.Parallel()
	const sessions, perSession = 6, checks.MaxFindingsPerRule
	const n = sessions * perSession
	dir := t.TempDir()
	capture := filepath.Join(dir, "failing-tools.jsonl")
	var b strings.Builder
	for k := 1; k <= sessions; k++ {
		seq := 0
		envelope := func(direction, raw string) {
			seq++
			fmt.Fprintf(&b, `{"session_id":"flaky-%d","server_label":"flaky","seq":%d,"ts":"2026-09-01T1%d:%02d:%02d.%03dZ","direction":%q,"transport":"stdio","raw":%s}`+"\n",
				k, seq, k, seq/60000%60, seq/1000%60, seq%1000, direction, raw)
		}
		envelope("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`)
		envelope("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"flaky","version":"1"}}}`)
		envelope("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		for i := 1; i <= perSession; i++ {
			envelope("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fetch_page","arguments":{"url":"https://example.test/%d"}}}`, i, i))
			envelope("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"upstream timed out after 30s (page %d)"}],"isError":true}}`, i, i))
		}
	}
	if err := os.WriteFile(capture, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	sarifPath, jsonPath := filepath.Join(dir, "out.sarif"), filepath.Join(dir, "out.json")
	code, text, errs := cli.invoke(t, "", "--output", "sarif="+sarifPath, "--output", "json="+jsonPath, capture)
	if code != 1 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if got := strings.Count(text, ": ✗ "); got != n {
		t.Errorf("text lists %d gated findings, want %d", got, n)
	}

	var js struct {
		Sessions []struct {
			Findings []json.RawMessage `json:"findings"`
		} `json:"sessions"`
	}
	data, _ := os.ReadFile(jsonPath)
	err := json.Unmarshal(data, &js)
	listed := 0
	for _, s := range js.Sessions {
		listed += len(s.Findings)
	}
	if err != nil || len(js.Sessions) != sessions || listed != n {
		t.Errorf("json: err %v, %d sessions, findings %d, want %d", err, len(js.Sessions), listed, n)
	}

	data, _ = os.ReadFile(sarifPath)
	sariftest.Validate(t, data)
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
				Level  string `json:"level"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	results := log.Runs[0].Results
	if len(results) != report.MaxSARIFResults {
		t.Fatalf("%d SARIF results, want %d", len(results), report.MaxSARIFResults)
	}
	for i, r := range results[:len(results)-1] {
		if r.RuleID != "tool-error" || r.Level != "error" {
			t.Fatalf("result %d is %s/%s, want a gated tool-error", i, r.RuleID, r.Level)
		}
	}
	if last := results[len(results)-1]; last.RuleID != "report-truncated" {
		t.Errorf("last result %q, want report-truncated", last.RuleID)
	}
}
