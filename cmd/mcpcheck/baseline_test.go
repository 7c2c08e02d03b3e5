package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/internal/atomicfile"
	"github.com/mcpcheck/mcpcheck/internal/sharedtest"
	"github.com/mcpcheck/mcpcheck/report"
)

// baselineFiles lists the files of a baseline directory.
func baselineFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// baselineDay is when the baselines of the tests are accepted.
var baselineDay = clock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))

// Done when: accepting capture 09 as the baseline, capture 10 fails a
// drift gate with its 3 added tools and the changed fields of the others
// with tiers; gating errors only, it passes as its other signals say.
func TestDriftPairAgainstAnAcceptedBaseline(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	cli.now = baselineDay
	old, cur := sharedCapture(t, "09-drift-filesystem-old-2025.1.14.jsonl"), sharedCapture(t, "10-drift-filesystem-new-2026.8.31.jsonl")
	dir := filepath.Join(t.TempDir(), "baselines")

	code, out, errs := cli.invoke(t, "", "baseline", "--accept", "--reason", "initial", "--baseline", dir, old)
	if code != 0 || errs != "" || !strings.Contains(out, `accepted the baseline of server "filesystem-drift": 11 tools from session filesystem-drift-4115-8c82f08e2691`) {
		t.Fatalf("accept: exit %d, stderr %q\n%s", code, errs, out)
	}
	files := baselineFiles(t, dir)
	if len(files) != 1 || files[0] != baseline.FileName("filesystem-drift") {
		t.Fatalf("baseline files %v", files)
	}
	b, err := baseline.Parse(readTestFile(t, filepath.Join(dir, files[0])), "filesystem-drift", files[0])
	if err != nil || b.Accepted == nil || b.Accepted.Reason != "initial" || b.Accepted.Time != "2026-11-30T09:00:00Z" || b.Accepted.Capture != old || b.Revision != "2024-11-05" {
		t.Fatalf("accepted baseline %+v, %v", b, err)
	}

	code, out, errs = cli.invoke(t, "", "check", "--fail-on", "drift", "--baseline", dir, cur)
	if code != 1 || errs != "" {
		t.Fatalf("check --fail-on drift: exit %d, stderr %q\n%s", code, errs, out)
	}
	// the three added tools, one message at one place: grouped
	added := regexp.MustCompile(`(?m)^.*:8: ✗ note 3× info: tool "…" was added since the baseline: (.*) \(tool-drift\)$`).FindAllStringSubmatch(out, -1)
	if len(added) != 1 || added[0][1] != "list_directory_with_sizes, read_media_file, read_text_file" {
		t.Errorf("added tools %v\n%s", added, out)
	}
	// the changed ones: a line each, or one line for tools whose change reads the same
	changed := 0
	lines := regexp.MustCompile(`(?m)^.*:8: ✗ \w+ (?:(\d)× )?(?:breaking|review): tool "[^"]+" changed since the baseline: .*\(tool-drift\)$`).FindAllStringSubmatch(out, -1)
	for _, l := range lines {
		if n, err := strconv.Atoi(l[1]); err == nil {
			changed += n
		} else {
			changed++
		}
	}
	if changed != 11 || strings.Count(out, ": ✗ ") != len(lines)+1 {
		t.Errorf("%d changed tools, want the other 11:\n%s", changed, out)
	}
	for _, want := range []string{
		`breaking: tool "write_file" changed since the baseline: input_schema: required argument added at /properties/content; also changed: title, output_schema, annotations (7 differences) (tool-drift)`,
		`drift of server "filesystem-drift" against its baseline ` + filepath.Join(dir, files[0]) + ` (mcpcheck baseline version 1, accepted 2026-11-30T09:00:00Z: "initial"): 3 added, 0 removed, 11 changed (breaking 10, review 1, info 3)`,
		"        /properties/path: added {\"type\":\"string\"} (breaking: required argument added)\n",
		"check failed: drift\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}

	code, out, _ = cli.invoke(t, "", "check", "--verbose", "--fail-on", "error", "--baseline", dir, cur)
	if code != 0 || !strings.Contains(out, "check passed") || strings.Count(out, "(tool-drift)") != 14 || strings.Contains(out, "✗") {
		t.Errorf("--fail-on error: exit %d\n%s", code, out)
	}

	// the baseline command shows the same drift, and none for capture 09
	code, out, _ = cli.invoke(t, "", "baseline", "--baseline", dir, cur)
	if code != 1 || strings.Count(out, "(tool-drift)") != len(lines)+1 || !strings.Contains(out, "3× info: tool \"…\" was added") {
		t.Errorf("baseline (show) of 10: exit %d\n%s", code, out)
	}
	if code, out, _ = cli.invoke(t, "", "baseline", "--baseline", dir, old); code != 0 || strings.Contains(out, "tool-drift") {
		t.Errorf("baseline (show) of 09: exit %d\n%s", code, out)
	}
	// showing never records: the directory is as accept left it
	if got := baselineFiles(t, dir); len(got) != 1 {
		t.Errorf("files after showing: %v", got)
	}
}

// Done when: with a fresh directory the baseline is only recorded; gating
// drift fails and says which directory to persist, otherwise the run
// passes and says the baseline was recorded, not verified. The next run
// verifies.
func TestFreshBaselineDirectory(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	capture := sharedCapture(t, "02-filesystem-stdio-clean.jsonl")

	// a named directory without the label's baseline: one short finding
	// naming the command that records it, in the default gate
	missing := filepath.Join(t.TempDir(), "baselines")
	code, out, _ := cli.invoke(t, "", "check", "--baseline", missing, capture)
	want := `✗ warning server "filesystem" has no baseline in ` + missing + `; nothing was verified; record one with mcpcheck baseline --accept --reason TEXT (baseline)`
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "check failed: drift") || len(baselineFiles(t, missing)) != 0 {
		t.Errorf("a named directory without a baseline: exit %d\n%s", code, out)
	}

	gated := filepath.Join(t.TempDir(), "ci-workspace", "baselines")
	code, out, _ = cli.invoke(t, "", "check", "--record-baseline", "--baseline", gated, capture)
	want = `✗ warning server "filesystem" had no baseline: its tools/list is now the baseline in ` + gated +
		`; recorded, not verified; keep ` + gated + ` (commit it or cache it) for later runs to compare against (baseline)`
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "check failed: drift") {
		t.Errorf("--record-baseline with a fresh named directory: exit %d\n%s", code, out)
	}

	plain := filepath.Join(t.TempDir(), "baselines")
	code, out, _ = cli.invoke(t, "", "check", "--record-baseline", "--fail-on", "error", "--baseline", plain, capture)
	if code != 0 || !strings.Contains(out, ": warning server \"filesystem\" had no baseline") || !strings.Contains(out, "recorded, not verified") || !strings.Contains(out, "check passed") {
		t.Errorf("a gate without drift and a fresh directory: exit %d\n%s", code, out)
	}
	// the recorded baseline is verified by the next run
	code, out, _ = cli.invoke(t, "", "check", "--fail-on", "drift", "--baseline", plain, capture)
	if code != 0 || strings.Contains(out, "(baseline)") || strings.Contains(out, "(tool-drift)") {
		t.Errorf("second run: exit %d\n%s", code, out)
	}
}

