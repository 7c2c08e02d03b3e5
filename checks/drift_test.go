package checks_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/baseline"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
)

// fixtureBaselines gives a fixture NAME.jsonl with a directory
// NAME.baselines/ a fresh copy of that directory as its baseline store (a
// run may record into it; the fixture's own files never change). It
// returns the cleanup. Runs of such fixtures take turns (the cleanup
// ends the turn): they share the directory, and tests run in parallel.
func fixtureBaselines(fixture string, cfg *engine.Config) func() {
	src := strings.TrimSuffix(fixture, ".jsonl") + ".baselines"
	entries, err := os.ReadDir(src)
	if err != nil {
		return func() {}
	}
	fixtureBaselinesTurn.Lock()
	// The same path for every run of a fixture (its messages name the
	// directory, and the harness compares two runs), fresh each time.
	tmp := filepath.Join(os.TempDir(), fmt.Sprintf("mcpcheck-fixtures-%d", os.Getpid()), filepath.Base(src))
	if err := os.RemoveAll(tmp); err != nil {
		panic(err)
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		panic(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			data, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				panic(err)
			}
			if err := os.WriteFile(filepath.Join(tmp, e.Name()), data, 0o644); err != nil {
				panic(err)
			}
		}
	}
	BaselineStore.Set(cfg, baseline.NewStore(tmp))
	return func() {
		os.RemoveAll(filepath.Dir(tmp))
		fixtureBaselinesTurn.Unlock()
	}
}

// fixtureBaselinesTurn is held from fixtureBaselines to its cleanup.
var fixtureBaselinesTurn sync.Mutex

