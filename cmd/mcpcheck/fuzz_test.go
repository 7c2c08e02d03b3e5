package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
)

// The whole pipeline under fuzzing: any bytes are either not a capture
// (nothing rendered) or checked and rendered in every format, and then every
// output parses and every format tells the same counts. Seeds are the
// project's captures, every rule's fixtures and a compressed capture.
//
//	go test ./cmd/mcpcheck -run '^$' -fuzz 'FuzzPipeline$' -fuzztime 10m -timeout 30m -fuzzminimizetime 10x -parallel 1
//	go test ./cmd/mcpcheck -run '^$' -fuzz 'FuzzPipelineUnderPressure$' -fuzztime 10m -timeout 30m -fuzzminimizetime 10x -parallel 1
//
// -timeout above -fuzztime: go test's default of 10 minutes otherwise ends
// the run as the fuzzing does, and Go 1.26 reports that as a failure
// ("context deadline exceeded", no input written; golang/go#75804).

func seedPipeline(f *testing.F) {
	paths, _ := filepath.Glob(testdata("*.jsonl"))
	fixtures, _ := filepath.Glob(filepath.Join("..", "..", "checks", "testdata", "*", "*.jsonl"))
	paths = append(paths, fixtures...)
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	if data, err := os.ReadFile(testdata("demo-session.jsonl")); err == nil {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		f.Add(b.Bytes())
		f.Add(b.Bytes()[:b.Len()/2]) // a .gz cut short
	}
	f.Add([]byte(strings.Repeat(`{"session_id":"s","seq":1,"direction":"s2c","text":"log line"}`+"\n", 3)))
	f.Add([]byte("{\"session_id\":\"a\u2028b\",\"seq\":1,\"direction\":\"c2s\",\"raw\":{\"jsonrpc\":\"2.0\",\"id\":1e400,\"method\":\"tools/call\",\"params\":{\"name\":\"\u202ex\"}}}\r{\"session_id\":\"a\",\"seq\":3,\"direction\":\"s2c\",\"raw\":{\"jsonrpc\":\"2.0\",\"id\":1e-400,\"result\":{}}}\r"))
}

// rendered is one check of a capture in every format.
type rendered struct {
	out     map[string][]byte // by format
	summary []byte            // the github format's step summary
}

// renderAll checks data and renders it in every format; ok is false when
// data is not a capture.
func renderAll(t *testing.T, data []byte) (r rendered, ok bool) {
	t.Helper()
	return renderAllWith(t, data, readers.Options{}, engine.Limits{})
}

// renderAllWith is renderAll reading with options o, within limits.
func renderAllWith(t *testing.T, data []byte, o readers.Options, limits engine.Limits) (r rendered, ok bool) {
	t.Helper()
	src := readers.Source{Name: "fuzz.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
	gate, _ := result.ParseGate(checks.DefaultGate, checks.All())
	cfg := engine.Config{Rules: checks.All(), Gate: gate, Reading: o, Limits: limits}
	store := baseline.NewMemory() // tool baselines of this run only, on a fixed clock
	store.Now = func() time.Time { return time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC) }
	checks.BaselineStore.Set(&cfg, store)
	res, err := engine.Run([]readers.Source{src}, cfg)
	if err != nil {
		return r, false
	}
	defer res.Close()
	summary := fuzzSummaryFile(t)
	r.out = map[string][]byte{}
	for _, format := range report.Formats() {
		factory, _ := report.Lookup(format)
		// Verbose: the text lists every finding and every count, which
		// the agreement check compares with the other formats.
		opts := report.Options{WorkDir: "/work", SourceRoot: "/work", Version: "v0.0.0-fuzz", SemanticVersion: "0.0.0-fuzz", Verbose: true}
		if format == "github" {
			opts.StepSummary = summary
		}
		var b bytes.Buffer
		if err := factory(opts).Report(&b, res); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if err := res.Err(); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		r.out[format] = b.Bytes()
	}
	r.summary, _ = os.ReadFile(summary)
	return r, true
}

// fuzzSummaryFile is an empty step summary file, removed when the run
// ends (a directory per run would cost more than the run).
func fuzzSummaryFile(t *testing.T) string {
	f, err := os.CreateTemp("", "mcpcheck-fuzz-summary-*.md")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Cleanup(func() { os.Remove(f.Name()) })
	return f.Name()
}

