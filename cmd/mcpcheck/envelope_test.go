package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUppercaseDirectionsFailTheGate: a recorder that writes "S2C" on every
// answer fails the default gate instead of passing with its answers unread;
// the answers are still paired (nothing pending, nothing unmatched) and the
// tool error among them is found. invalid-envelope lists 1,000 per session
// and counts the rest.
func TestUppercaseDirectionsFailTheGate(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	const calls = 1200
	dir := t.TempDir()
	capture := filepath.Join(dir, "upper.jsonl")
	var b strings.Builder
	seq := 0
	envelope := func(direction, raw string) {
		seq++
		fmt.Fprintf(&b, `{"session_id":"weather-9","server_label":"weather","seq":%d,"ts":"2026-09-03T08:%02d:%02d.%03dZ","direction":%q,"transport":"stdio","raw":%s}`+"\n",
			seq, seq/60000%60, seq/1000%60, seq%1000, direction, raw)
	}
	envelope("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`)
	envelope("S2C", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"weather","version":"0.3.0"}}}`)
	envelope("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 1; i <= calls; i++ {
		envelope("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"city-%d"}}}`, i, i))
		result := `{"content":[{"type":"text","text":"sunny"}]}`
		if i == 700 {
			result = `{"content":[{"type":"text","text":"Upstream API returned 503"}],"isError":true}`
		}
		envelope("S2C", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, i, result))
	}
	if err := os.WriteFile(capture, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	jsonPath := filepath.Join(dir, "out.json")
	code, text, errs := cli.invoke(t, "", "--output", "json="+jsonPath, capture)
	if code != 1 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if n := strings.Count(text, "(invalid-envelope)"); n != 1001 {
		t.Errorf("%d invalid-envelope findings listed, want 1,000 and one summary", n)
	}
	if !strings.Contains(text, "201 more findings of this rule not listed") || strings.Count(text, "(tool-error)") != 1 {
		t.Errorf("summary or tool error missing:\n%s", text[len(text)-2000:])
	}
	assertCounts(t, ruleCounts(t, capture), map[string]int{"invalid-envelope": 1001, "tool-error": 1})

	var js struct {
		Sessions []struct {
			Counts map[string]int `json:"counts"`
		} `json:"sessions"`
	}
	data, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(data, &js); err != nil || len(js.Sessions) != 1 {
		t.Fatalf("json: %v", err)
	}
	if c := js.Sessions[0].Counts; c["invalid"] != calls+1 || c["error"] != 1 || c["pending"] != 0 || c["warn"] != 0 {
		t.Errorf("counts %v, want invalid %d (every bad envelope), error 1", c, calls+1)
	}
}
