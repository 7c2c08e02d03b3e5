package checks_test

// Every rule ships examples in testdata/<rule-id>/: ok-*.jsonl must produce
// no finding of that rule, bad-*.jsonl at least one. An envelope announces
// the findings it causes with an inline "want" member, one object per
// finding on that envelope's line:
//
//	{"want":[{"rule":"tool-error","message":"reported an error: \"ENOENT","related":[5]}],"session_id":"s1",…}
//
//   - rule: the finding's rule id.
//   - message: a Go regexp found in the finding's message (unanchored;
//     regexp.QuoteMeta of the whole message is fine).
//   - related: optional; the lines of the finding's related locations, in
//     order. When given they must be exactly these.
//   - subject: the finding's subject, exactly (the input of its
//     fingerprint, so of every suppression and code-scanning alert of it).
//   - severity: the finding's severity, "error", "warning" or "note".
//     Subject and severity are optional, except in a bad fixture's wants of
//     its own rule, which must name both (go test ./checks -run
//     TestRuleFixtures -annotate writes them from the findings).
//   - suppressed: a Go regexp of the reason of the suppressions entry that
//     accepts the finding; without it the finding must not be suppressed.
//
// A fixture NAME.jsonl may come with NAME.suppressions.json, the run's
// suppressions file (checked at fixtureNow). Its entries announce the
// findings placed at them with "want" members too.
//
// The harness finds "want" by text, so it also works on damaged lines, and
// removes the member (and its comma) before the reader sees the fixture;
// lines keep their numbers. A fixture's findings are exactly its wants,
// whatever the rule: an unexpected finding fails as a missed one does.
// Every fixture is also read with a 64-byte buffer, and must give the same
// findings: a rule that keeps a frame's bytes without copying them fails.
//
// A fixture NAME.jsonl with a directory NAME.baselines/ beside it runs with
// a fresh copy of that directory as its tool-baseline directory.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/suppress"
)

// tinyBuffer is the read buffer the second run of every fixture uses.
const tinyBuffer = 64

// fixtureNow is the time fixtures are checked at, for suppressions that expire.
var fixtureNow = time.Date(2026, 9, 15, 18, 30, 0, 0, time.UTC)

func TestRuleFixtures(t *testing.T) {
	t.Parallel()
	for _, r := range All() {
		t.Run(r.ID, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("testdata", r.ID)
			ok, _ := filepath.Glob(filepath.Join(dir, "ok-*.jsonl"))
			bad, _ := filepath.Glob(filepath.Join(dir, "bad-*.jsonl"))
			// Plain JSON-RPC fixtures, as tee writes them, are *.ndjson.
			okPlain, _ := filepath.Glob(filepath.Join(dir, "ok-*.ndjson"))
			badPlain, _ := filepath.Glob(filepath.Join(dir, "bad-*.ndjson"))
			ok, bad = append(ok, okPlain...), append(bad, badPlain...)
			if len(ok) == 0 || len(bad) == 0 {
				t.Fatalf("rule %s needs at least one ok-*.jsonl and one bad-*.jsonl in %s", r.ID, dir)
			}
			for _, path := range append(ok, bad...) {
				checkFixture(t, r, path, strings.HasPrefix(filepath.Base(path), "bad-"))
			}
		})
	}
}

// fixtureRules are the rules a fixture runs with: the whole catalogue, and
// for internal-error a rule that panics on tools/call, since no real rule
// panics on purpose.
func fixtureRules(r *Rule) []*Rule {
	rules := All()
	if r == RuleInternalError {
		rules = append(rules, panicOnToolsCall)
	}
	return rules
}

var panicOnToolsCall = &Rule{
	ID: "test-panics", Doc: testDoc("panics on tools/call"), Signal: SignalWarn,
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if f.Msg.Method == "tools/call" {
			panic("assignment to entry in nil map") // as a real bug would
		}
	}),
}