// Done when: an mcpsnoop tool-baselines directory recorded from capture 09
// yields the drift of mcpcheck's own baseline of 09, and is never written.
func TestMcpsnoopBaselineDirectory(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	snoop := sharedtest.Path(t, "baselines/mcpsnoop-filesystem-09")
	old, cur := sharedCapture(t, "09-drift-filesystem-old-2025.1.14.jsonl"), sharedCapture(t, "10-drift-filesystem-new-2026.8.31.jsonl")
	before := baselineFiles(t, snoop)

	own := t.TempDir()
	if code, out, _ := cli.invoke(t, "", "baseline", "--accept", "--reason", "09", "--baseline", own, old); code != 0 {
		t.Fatalf("accept: %d\n%s", code, out)
	}
	drift := func(dir string) (*report.JSONDrift, []string) {
		t.Helper()
		code, out, errs := cli.invoke(t, "", "check", "--format", "json", "--fail-on", "drift", "--baseline", dir, cur)
		if code != 1 || errs != "" {
			t.Fatalf("--baseline %s: exit %d, %s", dir, code, errs)
		}
		var rep report.JSONReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var messages []string
		for _, f := range rep.Sessions[0].Findings {
			messages = append(messages, f.Rule+": "+f.Message)
		}
		return rep.Sessions[0].Drift, messages
	}
	mine, mineMsgs := drift(own)
	theirs, theirMsgs := drift(snoop)
	if theirs.Format != "mcpsnoop baseline version 2" || mine.Format != "mcpcheck baseline version 1" || len(theirs.NotCompared) != 0 {
		t.Errorf("formats %q and %q, not compared %v", mine.Format, theirs.Format, theirs.NotCompared)
	}
	a, _ := json.Marshal(mine.Tools)
	b, _ := json.Marshal(theirs.Tools)
	if !bytes.Equal(a, b) || strings.Join(mineMsgs, "\n") != strings.Join(theirMsgs, "\n") || len(mine.Tools) != 14 {
		t.Errorf("the drift differs:\nmcpcheck: %s\nmcpsnoop: %s", a, b)
	}
	if after := baselineFiles(t, snoop); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("the mcpsnoop directory changed: %v → %v", before, after)
	}
	code, _, errs := cli.invoke(t, "", "baseline", "--accept", "--reason", "x", "--baseline", snoop, cur)
	if code != 2 || !strings.Contains(errs, "is an mcpsnoop tool-baselines directory") || !strings.Contains(errs, "never writes there") {
		t.Errorf("accept into the mcpsnoop directory: exit %d, %s", code, errs)
	}
}

