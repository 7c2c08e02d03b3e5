package report

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
)

// diagramResult is one failing session whose findings are about the given
// exchanges, each found by fake-rpc-error (gated) at its own line.
func diagramResult(t testing.TB, label string, exchanges ...*result.Exchange) *result.Result {
	rules := testCatalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(testWorkDir, "d.jsonl")
	s := &result.SessionResult{ID: "d-1", Label: label, File: file, FirstLine: 1}
	for i, ex := range exchanges {
		f := finding(rules, gate, "fake-rpc-error", file, ex.Line+1, fmt.Sprintf("call %d", i), "failed")
		f.Session, f.Exchange = s.ID, ex
		s.Findings = append(s.Findings, f)
	}
	s.Recount()
	return &result.Result{Files: []string{file}, Sessions: []*result.SessionResult{s}, Gate: gate, Rules: rules, ExitCode: 1}
}

// summaryOf renders r's step summary.
func summaryOf(t *testing.T, r *result.Result) string {
	t.Helper()
	o := testOptions()
	o.StepSummary = filepath.Join(t.TempDir(), "s.md")
	render(t, "github", o, r)
	return string(readFile(t, o.StepSummary))
}

// mermaidBlocks are the diagrams of a summary, each a list of lines.
func mermaidBlocks(t *testing.T, summary string) [][]string {
	t.Helper()
	var out [][]string
	for _, m := range regexp.MustCompile("(?s)```mermaid\n(.*?)```\n").FindAllStringSubmatch(summary, -1) {
		out = append(out, strings.Split(strings.TrimSuffix(m[1], "\n"), "\n"))
	}
	return out
}

// mermaidStatement is every line a diagram may hold: the header, the two
// participants, arrows between them and notes.
var mermaidStatement = regexp.MustCompile(`^(sequenceDiagram|    participant [CS] as [^\n]+|    [CS](->>|-->>|--x)[CS]: [^\n]+|    Note over (C|S|C,S): [^\n]+)$`)

// mermaidEntity is an escaped character.
var mermaidEntity = regexp.MustCompile(`#[0-9]+;`)

