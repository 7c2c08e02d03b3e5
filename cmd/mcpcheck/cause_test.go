package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A finding caused by another names it in every report: at the end of its
// message (text, JUnit, annotations), as caused_by in JSON, and as a related
// location in SARIF.
func TestCausedByInEveryReport(t *testing.T) {
	t.Parallel()
	capture := strings.Join([]string{
		`{"session_id":"s1","server_label":"notes","seq":1,"ts":"2026-09-01T10:00:00.001Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}`,
		`{"session_id":"s1","server_label":"notes","seq":2,"ts":"2026-09-01T10:00:00.002Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}`,
		`{"session_id":"s1","server_label":"notes","seq":3,"ts":"2026-09-01T10:00:00.003Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}`,
		`{"session_id":"s1","server_label":"notes","seq":4,"ts":"2026-09-01T10:00:00.004Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}`,
		`{"session_id":"s1","server_label":"notes","seq":5,"ts":"2026-09-01T10:00:00.005Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read_note","inputSchema":{"type":"object"}}]}}}`,
		`{"session_id":"s1","server_label":"notes","seq":6,"ts":"2026-09-01T10:00:00.006Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_note","arguments":{}}}}`,
		`{"session_id":"s1","server_label":"notes","seq":7,"ts":"2026-09-01T10:00:00.007Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Tool delete_note not found"}],"isError":true}}}`,
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "cause.jsonl")
	if err := os.WriteFile(path, []byte(capture), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := ownHome(t)
	const cause = `caused by: unknown tool "delete_note", line 6`

	_, out, _ := cli.invoke(t, "", "check", "--disable", "baseline", path)
	if !strings.Contains(out, `:7: `) || !strings.Contains(out, `reported an error: "Tool delete_note not found"; `+cause) {
		t.Errorf("text does not name the cause:\n%s", out)
	}

	_, out, _ = cli.invoke(t, "", "check", "--disable", "baseline", "--format", "json", path)
	var rep struct {
		Sessions []struct {
			Findings []struct {
				Rule     string
				Line     int
				CausedBy *struct {
					Rule    string
					File    string
					Line    int
					Message string
				} `json:"caused_by"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Sessions) != 1 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	linked := 0
	for _, f := range rep.Sessions[0].Findings {
		switch {
		case f.Rule == "tool-error":
			if c := f.CausedBy; c == nil || c.Rule != "unknown-tool" || c.Line != 6 || c.File != path || c.Message != `unknown tool "delete_note"` {
				t.Errorf("json: tool-error caused_by %+v", c)
			}
			linked++
		case f.CausedBy != nil:
			t.Errorf("json: %s at line %d has a cause %+v", f.Rule, f.Line, f.CausedBy)
		}
	}
	if linked != 1 {
		t.Errorf("json: %d tool-error findings, want 1\n%s", linked, out)
	}

	_, out, _ = cli.invoke(t, "", "check", "--disable", "baseline", "--format", "sarif", path)
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID           string `json:"ruleId"`
				RelatedLocations []struct {
					PhysicalLocation struct {
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
					Message struct{ Text string } `json:"message"`
				} `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("sarif: %v\n%s", err, out)
	}
	found := false
	for _, r := range log.Runs[0].Results {
		for _, l := range r.RelatedLocations {
			if r.RuleID == "tool-error" && l.PhysicalLocation.Region.StartLine == 6 && l.Message.Text == cause+" (unknown-tool)" {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("sarif: no related location for the cause\n%s", out)
	}
}