// labelCapture is a clean 2025-11-25 session of a server labelled label
// (JSON-escaped) that lists one tool.
func labelCapture(t *testing.T, dir, name, label string) string {
	t.Helper()
	var b strings.Builder
	for i, l := range []struct{ dir, raw string }{
		{"c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`},
		{"s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"notes","version":"2"}}}`},
		{"c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"s2c", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read_note","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}}`},
	} {
		b.WriteString(`{"session_id":"s1","server_label":"` + label + `","seq":` + string(rune('1'+i)) + `,"ts":"2026-09-01T10:00:00Z","direction":"` + l.dir + `","transport":"stdio","raw":` + l.raw + "}\n")
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Done when: a label of ../../etc/passwd or with NUL bytes stays inside
// the baseline directory.
func TestHostileLabelsStayInsideTheDirectory(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b", "baselines")
	for i, label := range []string{`../../etc/passwd`, `..`, `a\u0000b`, `\u0000`, `/abs/path`, `c:\\x`} {
		capture := labelCapture(t, root, "cap"+string(rune('0'+i))+".jsonl", label)
		for _, args := range [][]string{
			{"check", "--baseline", dir, capture},
			{"baseline", "--accept", "--reason", "r", "--baseline", dir, capture},
			{"baseline", "--baseline", dir, capture},
		} {
			if code, out, errs := cli.invoke(t, "", args...); code == 2 {
				t.Fatalf("%v: exit 2: %s\n%s", args, errs, out)
			}
		}
	}
	files := baselineFiles(t, dir)
	if len(files) != 6 {
		t.Errorf("files %v, want one per label", files)
	}
	for _, f := range files {
		if !regexp.MustCompile(`^[0-9a-f]{32}\.json$`).MatchString(f) {
			t.Errorf("file %q is not named by a hash", f)
		}
	}
	var outside []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if d != nil && !d.IsDir() && filepath.Dir(p) != dir && filepath.Dir(p) != root {
			outside = append(outside, p)
		}
		return nil
	})
	if len(outside) > 0 {
		t.Errorf("files written outside the baseline directory: %v", outside)
	}
	if code, out, _ := cli.invoke(t, "", "baseline", "--reset", "--baseline", dir, filepath.Join(root, "cap0.jsonl")); code != 0 || !strings.Contains(out, `removed the baseline of server "../../etc/passwd"`) {
		t.Errorf("reset: exit %d\n%s", code, out)
	}
	if len(baselineFiles(t, dir)) != 5 {
		t.Errorf("reset removed the wrong files: %v", baselineFiles(t, dir))
	}
}

func TestBaselineAcceptReplacesAndResetRemoves(t *testing.T) {
	t.Parallel()
	cli := withEnv(map[string]string{"NO_COLOR": "1"})
	cli.now = baselineDay
	dir := t.TempDir()
	old, cur := sharedCapture(t, "09-drift-filesystem-old-2025.1.14.jsonl"), sharedCapture(t, "10-drift-filesystem-new-2026.8.31.jsonl")
	cli.invoke(t, "", "check", "--record-baseline", "--baseline", dir, old) // trust on first use
	code, out, _ := cli.invoke(t, "", "baseline", "--accept", "--reason", "upgrade to 2026.8.31", "--baseline", dir, cur)
	if code != 0 || !strings.Contains(out, "accepted the baseline of server \"filesystem-drift\": 14 tools") ||
		!strings.Contains(out, "  replacing the mcpcheck baseline version 1: 14 tools changed (breaking 10, review 1, info 3)") {
		t.Errorf("accept: exit %d\n%s", code, out)
	}
	if code, out, _ := cli.invoke(t, "", "check", "--fail-on", "drift", "--baseline", dir, cur); code != 0 {
		t.Errorf("the accepted definitions still drift: exit %d\n%s", code, out)
	}
	code, out, _ = cli.invoke(t, "", "baseline", "--reset", "--baseline", dir, cur)
	if code != 0 || !strings.Contains(out, `removed the baseline of server "filesystem-drift"`) || len(baselineFiles(t, dir)) != 0 {
		t.Errorf("reset: exit %d\n%s", code, out)
	}
	code, out, _ = cli.invoke(t, "", "baseline", "--reset", "--baseline", dir, cur)
	if code != 0 || !strings.Contains(out, `server "filesystem-drift" has no baseline in `+dir) {
		t.Errorf("second reset: exit %d\n%s", code, out)
	}
	code, out, _ = cli.invoke(t, "", "baseline", "--baseline", dir, cur)
	if code != 1 || !strings.Contains(out, `server "filesystem-drift" has no baseline in `+dir+`; nothing was verified; record one with mcpcheck baseline --accept --reason TEXT`) {
		t.Errorf("show without a baseline: exit %d\n%s", code, out)
	}
}

func TestDefaultBaselineDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	capture := labelCapture(t, root, "c.jsonl", "notes")
	name := baseline.FileName("notes")
	homes := map[string]string{"MCPCHECK_HOME": root + "/mc", "XDG_STATE_HOME": root + "/xdg", "HOME": root + "/home", "MCPSNOOP_HOME": root + "/snoop"}
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	env := maps.Clone(homes)
	env["GITHUB_WORKSPACE"] = repo // the source root
	cli := withEnv(env)
	// a plain check writes nothing anywhere, and says once that drift was not checked
	code, out, errs := cli.invoke(t, "", "check", capture)
	if code != 0 || errs != "" || strings.Count(out, "drift not checked") != 1 || strings.Contains(out, "(baseline)") {
		t.Errorf("plain check: exit %d %s\n%s", code, errs, out)
	}
	for _, dir := range append(slices.Collect(maps.Values(homes)), filepath.Join(repo, ".mcpcheck")) {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("check created %s", dir)
		}
	}
	// baseline --accept records into the source root's .mcpcheck/baselines ...
	if code, out, errs := cli.invoke(t, "", "baseline", "--accept", "--reason", "first", capture); code != 0 || errs != "" {
		t.Fatalf("accept: exit %d %s\n%s", code, errs, out)
	}
	if _, err := os.Stat(filepath.Join(repo, ".mcpcheck", "baselines", name)); err != nil {
		t.Fatal(err)
	}
	// ... which check then reads, with drift in the default gate
	code, out, _ = cli.invoke(t, "", "check", capture)
	if code != 0 || strings.Contains(out, "drift not checked") || !strings.Contains(out, "check passed") {
		t.Errorf("check against the default directory: exit %d\n%s", code, out)
	}
	other := labelCapture(t, root, "other.jsonl", "other")
	code, out, _ = cli.invoke(t, "", "check", other)
	if code != 1 || !strings.Contains(out, `server "other" has no baseline in `) || !strings.Contains(out, "check failed: drift") {
		t.Errorf("a server missing from the default directory: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(root, "snoop")); err == nil {
		t.Error("a baseline was written into the mcpsnoop state directory")
	}
	// pointed into mcpsnoop's state directory, check reads and records nothing
	cli = withEnv(map[string]string{"MCPSNOOP_HOME": root + "/snoop"})
	tb := filepath.Join(root, "snoop", "tool-baselines")
	code, out, _ = cli.invoke(t, "", "check", "--record-baseline", "--baseline", tb, capture)
	if code != 1 || !strings.Contains(out, "for this run only, because "+tb+" is inside the mcpsnoop state directory") || len(baselineFiles(t, tb)) != 0 {
		t.Errorf("check into the mcpsnoop state: exit %d\n%s", code, out)
	}
	if code, _, errs := cli.invoke(t, "", "baseline", "--accept", "--reason", "x", "--baseline", tb, capture); code != 2 || !strings.Contains(errs, "never writes there") {
		t.Errorf("accept into the mcpsnoop state: exit %d, %s", code, errs)
	}
}

// mcpcheckProcess starts mcpcheck as a child process (see TestMain).
func mcpcheckProcess(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "NO_COLOR=1")
	return cmd
}

// Done when: two concurrent check processes recording the same new label
// leave one valid file.
func TestConcurrentChecksLeaveOneBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the multi-process test")
	}
	capture := sharedCapture(t, "10-drift-filesystem-new-2026.8.31.jsonl")
	for round := range 5 {
		dir := filepath.Join(t.TempDir(), "baselines")
		var wg sync.WaitGroup
		outs := make([][]byte, 2)
		codes := make([]int, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := mcpcheckProcess("check", "--record-baseline", "--fail-on", "error,invalid,warn,tool-drift", "--baseline", dir, capture)
				outs[i], _ = cmd.Output()
				codes[i] = cmd.ProcessState.ExitCode()
			}()
		}
		wg.Wait()
		files := baselineFiles(t, dir)
		if len(files) != 1 || files[0] != baseline.FileName("filesystem-drift") {
			t.Fatalf("round %d: files %v, want the one baseline (no temporary files left)", round, files)
		}
		b, err := baseline.Parse(readTestFile(t, filepath.Join(dir, files[0])), "filesystem-drift", files[0])
		if err != nil || len(b.Tools) != 14 {
			t.Fatalf("round %d: the baseline is not valid: %v", round, err)
		}
		// Each process recorded the baseline, or found the other's whole
		// file and compared with it: never a torn file, never drift.
		for i := range 2 {
			out := string(outs[i])
			if codes[i] != 0 || strings.Contains(out, "cannot be used") || strings.Contains(out, "(tool-drift)") || !strings.Contains(out, "check passed") {
				t.Errorf("round %d, process %d: exit %d\n%s", round, i+1, codes[i], outs[i])
			}
		}
	}
}