// runWith checks captures (name → content) in one run with the given
// baseline store (nil: the default).
func runWith(t *testing.T, store *baseline.Store, gate string, captures ...string) *result.Result {
	t.Helper()
	var srcs []readers.Source
	for i := 0; i < len(captures); i += 2 {
		data := []byte(captures[i+1])
		srcs = append(srcs, readers.Source{Name: captures[i], Open: func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(data)), nil
		}})
	}
	g, err := result.ParseGate(gate, All())
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Rules: All(), Gate: g}
	if store != nil {
		BaselineStore.Set(&cfg, store)
	}
	res, err := engine.Run(srcs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// notesSession is a 2025-11-25 stdio session of server "notes" that lists
// tools (its answer is line 5).
func notesSession(id, tools string) string {
	var b strings.Builder
	for i, l := range []struct{ dir, raw string }{
		{"c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`},
		{"s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"notes","version":"2"}}}`},
		{"c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"s2c", `{"jsonrpc":"2.0","id":1,"result":{"tools":` + tools + `}}`},
	} {
		fmt.Fprintf(&b, `{"session_id":%q,"server_label":"notes","seq":%d,"ts":"2026-09-01T10:00:0%d.000Z","direction":%q,"transport":"stdio","raw":%s}`+"\n", id, i+1, i, l.dir, l.raw)
	}
	return b.String()
}

const (
	readOnlyNotes = `[{"name":"read_note","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]`
	rugPulled     = `[{"name":"read_note","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false}},{"name":"send_mail","inputSchema":{"type":"object"}}]`
)

func findingsOf(res *result.Result, rule string) []*result.Finding {
	var out []*result.Finding
	for s := range res.AllSessions() {
		for _, f := range s.Findings {
			if f.Rule == rule {
				out = append(out, f)
			}
		}
	}
	return out
}

// Within one run a later capture's session of a label compares with what
// an earlier one listed, even without a baseline directory.
func TestDriftAcrossCapturesOfOneRun(t *testing.T) {
	t.Parallel()
	res := runWith(t, nil, DefaultGate, "a.jsonl", notesSession("s1", readOnlyNotes), "b.jsonl", notesSession("s2", rugPulled))
	got := findingsOf(res, "tool-drift")
	if len(got) != 2 {
		t.Fatalf("tool-drift findings %d, want 2", len(got))
	}
	if f := got[0]; f.File != "b.jsonl" || f.Line != 5 || f.Severity != SeverityError || f.Drift == nil || f.Drift.Tier != baseline.TierBreaking ||
		len(f.Related) != 2 || f.Related[0].File != "a.jsonl" || f.Related[0].Line != 5 || !strings.HasPrefix(f.Subject, "tool read_note changed ") ||
		f.Related[1] != (Location{File: "b.jsonl", Line: 5, Message: "annotations: /readOnlyHint: true → false (breaking: no longer read-only)"}) {
		t.Errorf("read_note finding %+v", f)
	}
	if f := got[1]; f.Drift.Change != baseline.Added || f.Severity != SeverityNote {
		t.Errorf("send_mail finding %+v", f)
	}
	if d := res.Sessions[0].Drift; d == nil || d.Status != baseline.StatusRecorded {
		t.Errorf("first session's drift %+v", d)
	}
	if d := res.Sessions[1].Drift; d == nil || d.Status != baseline.StatusCompared || d.RecordedBy == nil || len(d.Changes) != 2 {
		t.Errorf("second session's drift %+v", d)
	}
	if n := len(findingsOf(res, "baseline")); n != 0 {
		t.Errorf("without a store, recording is not reported; got %d baseline findings", n)
	}
	if !res.Passed {
		t.Errorf("drift failed the default gate")
	}
}

// check records into the directory, says so, and a later run compares;
// the findings never depend on the gate, only their level does.
func TestDriftAgainstADirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := runWith(t, baseline.NewStore(dir), "drift", "a.jsonl", notesSession("s1", readOnlyNotes))
	rec := findingsOf(first, "baseline")
	if len(rec) != 1 || !strings.Contains(rec[0].Message, "recorded, not verified") || !strings.Contains(rec[0].Message, "keep "+dir) || !rec[0].Gated {
		t.Fatalf("first run's baseline findings %+v", rec)
	}
	if first.Passed {
		t.Errorf("gating drift passed a run that only recorded")
	}
	for _, gate := range []string{"drift", DefaultGate} {
		res := runWith(t, baseline.NewStore(dir), gate, "b.jsonl", notesSession("s2", rugPulled))
		drift := findingsOf(res, "tool-drift")
		if len(drift) != 2 || len(findingsOf(res, "baseline")) != 0 {
			t.Fatalf("gate %s: findings %+v", gate, res.Sessions[0].Findings)
		}
		if drift[0].Gated != (gate == "drift") || res.Passed == (gate == "drift") {
			t.Errorf("gate %s: gated %v, passed %v", gate, drift[0].Gated, res.Passed)
		}
		if !strings.HasPrefix(drift[0].Message, `breaking: tool "read_note" changed since the baseline: annotations: no longer read-only at /readOnlyHint`) {
			t.Errorf("message %s", drift[0].Message)
		}
	}
}

// Disabling tool-drift drops the drift report; baseline still records.
func TestDisabledToolDrift(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var rules []*Rule
	for _, r := range All() {
		if r != RuleToolDrift {
			rules = append(rules, r)
		}
	}
	cfg := engine.Config{Rules: rules}
	BaselineStore.Set(&cfg, baseline.NewStore(dir))
	data := notesSession("s1", readOnlyNotes)
	src := readers.Source{Name: "a.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }}
	res, err := engine.Run([]readers.Source{src}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions[0].Drift != nil || len(findingsOf(res, "baseline")) != 1 {
		t.Errorf("drift %+v, findings %+v", res.Sessions[0].Drift, res.Sessions[0].Findings)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("nothing recorded: %v", entries)
	}
}

// A change keeps its fingerprint when recorded again; another change of
// the same tool gets another one, so a suppression cannot hide it.
func TestDriftFingerprintsFollowTheChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runWith(t, baseline.NewStore(dir), DefaultGate, "a.jsonl", notesSession("s1", readOnlyNotes))
	fp := func(tools string) map[string]string {
		out := map[string]string{}
		for _, f := range findingsOf(runWith(t, baseline.NewStore(dir), DefaultGate, "b.jsonl", notesSession("s2", tools)), "tool-drift") {
			out[f.Drift.Tool] = f.Fingerprint
		}
		return out
	}
	first, again := fp(rugPulled), fp(rugPulled)
	if len(first) != 2 || first["read_note"] != again["read_note"] || first["send_mail"] != again["send_mail"] {
		t.Errorf("fingerprints changed when the same drift was recorded again: %v, %v", first, again)
	}
	other := fp(`[{"name":"read_note","description":"Reads","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},{"name":"send_mail","inputSchema":{"type":"object"},"annotations":{"destructiveHint":true}}]`)
	if other["read_note"] == first["read_note"] || other["send_mail"] == first["send_mail"] {
		t.Errorf("different changes share a fingerprint: %v, %v", first, other)
	}
}
