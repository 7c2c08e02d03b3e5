package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/usage"
)

func init() { Register("json", func(o Options) Reporter { return &JSON{opts: o} }) }

// JSONVersion is the version of the JSON report's schema. It changes only
// when a field is removed or changes meaning; adding fields keeps it.
const JSONVersion = 1

// JSON renders the result as one JSONReport object, indented two spaces.
// Paths are written as given (absolute paths stay absolute), so a consumer
// can open them; arrays are never null.
type JSON struct{ opts Options }

// JSONReport is the document the json format writes: the whole run.
type JSONReport struct {
	// Version is JSONVersion.
	Version int `json:"version"`
	// Passed is true when nothing failed the gate and every assertion held.
	Passed bool `json:"passed"`
	// ExitCode is the exit code of the run: 0 passed, 1 failed.
	ExitCode int `json:"exit_code"`
	// Files are the captures read, as given on the command line
	// ("<stdin>" for standard input).
	Files []string `json:"files"`
	// Sessions are the checked sessions in report order.
	Sessions []JSONSession `json:"sessions"`
	// Gate is the --fail-on selection, normalised ("none" for nothing).
	Gate string `json:"gate"`
	// Config is the configuration file the run read, as found or named;
	// "" for none (and in NewJSONReport, which has no run options).
	Config string `json:"config"`
	// Notes are what the run says once about itself, such as drift not
	// being checked for want of a baseline directory.
	Notes []string `json:"notes"`
	// Usage is, per server label across the run, what was advertised and
	// what was called (coverage), per-tool statistics and flaky calls
	// (spec §5.2); null for a result made without it.
	Usage *usage.Summary `json:"usage"`
	// Assertions are the run-wide assertions (min-tool-coverage).
	Assertions []JSONAssertion `json:"assertions"`
	// Rules says per rule what it made of the run: "findings", "judged,
	// none found", "not observed" or "not run", with what it judged.
	Rules []JSONRuleState `json:"rules"`
	// UnjudgedGated names the gated signals none of whose rules judged
	// anything: their pass says nothing.
	UnjudgedGated []string `json:"unjudged_gated_signals"`
	// NewFrom is the earlier report --new-from named ("" when none);
	// findings it held are marked existing.
	NewFrom string `json:"new_from"`
}

// JSONRuleState is one rule's outcome over the run.
type JSONRuleState struct {
	Rule     string `json:"rule"`
	Signal   string `json:"signal"`
	Status   string `json:"status"`
	Judged   int64  `json:"judged"`
	Findings int    `json:"findings"`
	Gated    int    `json:"gated"`
}

// JSONSession is one session's findings, counts and assertion outcomes.
type JSONSession struct {
	ID        string `json:"id"`
	Label     string `json:"label"`     // server label; "" when unknown
	File      string `json:"file"`      // the capture the session came from
	Revision  string `json:"revision"`  // protocol revision; "" when unknown
	Transport string `json:"transport"` // stdio, http …; "" when unknown
	// Frames is the number of frames read; MissingFrames those lost to
	// gaps in the capture's sequence numbers.
	Frames        int64 `json:"frames"`
	MissingFrames int64 `json:"missing_frames"`
	// Passed is true when no finding of the session fails the gate and
	// every assertion held.
	Passed bool `json:"passed"`
	// Counts has every signal as a key, in signal order, zero included.
	// A suppressed finding counts under Suppressed, not under its signal.
	Counts     JSONCounts `json:"counts"`
	Suppressed int        `json:"suppressed"`
	// Findings are in the session's deterministic order (line, rule, message).
	Findings   []JSONFinding   `json:"findings"`
	Assertions []JSONAssertion `json:"assertions"`
	// Failed lists the gated signals with findings, then gated single rules
	// whose signal is not gated: why the session failed.
	Failed []string `json:"failed"`
	// Drift is the session's tool-definition comparison against its
	// baseline (spec §6; drift.go); null when the session listed no tools.
	// The key is always present so that consumers can rely on it.
	Drift *JSONDrift `json:"drift"`
}

// JSONCounts maps a signal name (as --fail-on spells it, e.g. "late-result")
// to its number of findings. It marshals in signal order.
type JSONCounts map[string]int