// Done when: a process killed mid-write leaves the old file or the new
// one. The baseline command is killed while it replaces a baseline: once
// with certainty between writing its temporary file and renaming it (the
// child announces that moment and waits), then at random moments; whatever
// it leaves must read as one of the two whole files.
// (internal/atomicfile's test kills a writer with certainty halfway.)
func TestKilledAcceptLeavesTheOldOrTheNewBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the multi-process test")
	}
	old, cur := sharedCapture(t, "09-drift-filesystem-old-2025.1.14.jsonl"), sharedCapture(t, "10-drift-filesystem-new-2026.8.31.jsonl")
	dir := t.TempDir()
	if code, out, _ := invoke(t, "", "baseline", "--accept", "--reason", "old", "--baseline", dir, old); code != 0 {
		t.Fatal(out)
	}
	path := filepath.Join(dir, baseline.FileName("filesystem-drift"))
	oldBytes := readTestFile(t, path)

	// the certain kill: the new file is whole in its temporary, not renamed
	marker := filepath.Join(t.TempDir(), "paused")
	cmd := mcpcheckProcess("baseline", "--accept", "--reason", "new", "--baseline", dir, cur)
	cmd.Env = append(cmd.Env, pauseEnv+"="+marker)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tmp := waitForFile(t, marker)
	cmd.Process.Kill()
	cmd.Wait()
	if b, err := baseline.Parse(readTestFile(t, tmp), "filesystem-drift", tmp); err != nil || b.Accepted.Reason != "new" {
		t.Fatalf("the kill did not land between a whole new file and its rename: %v", err)
	}
	if !bytes.Equal(readTestFile(t, path), oldBytes) {
		t.Fatalf("a kill before the rename changed the baseline")
	}
	os.Remove(tmp)

	sawNew := false
	for i := range 30 {
		cmd := mcpcheckProcess("baseline", "--accept", "--reason", "new", "--baseline", dir, cur)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(15000)) * time.Microsecond)
		cmd.Process.Kill()
		cmd.Wait()
		data := readTestFile(t, path)
		if bytes.Equal(data, oldBytes) {
			continue
		}
		b, err := baseline.Parse(data, "filesystem-drift", path)
		if err != nil || b.Accepted == nil || b.Accepted.Reason != "new" || len(b.Tools) != 14 {
			t.Fatalf("kill %d left a file that is neither the old nor the new baseline: %v\n%s", i, err, data)
		}
		sawNew = true
		os.WriteFile(path, oldBytes, 0o644) // start the next kill from the old file
	}
	t.Logf("some kills came after the rename: %v", sawNew)
}

// pauseEnv names a file: a child that is about to rename a complete
// temporary file over its target writes the temporary's name there and
// waits to be killed.
const pauseEnv = "MCPCHECK_TEST_PAUSE_BEFORE_RENAME"

func pauseBeforeRename(marker string) {
	if marker == "" {
		return
	}
	atomicfile.BeforeRename = func(tmp, target string) {
		os.WriteFile(marker+".tmp", []byte(tmp), 0o644)
		os.Rename(marker+".tmp", marker)
		time.Sleep(time.Minute)
	}
}

// waitForFile waits for a pausing child's marker and returns what it names.
func waitForFile(t *testing.T, marker string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(marker); err == nil {
			return string(data)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the child never reached its rename")
	return ""
}

func readTestFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