func FuzzPipeline(f *testing.F) {
	seedPipeline(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, ok := renderAll(t, data)
		if ok {
			checkAgreement(t, r)
		}
	})
}

// The same capture read the hard way, with a tiny read buffer, one session
// live at a time and every result spilled, renders byte for byte the same.
func FuzzPipelineUnderPressure(f *testing.F) {
	seedPipeline(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		easy, ok := renderAll(t, data)
		hard, hardOK := renderAllWith(t, data, readers.Options{ReadBuffer: 16, Limits: session.Limits{MaxLiveSessions: 1}}, engine.SpillEverything())
		if ok != hardOK {
			t.Fatalf("a capture with the normal reader: %v, under pressure: %v", ok, hardOK)
		}
		for format, want := range easy.out {
			if !bytes.Equal(hard.out[format], want) {
				t.Fatalf("%s differs under pressure:\n%s\nnormally:\n%s", format, hard.out[format], want)
			}
		}
		if !bytes.Equal(hard.summary, easy.summary) {
			t.Fatalf("the step summary differs under pressure:\n%s\nnormally:\n%s", hard.summary, easy.summary)
		}
	})
}

// jsonDoc is what checkAgreement reads of the json format.
type jsonDoc struct {
	Passed   bool `json:"passed"`
	ExitCode int  `json:"exit_code"`
	Sessions []struct {
		ID         string         `json:"id"`
		Passed     bool           `json:"passed"`
		Counts     map[string]int `json:"counts"`
		Suppressed int            `json:"suppressed"`
		Findings   []struct {
			Rule        string          `json:"rule"`
			Signal      string          `json:"signal"`
			Gated       bool            `json:"gated"`
			Also        int             `json:"also"`
			Fingerprint string          `json:"fingerprint"`
			Suppressed  json.RawMessage `json:"suppressed"`
		} `json:"findings"`
	} `json:"sessions"`
}

var summaryCounts = regexp.MustCompile(` errors=(\d+) invalid=(\d+) warnings=(\d+) mismatches=(\d+) pending=(\d+) late_results=(\d+) deprecated=(\d+) missing_frames=\d+ schema_findings=(\d+) contract=(\d+) security=(\d+) incomplete=(\d+) drift=(\d+) suppression=(\d+) suppressed=(\d+)$`)

// summaryOrder is the order of the counts in a text summary line.
var summaryOrder = []string{"error", "invalid", "warn", "mismatch", "pending", "late-result", "deprecated", "schema", "contract", "security", "incomplete", "drift", "suppression"}

