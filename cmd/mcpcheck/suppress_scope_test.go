package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/suppress"
)

// suppress --all --from accepts every finding a capture shows now, one
// entry per fingerprint filled from the finding; the capture then passes,
// and a new finding still fails.
func TestSuppressAll(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	demo := testdata("demo-session.jsonl") // baseline, tool-error, pending-request
	file := filepath.Join(t.TempDir(), "s.json")
	var before []report.JSONFinding
	for _, f := range findingsOf(jsonReport(t, cli, 1, demo)) {
		if f.Rule != "baseline" { // about the baseline directory, not the capture: left out
			before = append(before, f)
		}
	}
	code, out, errs := cli.invoke(t, "", "suppress", "--all", "--from", demo, "--reason", "accepted as of today", "--file", file)
	if code != 0 || errs != "" || out != file+": 2 added, 0 updated, 2 in all\n" || len(before) != 2 {
		t.Fatalf("suppress --all: exit %d, stderr %q, %q; %d findings", code, errs, out, len(before))
	}
	set := readSet(t, file)
	for _, f := range before {
		i := slices.IndexFunc(set.Entries, func(e *suppress.Suppression) bool { return e.Fingerprint == f.Fingerprint })
		if i < 0 {
			t.Errorf("no entry for %s %s", f.Rule, f.Fingerprint)
			continue
		}
		if e := set.Entries[i]; e.Rule != f.Rule || e.Label != "notes" || e.Subject == "" || e.Message != f.Message || e.Reason != "accepted as of today" {
			t.Errorf("entry %+v for %+v", e, f)
		}
	}
	rep := jsonReport(t, cli, 0, "--suppressions", file, demo)
	if !rep.Passed || rep.Sessions[0].Suppressed != 2 {
		t.Errorf("after --all: passed %v, %d suppressed", rep.Passed, rep.Sessions[0].Suppressed)
	}
	// a second time updates, adds nothing
	if _, out, _ := cli.invoke(t, "", "suppress", "--all", "--from", demo, "--reason", "again", "--file", file); out != file+": 0 added, 2 updated, 2 in all\n" {
		t.Errorf("suppress --all again: %q", out)
	}
	// --rule narrows it, in any case
	narrow := filepath.Join(t.TempDir(), "s.json")
	if code, out, errs := cli.invoke(t, "", "suppress", "--all", "--from", demo, "--rule", "Tool-Error", "--reason", "known", "--file", narrow); code != 0 || out != narrow+": 1 added, 0 updated, 1 in all\n" {
		t.Fatalf("--all --rule: exit %d %q %q", code, out, errs)
	}
	if e := readSet(t, narrow).Entries; len(e) != 1 || e[0].Rule != "tool-error" || e[0].Fingerprint == "" {
		t.Errorf("--all --rule entries %+v", e)
	}
}

func TestSuppressAllAndScopeErrors(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	demo := testdata("demo-session.jsonl")
	file := filepath.Join(t.TempDir(), "s.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--all", "--reason", "x"}, "--all needs --from CAPTURE"},
		{[]string{"--all", "--from", demo, "0123456789abcdef0123456789abcdef", "--reason", "x"}, "--all accepts every finding; give it no FINGERPRINT"},
		{[]string{"--all", "--from", demo}, "--reason is required"},
		{[]string{"--all", "--from", demo, "--rule", "tool-erorr", "--reason", "x"}, `suppress: --rule: unknown rule "tool-erorr" (did you mean tool-error?)`},
		{[]string{"--all", "--from", demo, "--rule", "late-result", "--reason", "x"}, "no late-result finding in " + demo + ": nothing to accept"},
		{[]string{"--all", "--from", demo, "--label", "ntoes", "--reason", "x"}, `no session of label "ntoes" in ` + demo + ` (did you mean notes?); its labels are notes`},
		{[]string{"--label", "notes", "--reason", "x"}, "--label goes with --all or --rule"},
		{[]string{"--rule", "tool-error", "--from", demo, "--reason", "x"}, "--rule goes with --all --from CAPTURE, or alone"},
		{[]string{"--reason", "x"}, "suppress needs FINGERPRINTs (check --show-fingerprints shows them), --all --from CAPTURE, or --rule RULE"},
	} {
		code, out, errs := cli.invoke(t, "", append([]string{"suppress", "--file", file}, c.args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q, stderr %q; want %q", c.args, code, out, errs, c.want)
		}
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("a refused suppress wrote the file")
	}
}