// JSONFinding is one finding.
type JSONFinding struct {
	Rule     string `json:"rule"`
	Signal   string `json:"signal"`
	Severity string `json:"severity"` // the rule's default: error, warning, note
	Level    string `json:"level"`    // "error" when gated, else "note"
	Gated    bool   `json:"gated"`    // fails the gate
	Message  string `json:"message"`
	File     string `json:"file"`
	Line     int    `json:"line"` // 1-based line of the frame's envelope; 0 for a whole session
	Seq      int64  `json:"seq"`
	Subject  string `json:"subject"` // stable: tool name, method, request id …
	// Fingerprint identifies the finding across runs; it never depends on
	// lines or timestamps.
	Fingerprint string         `json:"fingerprint"`
	Related     []JSONLocation `json:"related"`
	// Also is how many more occurrences the finding stands for when a rule
	// lists a flood once (absent when none); counts include them.
	Also int `json:"also,omitempty"`
	// Suppressed is the suppressions entry that accepts the finding
	// (absent when none): it is then at level note and not gated.
	Suppressed *JSONSuppressed `json:"suppressed,omitempty"`
	// Existing is true when the --new-from report held the finding's
	// fingerprint: it is not gated. Every other finding is new.
	Existing bool `json:"existing"`
	// CausedBy is the finding this one follows from (absent when none),
	// as the end of the message names it.
	CausedBy *JSONCause `json:"caused_by,omitempty"`
}

// JSONCause is the finding another one follows from.
type JSONCause struct {
	Rule    string `json:"rule"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"` // the fault in a few words
}

// JSONSuppressed says why a finding is suppressed and until when.
type JSONSuppressed struct {
	Reason  string  `json:"reason"`
	Expires *string `json:"expires"` // the last day it holds, YYYY-MM-DD (UTC); null for never
}

// JSONLocation is a related place in a capture ("request sent here").
type JSONLocation struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// JSONAssertion is the outcome of one assertion flag for one session.
type JSONAssertion struct {
	Name    string `json:"name"` // expect-tool, forbid-tool, max-duration …
	Arg     string `json:"arg"`  // the tool name or budget as given
	Passed  bool   `json:"passed"`
	Message string `json:"message"`
}