// checkAgreement: every output parses, and the counts of every format agree
// with the findings the json format lists.
func checkAgreement(t *testing.T, r rendered) {
	t.Helper()
	var doc jsonDoc
	if err := json.Unmarshal(r.out["json"], &doc); err != nil {
		t.Fatalf("json does not parse: %v\n%s", err, r.out["json"])
	}
	listed, gatedRules := 0, 0
	passed := true
	for _, s := range doc.Sessions {
		count, suppressed := map[string]int{}, 0
		for _, f := range s.Findings {
			listed++
			if f.Also < 0 || len(f.Fingerprint) != 32 {
				t.Fatalf("json finding %+v", f)
			}
			if len(f.Suppressed) > 0 && string(f.Suppressed) != "null" {
				suppressed += 1 + f.Also
				continue
			}
			count[f.Signal] += 1 + f.Also
			if f.Gated {
				gatedRules++
			}
		}
		for sig, n := range s.Counts {
			if count[sig] != n {
				t.Fatalf("session %q counts %s=%d, its findings stand for %d", s.ID, sig, n, count[sig])
			}
		}
		if suppressed != s.Suppressed {
			t.Fatalf("session %q counts %d suppressed, its findings %d", s.ID, s.Suppressed, suppressed)
		}
		passed = passed && s.Passed
	}
	if doc.Passed != passed || (doc.ExitCode == 0) != doc.Passed {
		t.Fatalf("json passed %v, exit code %d, sessions passed %v", doc.Passed, doc.ExitCode, passed)
	}

	// text: one line per finding, a summary line per session with the same counts
	text := string(r.out["text"])
	var summaries [][]string
	findingLines := 0
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "fuzz.jsonl:"):
			findingLines++
		case strings.HasPrefix(line, "session "):
			m := summaryCounts.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("text summary line %q", line)
			}
			summaries = append(summaries, m[1:])
		}
	}
	if findingLines != listed || len(summaries) != len(doc.Sessions) {
		t.Fatalf("text lists %d findings and %d sessions, json %d and %d:\n%s", findingLines, len(summaries), listed, len(doc.Sessions), text)
	}
	for i, m := range summaries {
		s := doc.Sessions[i]
		for j, sig := range summaryOrder {
			if n, _ := strconv.Atoi(m[j]); n != s.Counts[sig] {
				t.Fatalf("session %q: text %s=%d, json %d", s.ID, sig, n, s.Counts[sig])
			}
		}
		if n, _ := strconv.Atoi(m[len(summaryOrder)]); n != s.Suppressed {
			t.Fatalf("session %q: text suppressed=%d, json %d", s.ID, n, s.Suppressed)
		}
	}
	if strings.HasSuffix(text, "check passed\n") != doc.Passed {
		t.Fatalf("text verdict disagrees with json passed=%v:\n%s", doc.Passed, text)
	}

	// junit: a suite per session; a failing signal case counts its gated findings
	var suites junit.Testsuites
	if err := xml.Unmarshal(r.out["junit"], &suites); err != nil {
		t.Fatalf("junit does not parse: %v\n%s", err, r.out["junit"])
	}
	if len(suites.Suites) != len(doc.Sessions) {
		t.Fatalf("junit has %d suites for %d sessions", len(suites.Suites), len(doc.Sessions))
	}
	tests, failures := 0, 0
	for i, suite := range suites.Suites {
		s := doc.Sessions[i]
		gated := map[string]int{}
		for _, f := range s.Findings {
			if f.Gated {
				gated[f.Signal] += 1 + f.Also
			}
		}
		tests += suite.Tests
		failures += suite.Failures
		for _, c := range suite.Testcases {
			if !strings.HasPrefix(c.Classname, "mcpcheck.") || c.Classname == "mcpcheck.assertion" || c.Classname == "mcpcheck.suppressed" {
				continue
			}
			want := gated[c.Name]
			got := 0
			if c.Failure != nil {
				fmt.Sscanf(c.Failure.Message, "%d", &got)
			}
			if got != want {
				t.Fatalf("junit suite %q case %s counts %d gated findings, json %d", suite.Name, c.Name, got, want)
			}
		}
	}
	if suites.Tests != tests || suites.Failures != failures {
		t.Fatalf("junit totals %d/%d, suites sum to %d/%d", suites.Tests, suites.Failures, tests, failures)
	}

	// sarif: every finding up to the cap, then the truncation notice
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(r.out["sarif"], &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("sarif does not parse: %v\n%s", err, r.out["sarif"])
	}
	results := log.Runs[0].Results
	if want := min(listed, report.MaxSARIFResults); len(results) != want {
		t.Fatalf("sarif has %d results for %d findings", len(results), listed)
	}
	if listed > report.MaxSARIFResults && results[len(results)-1].RuleID != "report-truncated" {
		t.Fatalf("a capped sarif log ends with %q", results[len(results)-1].RuleID)
	}

	// github: workflow commands only, one per line, at most ten per level
	// and the overflow notice; the summary stays under the runner's limit
	sc := bufio.NewScanner(bytes.NewReader(r.out["github"]))
	sc.Buffer(nil, 1<<20)
	per := map[string]int{}
	for sc.Scan() {
		line := sc.Text()
		level, _, ok := strings.Cut(strings.TrimPrefix(line, "::"), "::")
		if !strings.HasPrefix(line, "::") || !ok {
			t.Fatalf("github line %q is not a workflow command", line)
		}
		level, _, _ = strings.Cut(level, " ")
		if per[level]++; per[level] > 11 {
			t.Fatalf("github writes more than ten %s annotations", level)
		}
	}
	if len(r.summary) > 1<<20 || !bytes.HasPrefix(r.summary, []byte("## mcpcheck")) {
		t.Fatalf("step summary of %d bytes:\n%.500s", len(r.summary), r.summary)
	}
}