// A scoped entry accepts every finding of its rule in sessions of its
// label, and nothing else; an entry of another label is not stale when
// its label is absent, one of a present label that matched nothing is.
func TestScopedSuppression(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	demo := testdata("demo-session.jsonl") // label notes: baseline, tool-error, pending-request
	file := filepath.Join(t.TempDir(), "s.json")
	if code, out, errs := cli.invoke(t, "", "suppress", "--rule", "Pending-Request", "--label", "notes", "--reason", "pings go unanswered", "--file", file); code != 0 || out != file+": 1 added, 0 updated, 1 in all\n" {
		t.Fatalf("suppress --rule: exit %d %q %q", code, out, errs)
	}
	if e := readSet(t, file).Entries; len(e) != 1 || !e[0].Scoped() || e[0].Rule != "pending-request" || e[0].Label != "notes" {
		t.Fatalf("entries %+v", e)
	}
	rep := jsonReport(t, cli, 1, "--suppressions", file, demo)
	for _, f := range findingsOf(rep) {
		if suppressed := f.Suppressed != nil; suppressed != (f.Rule == "pending-request") {
			t.Errorf("%s suppressed: %v", f.Rule, suppressed)
		}
	}
	_, text, _ := cli.invoke(t, "", "--suppressions", file, demo)
	if !regexp.MustCompile(`(?m)^\S+demo-session.jsonl:16: note client ping \(id 6\) was never answered \(suppressed: pings go unanswered\) \(pending-request\)$`).MatchString(text) {
		t.Errorf("text:\n%s", text)
	}

	// other labels, and a rule with nothing to accept
	other := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(other, []byte(`{"version": 1, "suppressions": [
  {"rule": "pending-request", "label": "elsewhere", "reason": "another server"},
  {"rule": "late-result", "label": "notes", "reason": "none here"}
]}`), 0o644)
	rep = jsonReport(t, cli, 1, "--suppressions", other, demo)
	var stale []string
	for _, f := range findingsOf(rep) {
		if f.Suppressed != nil {
			t.Errorf("%s suppressed by an entry of another label or rule", f.Rule)
		}
		if f.Rule == "stale-suppression" {
			stale = append(stale, f.Message)
		}
	}
	if len(stale) != 1 || stale[0] != `suppression of every late-result finding of label "notes" matched no finding` {
		t.Errorf("stale findings %q", stale)
	}

	// a rule the catalogue does not know is refused, naming the line
	bad := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(bad, []byte("{\"suppressions\": [\n  {\"rule\": \"pending-reqest\", \"reason\": \"x\"}\n]}"), 0o644)
	if code, out, errs := cli.invoke(t, "", "--suppressions", bad, demo); code != exitUsage || out != "" ||
		!strings.Contains(errs, bad+`:2: unknown rule "pending-reqest" (did you mean pending-request?)`) {
		t.Errorf("unknown scoped rule: exit %d, stderr %q", code, errs)
	}
}

// The fingerprints text shows are the ones JSON and suppress use.
func TestShowFingerprintsMatchJSON(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	demo := testdata("demo-session.jsonl")
	_, text, _ := cli.invoke(t, "", "--show-fingerprints", demo)
	for _, f := range findingsOf(jsonReport(t, cli, 1, demo)) {
		if !strings.Contains(text, " [fingerprint "+f.Fingerprint+"] ("+f.Rule+")\n") {
			t.Errorf("text does not show %s's fingerprint %s:\n%s", f.Rule, f.Fingerprint, text)
		}
	}
	if code, _, errs := cli.invoke(t, "", "--quiet", "--verbose", demo); code != exitUsage || !strings.Contains(errs, "--quiet and --verbose") {
		t.Errorf("--quiet --verbose: exit %d %q", code, errs)
	}
}

func readSet(t *testing.T, file string) *suppress.Suppressions {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	set, err := suppress.Parse(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// "All schema-construct notes of server notion", on the real captures: the
// Notion capture's 19 are accepted, the everything server's are not.
func TestScopedSuppressionRealCaptures(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	notion, everything := sharedCapture(t, "07-schema-notion-toolslist.jsonl"), sharedCapture(t, "05-everything-protocol-errors.jsonl")
	file := filepath.Join(t.TempDir(), "s.json")
	if code, _, errs := cli.invoke(t, "", "suppress", "--rule", "schema-construct", "--label", "notion", "--reason", "Notion's generated schemas", "--file", file); code != 0 {
		t.Fatalf("suppress --rule: %s", errs)
	}
	rep := jsonReport(t, cli, 1, "--suppressions", file, notion, everything)
	for _, s := range rep.Sessions {
		n := 0
		for _, f := range s.Findings {
			if f.Rule == "schema-construct" && f.Suppressed != nil {
				n++
			}
		}
		if want := map[string]int{"notion": 19, "everything": 0}[s.Label]; n != want {
			t.Errorf("session %s (%s): %d schema-construct findings suppressed, want %d", s.ID, s.Label, n, want)
		}
	}
}