// Report writes the document as it goes, one session at a time (spec
// §2.4), byte for byte as encoding NewJSONReport would.
func (j *JSON) Report(w io.Writer, r *result.Result) error {
	bw := bufio.NewWriter(w)
	var buf bytes.Buffer
	// value writes v indented as a member of the top-level object (or, with
	// the deeper prefix, as an element of its sessions array).
	value := func(prefix string, v any) error {
		buf.Reset()
		enc := json.NewEncoder(&buf)
		enc.SetIndent(prefix, "  ")
		enc.SetEscapeHTML(false) // a file for programs; "<" reads better than \u003c
		if err := enc.Encode(v); err != nil {
			return err
		}
		bw.Write(jsonSafe(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
		return nil
	}
	fmt.Fprintf(bw, "{\n  \"version\": %d,\n  \"passed\": %t,\n  \"exit_code\": %d,\n  \"files\": ", JSONVersion, r.Passed, r.ExitCode)
	if err := value("  ", append([]string{}, r.Files...)); err != nil {
		return err
	}
	bw.WriteString(",\n  \"sessions\": [")
	n := 0
	for s := range r.AllSessions() {
		if n > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		if err := value("    ", jsonSession(s, r.Gate)); err != nil {
			return err
		}
		n++
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n  \"gate\": ")
	if err := value("  ", r.Gate.String()); err != nil {
		return err
	}
	bw.WriteString(",\n  \"config\": ")
	if err := value("  ", j.opts.ConfigFile); err != nil {
		return err
	}
	bw.WriteString(",\n  \"notes\": ")
	if err := value("  ", append([]string{}, r.Notes...)); err != nil {
		return err
	}
	tail := jsonRunTail(r)
	for _, m := range []struct {
		name string
		v    any
	}{{"usage", tail.Usage}, {"assertions", tail.Assertions}, {"rules", tail.Rules}, {"unjudged_gated_signals", tail.UnjudgedGated}, {"new_from", tail.NewFrom}} {
		fmt.Fprintf(bw, ",\n  %q: ", m.name)
		if err := value("  ", m.v); err != nil {
			return err
		}
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// NewJSONReport converts a result into the JSON schema, every session in
// memory: for programs that embed mcpcheck and small runs (the json format
// itself streams).
func NewJSONReport(r *result.Result) JSONReport {
	out := JSONReport{
		Version:  JSONVersion,
		Passed:   r.Passed,
		ExitCode: r.ExitCode,
		Files:    append([]string{}, r.Files...),
		Sessions: make([]JSONSession, 0, r.NumSessions()),
		Gate:     r.Gate.String(),
		Notes:    append([]string{}, r.Notes...),
	}
	for s := range r.AllSessions() {
		out.Sessions = append(out.Sessions, jsonSession(s, r.Gate))
	}
	tail := jsonRunTail(r)
	out.Usage, out.Assertions, out.Rules, out.UnjudgedGated, out.NewFrom = tail.Usage, tail.Assertions, tail.Rules, tail.UnjudgedGated, tail.NewFrom
	return out
}

// jsonRunTail is the members of the report about the whole run.
func jsonRunTail(r *result.Result) JSONReport {
	out := JSONReport{
		Usage:         r.Usage,
		Assertions:    make([]JSONAssertion, 0, len(r.RunAssertions)),
		Rules:         []JSONRuleState{},
		UnjudgedGated: append([]string{}, UnjudgedGated(r)...),
		NewFrom:       r.NewFrom,
	}
	if out.Usage == nil {
		out.Usage = &usage.Summary{Servers: []usage.Server{}}
	}
	for _, a := range r.RunAssertions {
		out.Assertions = append(out.Assertions, JSONAssertion{Name: a.Name, Arg: a.Arg, Passed: a.Passed, Message: a.Message})
	}
	for _, st := range RuleStates(r) {
		out.Rules = append(out.Rules, JSONRuleState{Rule: st.Rule.ID, Signal: st.Rule.Signal.String(), Status: st.Status, Judged: st.Judged, Findings: st.Findings, Gated: st.Gated})
	}
	return out
}

func jsonSession(s *result.SessionResult, g result.Gate) JSONSession {
	js := JSONSession{
		ID: s.ID, Label: s.Label, File: s.File, Revision: s.Revision, Transport: s.Transport,
		Frames: s.Frames, MissingFrames: s.MissingFrames,
		Passed:     s.Passed(),
		Counts:     JSONCounts{},
		Suppressed: s.CountSuppressed(),
		Findings:   make([]JSONFinding, 0, len(s.Findings)),
		Assertions: make([]JSONAssertion, 0, len(s.Assertions)),
		Failed:     append([]string{}, s.FailedSignals(g)...),
		Drift:      jsonDrift(s.Drift),
	}
	for _, sig := range checks.Signals() {
		js.Counts[sig.String()] = s.Count(sig)
	}
	for _, f := range s.Findings {
		js.Findings = append(js.Findings, jsonFinding(f))
	}
	for _, a := range s.Assertions {
		js.Assertions = append(js.Assertions, JSONAssertion{Name: a.Name, Arg: a.Arg, Passed: a.Passed, Message: a.Message})
	}
	return js
}

func jsonFinding(f *result.Finding) JSONFinding {
	jf := JSONFinding{
		Rule: f.Rule, Signal: f.Signal.String(), Severity: f.Severity.String(),
		Level: f.Level(), Gated: f.Gated, Message: f.Message,
		File: f.File, Line: f.Line, Seq: f.Seq, Subject: f.Subject,
		Fingerprint: f.Fingerprint,
		Related:     make([]JSONLocation, 0, len(f.Related)),
		Also:        f.Also,
		Existing:    f.Existing,
	}
	for _, l := range f.Related {
		jf.Related = append(jf.Related, JSONLocation{File: l.File, Line: l.Line, Message: l.Message})
	}
	if c := f.CausedBy; c != nil {
		jf.CausedBy = &JSONCause{Rule: c.Rule, File: c.File, Line: c.Line, Message: c.What}
	}
	if e := f.Suppressed; e != nil {
		jf.Suppressed = &JSONSuppressed{Reason: e.Reason}
		if e.Expires != "" {
			jf.Suppressed.Expires = &e.Expires
		}
	}
	return jf
}

// MarshalJSON writes the signals in signal order, then any other key
// sorted, so the object reads in the same order as every other report.
// The encoder re-indents the result.
func (c JSONCounts) MarshalJSON() ([]byte, error) {
	var keys []string
	known := map[string]bool{}
	for _, sig := range checks.Signals() {
		if _, ok := c[sig.String()]; ok {
			keys = append(keys, sig.String())
			known[sig.String()] = true
		}
	}
	var rest []string
	for k := range c {
		if !known[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	keys = append(keys, rest...)

	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(c[k]))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
