package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/report/sariftest"
	"github.com/mcpcheck/mcpcheck/suppress"
)

// clock is a clock stopped at at: the time suppressions expire against
// and baselines are dated by.
func clock(at time.Time) func() time.Time {
	return func() time.Time { return at }
}

// jsonReport runs check --format json with args and decodes the report.
func jsonReport(t *testing.T, cli *command, wantCode int, args ...string) report.JSONReport {
	t.Helper()
	code, out, errs := cli.invoke(t, "", append([]string{"--format", "json"}, args...)...)
	if code != wantCode || errs != "" {
		t.Fatalf("exit %d (want %d), stderr %q", code, wantCode, errs)
	}
	var rep report.JSONReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// findingsOf lists a JSON report's findings.
func findingsOf(rep report.JSONReport) []report.JSONFinding {
	var out []report.JSONFinding
	for _, s := range rep.Sessions {
		out = append(out, s.Findings...)
	}
	return out
}

// rerecord rewrites a capture as a second recording of the same traffic
// would differ: other timestamps, another session id, other request ids.
func rerecord(capture []byte) []byte {
	again := regexp.MustCompile(`"ts":"2026-11-29T14:`).ReplaceAll(capture, []byte(`"ts":"2027-03-02T09:`))
	again = regexp.MustCompile(`"session_id":"([^"]*)"`).ReplaceAll(again, []byte(`"session_id":"${1}-again"`))
	return regexp.MustCompile(`"id":(\d+)`).ReplaceAllFunc(again, func(m []byte) []byte {
		id, _ := strconv.Atoi(string(m[len(`"id":`):]))
		return fmt.Appendf(nil, `"id":%d`, id+1000)
	})
}

// withoutLines drops lines from..to (1-based, inclusive) of a capture and
// renumbers seq, as a recording without those frames would be.
func withoutLines(capture []byte, from, to int) []byte {
	lines := bytes.SplitAfter(capture, []byte("\n"))
	kept := slices.Concat(lines[:from-1], lines[to:])
	seq := regexp.MustCompile(`"seq":\d+`)
	for i := range kept {
		kept[i] = seq.ReplaceAll(kept[i], fmt.Appendf(nil, `"seq":%d`, i+1))
	}
	return bytes.Join(kept, nil)
}

func writeTemp(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSuppressRealCapture is the "done when": the 9 tool-error
// findings of a real capture suppressed by the fingerprints --format json
// shows pass the default gate and are listed as suppressed in every
// format; a re-recording stays suppressed; dropping the last failing call
// leaves one stale entry; an expired entry gates again.
func TestSuppressRealCapture(t *testing.T) {
	t.Parallel()
	capture := sharedCapture(t, "03-filesystem-stdio-iserror.jsonl")
	// 03's schema-construct observations (its tools declare draft-07 under
	// 2025-11-25) are not what this test counts.
	const noObs = "--disable=schema-construct"
	dir := t.TempDir()
	// The first run records the server's tool baseline in $MCPCHECK_HOME
	// (a baseline note); later runs verify it silently, so only the
	// suppressed findings remain.
	cli := withEnv(map[string]string{"NO_COLOR": "1", "MCPCHECK_HOME": dir})
	cli.now = clock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	const reason = "the job exercises failing tool calls on purpose"

	var fps []string
	for _, f := range findingsOf(jsonReport(t, cli, 1, noObs, capture)) {
		if f.Rule == "tool-error" {
			fps = append(fps, f.Fingerprint)
		}
	}
	if len(fps) != 9 {
		t.Fatalf("%d tool-error findings, want 9", len(fps))
	}
	file := filepath.Join(dir, "suppressions.json")
	code, out, errs := cli.invoke(t, "", append([]string{"suppress", "--reason", reason, "--file", file}, fps...)...)
	if code != 0 || errs != "" || out != file+": 9 added, 0 updated, 9 in all\n" {
		t.Fatalf("suppress: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	t.Run("every format", func(t *testing.T) {
		summary := filepath.Join(dir, "step-summary.md")
		cli := withEnv(map[string]string{"NO_COLOR": "1", "GITHUB_STEP_SUMMARY": summary, "MCPCHECK_HOME": dir})
		cli.now = clock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
		outs := map[string]string{}
		for _, format := range report.Formats() {
			code, out, errs := cli.invoke(t, "", "--format", format, "--suppressions", file, noObs, capture)
			if code != 0 || errs != "" {
				t.Errorf("%s: exit %d, stderr %q", format, code, errs)
			}
			outs[format] = out
		}
		text := outs["text"]
		if !strings.Contains(text, ": note 9 tool-error findings suppressed; --verbose lists them (tool-error)\n") || strings.Contains(text, "errors=") ||
			!strings.Contains(text, ": suppressed=9\n") || !strings.HasSuffix(text, "; 9 suppressed; check passed\n") {
			t.Errorf("text:\n%s", text)
		}
		_, text, _ = cli.invoke(t, "", "--verbose", "--suppressions", file, noObs, capture)
		if n := strings.Count(text, ": note tool "); n != 9 || strings.Count(text, "(suppressed: "+reason+") [fingerprint ") != 9 ||
			!strings.Contains(text, "errors=0 ") || !strings.Contains(text, " suppression=0 suppressed=9\n") || !strings.HasSuffix(text, "check passed\n") {
			t.Errorf("text:\n%s", text)
		}

		var rep report.JSONReport
		if err := json.Unmarshal([]byte(outs["json"]), &rep); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range findingsOf(rep) {
			if f.Suppressed != nil && f.Suppressed.Reason == reason && f.Suppressed.Expires == nil && f.Level == "note" && !f.Gated {
				n++
			}
		}
		if n != 9 || !rep.Passed || rep.Sessions[0].Suppressed != 9 || rep.Sessions[0].Counts["error"] != 0 {
			t.Errorf("json: %d suppressed findings, passed %v, counts %v", n, rep.Passed, rep.Sessions[0].Counts)
		}

		var suites junit.Testsuites
		if err := xml.Unmarshal([]byte(outs["junit"]), &suites); err != nil {
			t.Fatal(err)
		}
		var skipped *junit.Testcase
		notObserved := 0 // rules with nothing to judge are skipped cases too (issue 24)
		for i, c := range suites.Suites[0].Testcases {
			if c.Name == "suppressed" {
				skipped = &suites.Suites[0].Testcases[i]
			} else if c.Skipped != nil && strings.HasPrefix(c.Skipped.Message, "not observed") {
				notObserved++
			}
		}
		if suites.Failures != 0 || suites.Skipped != 1+notObserved || skipped == nil || skipped.Skipped == nil ||
			skipped.Skipped.Message != "9 suppressed findings" || strings.Count(skipped.Skipped.Data, "(suppressed: "+reason+") (tool-error)\n") != 9 {
			t.Errorf("junit: failures %d skipped %d, case %+v", suites.Failures, suites.Skipped, skipped)
		}

		sariftest.Validate(t, []byte(outs["sarif"]))
		var log struct {
			Runs []struct {
				Results []struct {
					RuleID       string `json:"ruleId"`
					Level        string `json:"level"`
					Suppressions []struct {
						Kind, Status, Justification string
					} `json:"suppressions"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(outs["sarif"]), &log); err != nil {
			t.Fatal(err)
		}
		n = 0
		for _, r := range log.Runs[0].Results {
			if len(r.Suppressions) == 1 && r.Suppressions[0].Kind == "external" && r.Suppressions[0].Status == "accepted" &&
				r.Suppressions[0].Justification == reason && r.RuleID == "tool-error" && r.Level == "note" {
				n++
			}
		}
		if n != 9 || len(log.Runs[0].Results) != 9 {
			t.Errorf("sarif: %d of %d results carry the suppression, want 9 of 9", n, len(log.Runs[0].Results))
		}

		if outs["github"] != "" {
			t.Errorf("github annotated suppressed findings:\n%s", outs["github"])
		}
		if s := string(readOrFail(t, summary)); !strings.Contains(s, "9 findings (0 failing the gate, 9 suppressed)") {
			t.Errorf("step summary does not count the suppressed findings:\n%s", s)
		}
	})

	data, err := os.ReadFile(capture)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("re-recorded", func(t *testing.T) {
		again := rerecord(data)
		if bytes.Equal(again, data) || !bytes.Contains(again, []byte(`"id":1010`)) {
			t.Fatal("the rewrite changed no request id")
		}
		rep := jsonReport(t, cli, 0, "--suppressions", file, noObs, writeTemp(t, dir, "again.jsonl", again))
		if s := rep.Sessions[0]; s.Suppressed != 9 || len(s.Findings) != 9 || s.ID == "filesystem-3639-42e3f026fab9" {
			t.Errorf("re-recorded: %d suppressed, %d findings in session %s", s.Suppressed, len(s.Findings), s.ID)
		}
	})

	t.Run("last failing call removed", func(t *testing.T) {
		// lines 25 and 26 are get_file_info's call and its isError answer
		if !bytes.Contains(bytes.SplitAfter(data, []byte("\n"))[24], []byte(`"name":"get_file_info"`)) {
			t.Fatal("line 25 of the capture is not the get_file_info call")
		}
		rep := jsonReport(t, cli, 0, "--suppressions", file, noObs, writeTemp(t, dir, "fixed.jsonl", withoutLines(data, 25, 26)))
		var stale []report.JSONFinding
		for _, f := range findingsOf(rep) {
			if f.Rule == "stale-suppression" {
				stale = append(stale, f)
			}
		}
		if len(stale) != 1 || rep.Sessions[0].Suppressed != 8 || len(findingsOf(rep)) != 9 {
			t.Fatalf("%d stale-suppression findings, %d suppressed, findings %+v", len(stale), rep.Sessions[0].Suppressed, findingsOf(rep))
		}
		if stale[0].File != file || stale[0].Level != "note" || !strings.Contains(stale[0].Message, fps[8]) {
			t.Errorf("stale-suppression %+v, want it at the get_file_info entry %s of %s", stale[0], fps[8], file)
		}
	})

	t.Run("expired", func(t *testing.T) {
		// the get_file_info entry held until yesterday
		code, _, errs := cli.invoke(t, "", "suppress", "--reason", "until the sandbox has the file", "--expires", "2026-11-30", "--file", file, "--from", capture, fps[8])
		if code != 0 || errs != "" {
			t.Fatalf("suppress --expires: exit %d, %s", code, errs)
		}
		rep := jsonReport(t, cli, 0, "--suppressions", file, noObs, capture)
		if rep.Sessions[0].Suppressed != 9 {
			t.Errorf("on its last day the entry must still suppress: %d suppressed", rep.Sessions[0].Suppressed)
		}
		tomorrow := *cli
		tomorrow.now = clock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
		rep = jsonReport(t, &tomorrow, 1, "--suppressions", file, noObs, capture)
		var expired, gated []report.JSONFinding
		for _, f := range findingsOf(rep) {
			switch {
			case f.Rule == "expired-suppression":
				expired = append(expired, f)
			case f.Gated:
				gated = append(gated, f)
			}
		}
		if len(expired) != 1 || len(gated) != 1 || gated[0].Fingerprint != fps[8] || rep.Sessions[0].Suppressed != 8 ||
			strings.Join(rep.Sessions[0].Failed, ",") != "error" {
			t.Errorf("expired: %+v; gated %+v; %d suppressed", expired, gated, rep.Sessions[0].Suppressed)
		}
		code, out, _ := tomorrow.invoke(t, "", "--suppressions", file, noObs, capture)
		if code != 1 || !strings.Contains(out, "expired at the end of 2026-11-30 and no longer suppresses (expired-suppression)") ||
			strings.Count(out, ": ✗ error ") != 1 || !strings.Contains(out, "check failed: error") {
			t.Errorf("text after expiry: exit %d\n%s", code, out)
		}
	})
}

func readOrFail(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// demoFingerprint is the fingerprint of the demo capture's tool-error.
func demoFingerprint(t *testing.T, cli *command) string {
	t.Helper()
	for _, f := range findingsOf(jsonReport(t, cli, 1, testdata("demo-session.jsonl"))) {
		if f.Rule == "tool-error" {
			return f.Fingerprint
		}
	}
	t.Fatal("the demo capture has no tool-error")
	return ""
}

// TestSuppressCommand: entries filled from the captures, one per
// fingerprint however often suppress runs, sorted, written atomically
// through links with the file's mode kept.
func TestSuppressCommand(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	cli.now = clock(time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC))
	demo := testdata("demo-session.jsonl")
	fp := demoFingerprint(t, cli)
	var pendingFP string
	for _, f := range findingsOf(jsonReport(t, cli, 1, demo)) {
		if f.Rule == "pending-request" {
			pendingFP = f.Fingerprint
		}
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}

	code, out, errs := cli.invoke(t, "", "suppress", "--from", demo, "--reason", "first", "--expires", "2026-12-31", "--file", link, strings.ToUpper(fp), pendingFP, fp)
	if code != 0 || errs != "" || out != link+": 2 added, 0 updated, 2 in all\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	set, err := suppress.Parse(real, readOrFail(t, real))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Entries) != 2 || set.Entries[0].Fingerprint > set.Entries[1].Fingerprint {
		t.Fatalf("entries %+v, want 2 sorted by fingerprint", set.Entries)
	}
	for _, e := range set.Entries {
		if e.Label != "notes" || e.Reason != "first" || e.Expires != "2026-12-31" || e.Rule == "" || e.Subject == "" || e.Message == "" {
			t.Errorf("entry not filled from the capture: %+v", e)
		}
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", info, err)
	}
	if err := os.Chmod(real, 0o600); err != nil {
		t.Fatal(err)
	}

	// Again with another reason and no expiry, without --from: the entry
	// is updated in place and keeps what it says of its finding.
	code, out, errs = cli.invoke(t, "", "suppress", "--reason", "second", "--file", real, fp)
	if code != 0 || errs != "" || out != real+": 0 added, 1 updated, 2 in all\n" {
		t.Fatalf("update: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	set, err = suppress.Parse(real, readOrFail(t, real))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range set.Entries {
		if e.Fingerprint == fp && (e.Reason != "second" || e.Expires != "" || e.Rule != "tool-error") {
			t.Errorf("updated entry %+v", e)
		}
	}
	if info, _ := os.Stat(real); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's 0600 kept", info.Mode().Perm())
	}
	if !bytes.Equal(readOrFail(t, real), set.Marshal()) {
		t.Error("the file is not in its canonical form")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	// Nothing is written when a fingerprint names no finding of --from.
	before := readOrFail(t, real)
	other := strings.Repeat("ab", 16)
	code, out, errs = cli.invoke(t, "", "suppress", "--from", demo, "--reason", "x", "--file", real, fp, other)
	if code != 2 || out != "" || !strings.Contains(errs, "fingerprint "+other+" names no finding of "+demo) {
		t.Errorf("unknown fingerprint with --from: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if !bytes.Equal(readOrFail(t, real), before) {
		t.Error("a failed suppress changed the file")
	}
	// Without --from any well-formed fingerprint is taken as it is.
	if code, _, errs := cli.invoke(t, "", "suppress", "--reason", "x", "--file", real, other); code != 0 {
		t.Errorf("a well-formed fingerprint without --from: exit %d, %s", code, errs)
	}
}

// TestSuppressUsageErrors: exit 2, nothing on stdout, one line on stderr,
// and the file untouched.
func TestSuppressUsageErrors(t *testing.T) {
	t.Parallel()
	cli := defaultCommand()
	cli.now = clock(time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC))
	dir := t.TempDir()
	fp := strings.Repeat("0f", 16)
	bad := writeTemp(t, dir, "bad.json", []byte("{\"suppressions\": [\n  {\"fingerprint\": \""+fp+"\"}\n]}\n"))
	file := filepath.Join(dir, "new.json")
	for _, c := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no fingerprint", []string{"--reason", "x", "--file", file}, "suppress needs FINGERPRINTs"},
		{"no reason", []string{"--file", file, fp}, "--reason is required"},
		{"blank reason", []string{"--reason", " ", "--file", file, fp}, "--reason is required"},
		{"bad fingerprint", []string{"--reason", "x", "--file", file, "tools/call read_file"}, `"tools/call read_file" is not a fingerprint`},
		{"bad date", []string{"--reason", "x", "--expires", "next week", "--file", file, fp}, `--expires "next week" is not a date YYYY-MM-DD`},
		{"past date", []string{"--reason", "x", "--expires", "2026-08-31", "--file", file, fp}, "--expires 2026-08-31 is already past"},
		{"bad existing file", []string{"--reason", "x", "--file", bad, fp}, bad + ":2: entry 1 (fingerprint \"" + fp + "\"): no reason"},
		{"unknown flag", []string{"--reason", "x", "--until", "2027-01-01", fp}, "unknown flag: --until"},
		{"missing capture", []string{"--reason", "x", "--file", file, "--from", filepath.Join(dir, "nope.jsonl"), fp}, "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli.invoke(t, "", append([]string{"suppress"}, c.args...)...)
			if code != 2 || out != "" || !strings.Contains(errs, c.stderr) || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q (want it to contain %q)", code, out, errs, c.stderr)
			}
		})
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("a failed suppress created the file")
	}
	if code, out, _ := cli.invoke(t, "", "suppress", "--help"); code != 0 || !strings.Contains(out, "--expires") {
		t.Errorf("suppress --help: exit %d\n%s", code, out)
	}
}

// TestBadSuppressionsFileIsExit2: check names the file and the entry, for
// every format, writes nothing to stdout and creates no --output file.
func TestBadSuppressionsFileIsExit2(t *testing.T) {
	t.Parallel()
	cli := ownHome(t)
	dir := t.TempDir()
	fp := strings.Repeat("0f", 16)
	entry := func(members string) []byte {
		return []byte("{\n  \"version\": 1,\n  \"suppressions\": [\n    {\"fingerprint\": \"" + strings.Repeat("1e", 16) + "\", \"reason\": \"ok\"},\n    " + members + "\n  ]\n}\n")
	}
	cases := []struct {
		name, file string
		stderr     string
	}{
		{"not JSON", writeTemp(t, dir, "notjson.json", []byte("fingerprint,reason\n"+fp+",known\n")), "notjson.json:1: not JSON"},
		{"no reason", writeTemp(t, dir, "noreason.json", entry(`{"fingerprint": "`+fp+`"}`)), "noreason.json:5: entry 2 (fingerprint \"" + fp + "\"): no reason"},
		{"bad date", writeTemp(t, dir, "date.json", entry(`{"fingerprint": "`+fp+`", "reason": "x", "expires": "2026-13-01"}`)), "date.json:5: entry 2 (fingerprint \"" + fp + "\"): expires \"2026-13-01\" is not a date"},
		{"duplicate", writeTemp(t, dir, "dup.json", entry(`{"fingerprint": "`+strings.Repeat("1e", 16)+`", "reason": "again"}`)), "dup.json:5: entry 2 (fingerprint \"" + strings.Repeat("1e", 16) + "\"): the fingerprint is already suppressed at line 4"},
		{"duplicate member", writeTemp(t, dir, "dupmember.json", entry(`{"fingerprint": "`+fp+`", "reason": "x", "reason": "y"}`)), "dupmember.json:5: entry 2 (fingerprint \"" + fp + "\"): member \"reason\" appears twice"},
		{"missing", filepath.Join(dir, "missing.json"), "missing.json does not exist"},
		{"a directory", dir, "is a directory"},
	}
	for _, c := range cases {
		for _, format := range report.Formats() {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				sarif := filepath.Join(t.TempDir(), "out.sarif")
				code, out, errs := cli.invoke(t, "", "--format", format, "--output", "sarif="+sarif, "--suppressions", c.file, testdata("demo-session.jsonl"))
				if code != 2 || out != "" || !strings.Contains(errs, "--suppressions: ") || !strings.Contains(errs, c.stderr) || strings.Count(errs, "\n") != 1 {
					t.Errorf("exit %d, stdout %q, stderr %q (want it to contain %q)", code, out, errs, c.stderr)
				}
				if _, err := os.Stat(sarif); err == nil {
					t.Error("an --output file was created")
				}
			})
		}
	}
	if code, _, errs := cli.invoke(t, "", "--suppressions=", testdata("demo-session.jsonl")); code != 2 || !strings.Contains(errs, "--suppressions is empty") {
		t.Errorf("empty --suppressions: exit %d, %s", code, errs)
	}
}

// TestDefaultSuppressionsFile: check reads .mcpcheck-suppressions.json in
// the source root when it exists, and names it relative in reports.
func TestDefaultSuppressionsFile(t *testing.T) {
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	demo, err := filepath.Abs(testdata("demo-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fp := demoFingerprint(t, cli)
	t.Chdir(t.TempDir())
	if code, out, _ := cli.invoke(t, "", demo); code != 1 || strings.Contains(out, "(suppressed:") {
		t.Fatalf("without a suppressions file: exit %d\n%s", code, out)
	}
	if code, _, errs := cli.invoke(t, "", "suppress", "--reason", "accepted in review", fp, strings.Repeat("ab", 16)); code != 0 {
		t.Fatalf("suppress into the default file: exit %d, %s", code, errs)
	}
	code, out, errs := cli.invoke(t, "", demo)
	if code != 0 || errs != "" || !strings.Contains(out, "(suppressed: accepted in review) (tool-error)") ||
		!strings.Contains(out, "\n.mcpcheck-suppressions.json:8: warning suppression abababababababababababababababab matched no finding (stale-suppression)\n") {
		t.Errorf("with the default file: exit %d, stderr %q\n%s", code, errs, out)
	}
	if err := os.WriteFile(defaultSuppressions, []byte(`{"suppressions": [{"fingerprint": "`+fp+`"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli.invoke(t, "", demo); code != 2 || !strings.Contains(errs, ".mcpcheck-suppressions.json:1: entry 1") {
		t.Errorf("a bad default file: exit %d, stderr %q", code, errs)
	}
}

// Done when: 8 concurrent suppress processes adding different entries to
// one file keep all 8 (each re-reads the file under the update lock), in
// every round; none fails and no temporary or lock file is left.
func TestConcurrentSuppressKeepsEveryEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the multi-process test")
	}
	for round := range 4 {
		dir := t.TempDir()
		file := filepath.Join(dir, "suppressions.json")
		var wg sync.WaitGroup
		outs := make([][]byte, 8)
		fails := make([]error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fp := fmt.Sprintf("%032x", i+1)
				cmd := mcpcheckProcess("suppress", "--reason", fmt.Sprintf("accepted %d", i), "--file", file, fp)
				outs[i], fails[i] = cmd.CombinedOutput()
			}()
		}
		wg.Wait()
		for i := range 8 {
			if fails[i] != nil {
				t.Errorf("round %d, run %d: %v\n%s", round, i, fails[i], outs[i])
			}
		}
		set, err := suppress.Parse(file, readTestFile(t, file))
		if err != nil {
			t.Fatal(err)
		}
		if len(set.Entries) != 8 {
			t.Fatalf("round %d: %d of 8 entries kept", round, len(set.Entries))
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("round %d: left %v", round, entries)
		}
	}
}