// testDoc is the documentation of a rule that exists only in tests.
func testDoc(summary string) Doc {
	return Doc{Summary: summary, Why: "Test only.", Fix: "None.", Bad: "-", Good: "-", Since: "0.0.0"}
}

func checkFixture(t *testing.T, r *Rule, path string, bad bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stripped, wants, err := parseWants(data)
	if err != nil {
		t.Fatalf("%s%v", path, err)
	}
	for i := range wants {
		wants[i].File = path
	}
	sup, supWants, err := fixtureSuppressions(path)
	if err != nil {
		t.Fatal(err)
	}
	wants = append(wants, supWants...)
	rules := fixtureRules(r)
	announces := false
	for _, w := range wants {
		if Lookup(rules, w.Rule) == nil {
			t.Fatalf("%s:%d: want names unknown rule %q", path, w.Line, w.Rule)
		}
		announces = announces || w.Rule == r.ID
	}
	if bad && !announces {
		t.Fatalf("%s: a bad fixture must announce at least one %s finding with \"want\"", path, r.ID)
	}
	var unnamed []want // own-rule wants of a bad fixture without subject or severity
	for _, w := range wants {
		if bad && w.Rule == r.ID && (w.Subject == nil || w.Severity == "") {
			unnamed = append(unnamed, w)
		}
	}
	if len(unnamed) > 0 && !*annotate {
		t.Fatalf("%s:%d: a bad fixture's want of its own rule must name \"subject\" and \"severity\" (go test ./checks -run TestRuleFixtures -annotate writes them)", path, unnamed[0].Line)
	}
	if !bad && announces {
		t.Fatalf("%s: an ok fixture cannot want %s", path, r.ID)
	}
	got, err := runFixture(path, stripped, rules, sup, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if problems := matchWants(wants, got); len(problems) > 0 {
		t.Errorf("%s:\n  %s\nall findings:\n%s", path, strings.Join(problems, "\n  "), listFindings(got))
	} else if len(unnamed) > 0 {
		if err := annotateFixture(unnamed, got); err != nil {
			t.Error(err)
		}
	}
	if diff, err := bufferDiff(path, stripped, rules, sup); err != nil {
		t.Errorf("%s: with a %d-byte read buffer: %v", path, tinyBuffer, err)
	} else if diff != "" {
		t.Errorf("%s: the findings change with a %d-byte read buffer (a rule or fact keeps a frame's bytes without copying them?):\n%s", path, tinyBuffer, diff)
	}
}

// fixtureSuppressions reads the suppressions file of the fixture at path,
// if it has one, with the wants its entries announce.
func fixtureSuppressions(path string) (*suppress.Suppressions, []want, error) {
	name := strings.TrimSuffix(path, ".jsonl") + ".suppressions.json"
	data, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	stripped, wants, err := parseWants(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s%v", name, err)
	}
	for i := range wants {
		wants[i].File = name
	}
	sup, err := suppress.Parse(name, stripped)
	if err != nil {
		return nil, nil, err
	}
	sup.Now = fixtureNow
	return sup, wants, nil
}

// want is one expected finding.
type want struct {
	File       string
	Line       int
	Rule       string
	Message    *regexp.Regexp
	Related    []int          // nil: not checked
	Suppressed *regexp.Regexp // the entry's reason; nil: not suppressed
	Subject    *string        // nil: not checked
	Severity   string         // "": not checked
	Ordinal    int            // its place among the wants of its line
}

func (w want) String() string {
	s := fmt.Sprintf("%s%d: %s /%s/", fileTag(w.File), w.Line, w.Rule, w.Message)
	if w.Related != nil {
		s += fmt.Sprintf(" related %v", w.Related)
	}
	if w.Suppressed != nil {
		s += fmt.Sprintf(" suppressed /%s/", w.Suppressed)
	}
	if w.Subject != nil {
		s += fmt.Sprintf(" subject %q", *w.Subject)
	}
	if w.Severity != "" {
		s += " severity " + w.Severity
	}
	return s
}

// wantKey finds a want member; the harness reads the array after it.
var wantKey = regexp.MustCompile(`"want"\s*:\s*\[`)

// parseWants reads the wants of a fixture and returns it without them, each
// line keeping its number. Errors start with ":line: ".
func parseWants(data []byte) ([]byte, []want, error) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	var wants []want
	for i, line := range lines {
		for {
			loc := wantKey.FindIndex(line)
			if loc == nil {
				break
			}
			arrayStart := loc[1] - 1
			dec := json.NewDecoder(bytes.NewReader(line[arrayStart:]))
			var elems []json.RawMessage
			if err := dec.Decode(&elems); err != nil {
				return nil, nil, fmt.Errorf(":%d: want is not a JSON array: %v", i+1, err)
			}
			for k, el := range elems {
				w, err := parseWant(el)
				if err != nil {
					return nil, nil, fmt.Errorf(":%d: want %s: %v", i+1, el, err)
				}
				w.Line, w.Ordinal = i+1, k
				wants = append(wants, w)
			}
			line = cutMember(line, loc[0], arrayStart+int(dec.InputOffset()))
		}
		lines[i] = line
	}
	return bytes.Join(lines, nil), wants, nil
}