func TestGitHubDiagramEscapesCaptureText(t *testing.T) {
	t.Parallel()
	sent := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	hostile := "x;y#z%%{init: {'theme':'dark'}}%%\nNote over S: injected\n```\n<img src=x onerror=alert(1)> `tick` \"q\" [l](u) *b* |p| \u202e\x00"
	r := diagramResult(t, "lab\nel;```",
		&result.Exchange{From: session.ClientToServer, Method: "tools/call", Name: hostile, ID: `"a;b"`, Line: 3, Sent: sent, Answer: "error -32603", Answered: sent.Add(5 * time.Millisecond)},
		&result.Exchange{From: session.ServerToClient, Method: "sampling/createMessage", ID: "7", Line: 8, Sent: sent, Note: "never answered"},
	)
	blocks := mermaidBlocks(t, summaryOf(t, r))
	if len(blocks) != 1 {
		t.Fatalf("%d diagrams, want 1", len(blocks))
	}
	lines := blocks[0]
	// header, two participants, a request and its answer, a request and its note
	if len(lines) != 7 {
		t.Fatalf("diagram has %d lines, want 7 (capture text must not add any):\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, line := range lines {
		if !mermaidStatement.MatchString(line) {
			t.Errorf("not a statement of the diagram: %q", line)
		}
		text := line
		if i := strings.Index(line, ": "); i >= 0 {
			text = line[i+2:]
		}
		if rest := mermaidEntity.ReplaceAllString(text, ""); strings.ContainsAny(rest, "#;%`<>\"[]{}|*\x00\u202e") {
			t.Errorf("unescaped text in %q", line)
		}
	}
	want := []string{
		"    participant S as server lab el#59;#96;#96;#96;",
		"    S--xC: error -32603 after 5ms: fake-rpc-error",
		"    S->>C: sampling/createMessage (id 7), line 8",
		"    Note over C: never answered: fake-rpc-error",
	}
	for _, w := range want {
		if !strings.Contains(strings.Join(lines, "\n"), w) {
			t.Errorf("diagram lacks %q:\n%s", w, strings.Join(lines, "\n"))
		}
	}
	if !strings.HasPrefix(lines[3], "    C->>S: tools/call x#59;y#35;z#37;#37;#123;init#58; #123;'theme'#58;'dark'#125;#125;#37;#37; Note over S#58; injected") {
		t.Errorf("request line %q", lines[3])
	}
}

// A session with a flood of failing requests draws a bounded number of
// arrows and says how many requests it left out; several findings on one
// answer are one arrow.
func TestGitHubDiagramIsBounded(t *testing.T) {
	t.Parallel()
	sent := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	var exchanges []*result.Exchange
	for i := 0; i < 40; i++ {
		ex := &result.Exchange{From: session.ClientToServer, Method: "tools/call", Name: "t", ID: fmt.Sprint(i), Line: 100 - 2*i,
			Sent: sent, Answer: "isError result", Answered: sent.Add(time.Duration(i) * time.Millisecond)}
		exchanges = append(exchanges, ex, ex) // two findings each
	}
	blocks := mermaidBlocks(t, summaryOf(t, diagramResult(t, "flood", exchanges...)))
	if len(blocks) != 1 {
		t.Fatalf("%d diagrams", len(blocks))
	}
	arrows := 0
	for _, l := range blocks[0] {
		if strings.Contains(l, "->>") || strings.Contains(l, "--x") || strings.Contains(l, "Note over C:") || strings.Contains(l, "Note over S:") {
			arrows++
		}
	}
	if arrows != ghDiagramArrows {
		t.Errorf("%d arrows, want %d", arrows, ghDiagramArrows)
	}
	if last := blocks[0][len(blocks[0])-1]; last != "    Note over C,S: 28 more failing requests not drawn" {
		t.Errorf("last line %q", last)
	}
	// Requests in capture order: the lowest line first.
	if first := blocks[0][3]; first != "    C->>S: tools/call t (id 39), line 22" {
		t.Errorf("first request %q", first)
	}
}

// Only failing sessions are drawn, at most ghDiagramSessions of them.
func TestGitHubDiagramSessionsAreBounded(t *testing.T) {
	t.Parallel()
	sent := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	r := diagramResult(t, "one", &result.Exchange{Method: "ping", ID: "1", Line: 2, Sent: sent, Note: "never answered"})
	passing := &result.SessionResult{ID: "ok-1", Label: "fine", File: r.Files[0]}
	passing.Recount()
	r.Sessions = append(r.Sessions, passing)
	for i := 0; i < 12; i++ {
		s := *r.Sessions[0]
		s.ID = fmt.Sprintf("d-%d", i+2)
		r.Sessions = append(r.Sessions, &s)
	}
	got := summaryOf(t, r)
	if n := len(mermaidBlocks(t, got)); n != ghDiagramSessions {
		t.Errorf("%d diagrams, want %d", n, ghDiagramSessions)
	}
	if strings.Contains(got, "#### session ok-1") {
		t.Error("a passing session is drawn")
	}
	if !strings.Contains(got, "\n3 more failing sessions not drawn.\n") {
		t.Errorf("no count of the sessions left out:\n%s", got)
	}
}

func TestGitHubDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		7 * time.Millisecond:             "7ms",
		1500 * time.Millisecond:          "1.5s",
		1234567 * time.Microsecond:       "1.235s",
		250 * time.Microsecond:           "250µs",
		-3 * time.Millisecond:            "-3ms",
		90*time.Second + time.Nanosecond: "1m30s",
		// found by FuzzPipeline: timestamps centuries apart saturate Sub,
		// and the negation of the smallest duration overflowed forever
		math.MinInt64: "-2562047h47m16.854775807s", // Round saturates
		math.MaxInt64: "2562047h47m16.854775807s",
	} {
		if got := ghDuration(d); got != want {
			t.Errorf("ghDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
