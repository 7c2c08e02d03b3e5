package main

import (
	"regexp"
	"strings"
	"testing"
)

// realCaptures are the eleven captures of ../shared/captures.
var realCaptures = []string{
	"02-filesystem-stdio-clean.jsonl", "03-filesystem-stdio-iserror.jsonl", "05-everything-protocol-errors.jsonl",
	"07-schema-notion-toolslist.jsonl", "09-drift-filesystem-old-2025.1.14.jsonl", "10-drift-filesystem-new-2026.8.31.jsonl",
	"14-cancel-abortsignal.jsonl", "16-invalid-frames-bad-transport-arg.jsonl", "18-http-everything-streamable-tsclient.jsonl",
	"20-http-2026-mcp-proxy-goclient.jsonl", "24-sequential-thinking-goclient.jsonl",
}

// findingLine is a text finding line: FILE:LINE: [✗ ]SEVERITY … (rule-id).
var findingLine = regexp.MustCompile(`^\S.*?:(\d+:)? (✗ )?(error|warning|note) .* \(([a-z0-9-]+)\)$`)

// Done when (issue 23): the eleven real captures checked together with
// default flags print at most one line per gated finding plus one line per
// folded group, a session line per session and one verdict (412 lines
// before the issue).
func TestRealCapturesTextIsShort(t *testing.T) {
	t.Parallel()
	// each run with a home of its own: a run records the baselines the
	// next would be compared with
	cli := ownHome(t)
	var paths []string
	for _, name := range realCaptures {
		paths = append(paths, sharedCapture(t, name))
	}
	rep := jsonReport(t, cli, 1, paths...)
	gated, other, sessions := 0, 0, len(rep.Sessions)
	groups := map[string]bool{} // session and rule of the findings that do not fail the gate
	for _, s := range rep.Sessions {
		for _, f := range s.Findings {
			if f.Level == "error" {
				gated++
			} else {
				other++
				groups[s.ID+" "+f.Rule] = true
			}
		}
	}
	_, out, _ := ownHome(t).invoke(t, "", paths...)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var gatedLines, otherLines, sessionLines, verdicts, rest int
	for _, l := range lines {
		switch m := findingLine.FindStringSubmatch(l); {
		case m != nil && m[2] != "":
			gatedLines++
		case m != nil:
			otherLines++
		case strings.HasPrefix(l, "session "):
			sessionLines++
		case strings.HasPrefix(l, "11 captures, 11 sessions: "):
			verdicts++
		case strings.HasPrefix(l, "check failed: "), strings.HasPrefix(l, "drift of server "):
			rest++ // a session's failed signals, the head of its drift block
		case strings.HasPrefix(l, "note: "), strings.HasPrefix(l, "config: "), strings.HasPrefix(l, "coverage "), strings.HasPrefix(l, "rules: "):
			rest++ // once a run: what it was told and did not do, coverage per server, what the rules judged
		default:
			t.Errorf("a line that is neither a finding, a session, a gate line nor the verdict: %q", l)
		}
	}
	t.Logf("figure: %d text lines for %d sessions, %d gated findings (%d lines), %d other findings in %d rule groups (%d lines), %d gate and drift lines",
		len(lines), sessions, gated, gatedLines, other, len(groups), otherLines, rest)
	if gatedLines == 0 || gatedLines > gated {
		t.Errorf("%d lines for %d gated findings", gatedLines, gated)
	}
	if otherLines > 3*len(groups) { // a fold is one line, or a line per message for at most three messages
		t.Errorf("%d lines for the findings of %d rule groups that do not fail the gate", otherLines, len(groups))
	}
	if sessionLines != sessions || verdicts != 1 || !strings.HasSuffix(out, "; check failed\n") {
		t.Errorf("%d session lines for %d sessions, %d verdicts:\n%s", sessionLines, sessions, verdicts, out)
	}
	if len(lines) > 120 {
		t.Errorf("%d lines of text (412 before issue 23):\n%s", len(lines), out)
	}
	// the same run under --verbose lists every finding
	_, verbose, _ := ownHome(t).invoke(t, "", append([]string{"--verbose"}, paths...)...)
	if n := strings.Count(verbose, "[fingerprint "); n != gated+other {
		t.Errorf("--verbose lists %d findings, want %d", n, gated+other)
	}
}