func parseWant(el json.RawMessage) (want, error) {
	var w want
	if len(el) > 0 && el[0] == '"' {
		return w, fmt.Errorf(`a plain rule id is not enough: write {"rule":"ID","message":"REGEXP"}, with a regexp of the finding's message`)
	}
	var spec struct {
		Rule       string
		Message    *string
		Related    *[]int
		Suppressed *string
		Subject    *string
		Severity   *string
	}
	dec := json.NewDecoder(bytes.NewReader(el))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return w, fmt.Errorf(`want {"rule":"ID","message":"REGEXP","related":[LINE…]}: %v`, err)
	}
	if spec.Rule == "" {
		return w, fmt.Errorf(`"rule" is missing`)
	}
	if spec.Message == nil || *spec.Message == "" {
		return w, fmt.Errorf(`"message" is missing: add a regexp of the finding's message`)
	}
	re, err := regexp.Compile(*spec.Message)
	if err != nil {
		return w, fmt.Errorf(`"message": %v`, err)
	}
	w.Rule, w.Message = spec.Rule, re
	if spec.Related != nil {
		w.Related = append([]int{}, *spec.Related...) // [] checks that there is none
	}
	if spec.Suppressed != nil {
		if w.Suppressed, err = regexp.Compile(*spec.Suppressed); err != nil {
			return w, fmt.Errorf(`"suppressed": %v`, err)
		}
	}
	w.Subject = spec.Subject
	if spec.Severity != nil {
		switch *spec.Severity {
		case "error", "warning", "note":
			w.Severity = *spec.Severity
		default:
			return w, fmt.Errorf(`"severity" %q: write "error", "warning" or "note"`, *spec.Severity)
		}
	}
	return w, nil
}

// cutMember removes line[from:to], a member, with the comma that separates
// it from its neighbour.
func cutMember(line []byte, from, to int) []byte {
	after := to
	for after < len(line) && (line[after] == ' ' || line[after] == '\t') {
		after++
	}
	if after < len(line) && line[after] == ',' {
		to = after + 1
	} else {
		before := from
		for before > 0 && (line[before-1] == ' ' || line[before-1] == '\t') {
			before--
		}
		if before > 0 && line[before-1] == ',' {
			from = before - 1
		}
	}
	return slices.Concat(line[:from], line[to:])
}

// gotFinding is what the harness compares of a finding.
type gotFinding struct {
	File        string
	Line        int
	Rule        string
	Message     string
	Subject     string
	Severity    string
	Related     []Location
	Suppressed  string // the reason; "" when not suppressed
	Fingerprint string
}

func (f gotFinding) String() string {
	s := fmt.Sprintf("%s%d: %s: %s [subject %q, %s]", fileTag(f.File), f.Line, f.Rule, f.Message, f.Subject, f.Severity)
	for _, r := range f.Related {
		s += fmt.Sprintf(" (related %d: %s)", r.Line, r.Message)
	}
	if f.Suppressed != "" {
		s += fmt.Sprintf(" (suppressed: %s)", f.Suppressed)
	}
	return s
}

