package rundiff

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/usage"
)

func side(name string, findings map[string]Finding, tools ...usage.Tool) *Side {
	return &Side{Name: name, Findings: findings, Usage: &usage.Summary{Servers: []usage.Server{{
		Label: "db", Tools: usage.Coverage{Listed: true, Advertised: len(tools)}, ToolStats: tools,
	}}}}
}

func timed(name string, p50, p95 time.Duration, ok int64) usage.Tool {
	return usage.Tool{Name: name, Advertised: true, Calls: 10, OK: ok, Latency: usage.Latency{Count: 10, P50: p50, P95: p95}}
}

func TestLatencyPastTheRatio(t *testing.T) {
	t.Parallel()
	base := side("base", nil, timed("q", 10*time.Millisecond, 20*time.Millisecond, 10), timed("fast", time.Millisecond, 2*time.Millisecond, 10))
	head := side("head", nil, timed("q", 12*time.Millisecond, 90*time.Millisecond, 10), timed("fast", 3*time.Millisecond, 5*time.Millisecond, 10))
	d := Compare(base, head, Options{DurationRatio: 2, MinDelta: 10 * time.Millisecond})
	// q's p95 grew 4.5x by 70ms; fast grew 3x but by 3ms, under the noise floor.
	if len(d.Latency) != 1 || d.Latency[0].Tool != "q" || !d.Latency[0].Regression || !d.Regressed() ||
		d.Regressions[0] != "server db: latency past 2x: q" {
		t.Errorf("latency %+v, regressions %q", d.Latency, d.Regressions)
	}
	if d := Compare(base, base, Options{DurationRatio: 2}); d.Regressed() || len(d.Latency) != 0 {
		t.Errorf("a side against itself: %+v", d)
	}
	if d := Compare(base, head, Options{}); len(d.Latency) != 0 {
		t.Error("ratio 0 compares latency")
	}
}

func TestFindingsNewAndGone(t *testing.T) {
	t.Parallel()
	base := side("base", map[string]Finding{"aa": {Fingerprint: "aa", Rule: "tool-error", Gated: true}, "bb": {Fingerprint: "bb", Rule: "schema-construct"}})
	head := side("head", map[string]Finding{"aa": {Fingerprint: "aa", Rule: "tool-error", Gated: true}, "cc": {Fingerprint: "cc", Rule: "schema-construct"}})
	d := Compare(base, head, Options{})
	if len(d.NewFindings) != 1 || d.NewFindings[0].Fingerprint != "cc" || len(d.Gone) != 1 || d.Gone[0].Fingerprint != "bb" || d.Regressed() {
		t.Errorf("%+v", d)
	}
	head.Findings["dd"] = Finding{Fingerprint: "dd", Rule: "jsonrpc-error", Gated: true}
	if d := Compare(base, head, Options{}); !d.Regressed() || d.Regressions[0] != "1 new finding fails the gate" {
		t.Errorf("a new gated finding: %q", d.Regressions)
	}
}

func TestCoverageGainedAndLost(t *testing.T) {
	t.Parallel()
	base := side("base", nil, timed("a", 0, 0, 1), timed("b", 0, 0, 0))
	head := side("head", nil, timed("a", 0, 0, 0), timed("b", 0, 0, 3))
	d := Compare(base, head, Options{})
	if len(d.Coverage) != 1 || strings.Join(d.Coverage[0].Gained, ",") != "b" || strings.Join(d.Coverage[0].Lost, ",") != "a" {
		t.Errorf("%+v", d.Coverage)
	}
}

// The Markdown for a pull-request comment stays under its bound however
// much changed, and says how much it left out.
func TestMarkdownIsBounded(t *testing.T) {
	t.Parallel()
	head := map[string]Finding{}
	for i := range 20_000 {
		fp := fmt.Sprintf("%032x", i)
		head[fp] = Finding{Fingerprint: fp, Rule: "tool-error", File: "run.jsonl", Line: i + 1, Message: strings.Repeat("a | <b> ", 20), Gated: true}
	}
	d := Compare(side("base", nil), side("head", head), Options{})
	var b bytes.Buffer
	if err := d.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if b.Len() > MaxMarkdownBytes || !strings.Contains(out, "- … and 19950 more") || !strings.Contains(out, `a \| &lt;b&gt;`) {
		t.Errorf("%d bytes:\n%s", b.Len(), out[:min(len(out), 2000)])
	}
}

// A side whose run followed fewer labels than it met says so: those
// labels are not compared, which the diff must not pass over in silence.
func TestASidePastTheLabelCapIsNoted(t *testing.T) {
	t.Parallel()
	base, head := side("base", nil), side("head", nil)
	head.Usage.MaxLabels, head.Usage.SessionsPastLabelCap = 10_000, 7
	d := Compare(base, head, Options{})
	want := "head: 10000 server labels followed, the most a run keeps: the usage and coverage of 7 sessions under later labels were not followed, and are not compared"
	if len(d.Notes) != 1 || d.Notes[0] != want {
		t.Errorf("notes %q, want %q", d.Notes, want)
	}
}