// fileTag names the file of a want or finding in messages: a fixture's
// findings may be in its capture or in its suppressions file.
func fileTag(file string) string {
	if file == "" {
		return ""
	}
	return filepath.Base(file) + ":"
}

// wantFor is the want that matches f exactly, for an author to paste.
func (f gotFinding) wantFor() string {
	spec := map[string]any{"rule": f.Rule, "message": regexp.QuoteMeta(f.Message), "subject": f.Subject}
	if f.Severity != "" {
		spec["severity"] = f.Severity
	}
	if len(f.Related) > 0 {
		lines := []int{}
		for _, r := range f.Related {
			lines = append(lines, r.Line)
		}
		spec["related"] = lines
	}
	if f.Suppressed != "" {
		spec["suppressed"] = regexp.QuoteMeta(f.Suppressed)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(spec)
	return strings.TrimSpace(b.String())
}

func listFindings(got []gotFinding) string {
	var b strings.Builder
	for _, f := range got {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	return b.String()
}

// runFixture checks data with rules and suppressions sup (nil for none),
// reading it through a buffer of bufSize bytes (0: the reader's own), and
// returns the findings in order.
func runFixture(name string, data []byte, rules []*Rule, sup *suppress.Suppressions, bufSize int) ([]gotFinding, error) {
	return runFixtureWith(name, data, rules, sup, readers.Options{ReadBuffer: bufSize})
}

// runFixtureWith is runFixture reading with options o.
func runFixtureWith(name string, data []byte, rules []*Rule, sup *suppress.Suppressions, o readers.Options) ([]gotFinding, error) {
	return runSourceWith(bytesSource(name, data), rules, sup, o)
}

func bytesSource(name string, data []byte) readers.Source {
	return readers.Source{Name: name, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
}

// runSource checks src with rules and suppressions sup (nil for none) and
// returns the findings in order.
func runSource(src readers.Source, rules []*Rule, sup *suppress.Suppressions) ([]gotFinding, error) {
	return runSourceWith(src, rules, sup, readers.Options{})
}

// runSourceWith is runSource reading with options o.
func runSourceWith(src readers.Source, rules []*Rule, sup *suppress.Suppressions, o readers.Options) ([]gotFinding, error) {
	return runSourceWithin(src, rules, sup, o, engine.Limits{})
}

// runSourceWithin is runSourceWith within the engine's memory limits.
func runSourceWithin(src readers.Source, rules []*Rule, sup *suppress.Suppressions, o readers.Options, limits engine.Limits) ([]gotFinding, error) {
	gate, err := result.ParseGate(DefaultGate, rules)
	if err != nil {
		return nil, err
	}
	cfg := engine.Config{Rules: rules, Catalogue: rules, Gate: gate, Suppressions: sup, Reading: o, Limits: limits}
	defer fixtureBaselines(src.Name, &cfg)() // drift_test.go
	res, err := engine.Run([]readers.Source{src}, cfg)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	var got []gotFinding
	for s := range res.AllSessions() {
		for _, f := range s.Findings {
			g := gotFinding{File: f.File, Line: f.Line, Rule: f.Rule, Message: f.Message, Subject: f.Subject, Severity: f.Severity.String(), Related: f.Related, Fingerprint: f.Fingerprint}
			if f.Suppressed != nil {
				g.Suppressed = f.Suppressed.Reason
			}
			got = append(got, g)
		}
	}
	return got, nil
}

// bufferDiff runs data with the reader's buffer and with a tiny one, and
// describes how the findings differ ("" when they do not).
func bufferDiff(name string, data []byte, rules []*Rule, sup *suppress.Suppressions) (string, error) {
	normal, err := runFixture(name, data, rules, sup, 0)
	if err != nil {
		return "", err
	}
	tiny, err := runFixture(name, data, rules, sup, tinyBuffer)
	if err != nil {
		return "", err
	}
	var diff []string
	for _, f := range normal {
		if !slices.ContainsFunc(tiny, f.equal) {
			diff = append(diff, "  only with the normal buffer: "+f.String())
		}
	}
	for _, f := range tiny {
		if !slices.ContainsFunc(normal, f.equal) {
			diff = append(diff, "  only with the tiny buffer:   "+f.String())
		}
	}
	if len(diff) == 0 && len(normal) != len(tiny) {
		diff = append(diff, fmt.Sprintf("  %d findings with the normal buffer, %d with the tiny one", len(normal), len(tiny)))
	}
	return strings.Join(diff, "\n"), nil
}

func (f gotFinding) equal(g gotFinding) bool {
	return f.File == g.File && f.Line == g.Line && f.Rule == g.Rule && f.Message == g.Message && f.Subject == g.Subject && f.Severity == g.Severity && f.Fingerprint == g.Fingerprint &&
		slices.Equal(f.Related, g.Related) && f.Suppressed == g.Suppressed
}

// matchWants pairs wants with findings line by line, each want with a
// finding of its rule whose message it matches, and lists what is left on
// either side.
func matchWants(wants []want, got []gotFinding) []string {
	type place struct {
		file string
		line int
	}
	var problems []string
	places := map[place]bool{}
	for _, w := range wants {
		places[place{w.File, w.Line}] = true
	}
	for _, f := range got {
		places[place{f.File, f.Line}] = true
	}
	sorted := slices.SortedFunc(maps.Keys(places), func(a, b place) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return a.line - b.line
	})
	for _, at := range sorted {
		var ws []want
		var fs []gotFinding
		for _, w := range wants {
			if w.File == at.file && w.Line == at.line {
				ws = append(ws, w)
			}
		}
		for _, f := range got {
			if f.File == at.file && f.Line == at.line {
				fs = append(fs, f)
			}
		}
		byWant := pair(len(ws), len(fs), func(i, j int) bool { return ws[i].matches(fs[j]) })
		used := make([]bool, len(fs))
		for i, j := range byWant {
			if j < 0 {
				problems = append(problems, fmt.Sprintf("missed: want %s", ws[i]))
			} else {
				used[j] = true
			}
		}
		for j, f := range fs {
			if !used[j] {
				problems = append(problems, fmt.Sprintf("unexpected: %s\n    to want it: %s", f, f.wantFor()))
			}
		}
	}
	return problems
}

func (w want) matches(f gotFinding) bool {
	if w.Rule != f.Rule || !w.Message.MatchString(f.Message) {
		return false
	}
	if (w.Suppressed == nil) != (f.Suppressed == "") || w.Suppressed != nil && !w.Suppressed.MatchString(f.Suppressed) {
		return false
	}
	if w.Subject != nil && *w.Subject != f.Subject || w.Severity != "" && w.Severity != f.Severity {
		return false
	}
	if w.Related == nil {
		return true
	}
	lines := []int{}
	for _, r := range f.Related {
		lines = append(lines, r.Line)
	}
	return slices.Equal(w.Related, lines)
}

// pair is a maximum matching of n wants with m findings (augmenting
// paths): a greedy one could give a finding to a broad pattern that a
// narrower one needed. It returns each want's finding, or -1.
func pair(n, m int, ok func(i, j int) bool) []int {
	byWant, byFinding := make([]int, n), make([]int, m)
	for i := range byWant {
		byWant[i] = -1
	}
	for j := range byFinding {
		byFinding[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := 0; j < m; j++ {
			if seen[j] || !ok(i, j) {
				continue
			}
			seen[j] = true
			if byFinding[j] < 0 || try(byFinding[j], seen) {
				byWant[i], byFinding[j] = j, i
				return true
			}
		}
		return false
	}
	for i := 0; i < n; i++ {
		try(i, make([]bool, m))
	}
	return byWant
}
