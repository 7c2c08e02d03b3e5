package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"

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
// §2.4), byte for byte as encoding NewJSONReport would: by hand, as
// encoding/json with SetIndent and SetEscapeHTML(false) writes each type
// (TestJSONWriterIsEncodingJSON holds the two together), then jsonSafe.
// Through reflection and a second pass to indent, the sessions of a run
// of many were most of its time; the usage summary is still encoded by
// encoding/json.
func (j *JSON) Report(w io.Writer, r *result.Result) error {
	bw := bufio.NewWriterSize(w, writeBufferSize)
	x := &jsonIndenter{}
	// flush hands what x holds to bw, so that one session at a time is held.
	flush := func() {
		bw.Write(jsonSafe(x.b))
		x.b = x.b[:0]
	}
	x.object(func(o *jsonObject) {
		o.key("version").integer(JSONVersion)
		o.key("passed").boolean(r.Passed)
		o.key("exit_code").integer(int64(r.ExitCode))
		jsonList(o.key("files"), append([]string{}, r.Files...), textJSON)
		o.key("sessions").elements(func(a *jsonItems) {
			for s := range r.AllSessions() {
				js := jsonSession(s, r.Gate)
				sessionJSON(a.next(), &js)
				flush()
			}
		})
		o.key("gate").text(r.Gate.String())
		o.key("config").text(j.opts.ConfigFile)
		jsonList(o.key("notes"), append([]string{}, r.Notes...), textJSON)
		tail := jsonRunTail(r)
		o.key("usage").encoded(tail.Usage)
		jsonList(o.key("assertions"), tail.Assertions, assertionJSON)
		jsonList(o.key("rules"), tail.Rules, ruleStateJSON)
		jsonList(o.key("unjudged_gated_signals"), tail.UnjudgedGated, textJSON)
		o.key("new_from").text(tail.NewFrom)
	})
	x.b = append(x.b, '\n')
	flush()
	if x.err != nil {
		return x.err
	}
	return bw.Flush()
}

// sessionJSON writes s as encoding/json writes a JSONSession.
func sessionJSON(w *jsonIndenter, s *JSONSession) {
	w.object(func(o *jsonObject) {
		o.key("id").text(s.ID)
		o.key("label").text(s.Label)
		o.key("file").text(s.File)
		o.key("revision").text(s.Revision)
		o.key("transport").text(s.Transport)
		o.key("frames").integer(s.Frames)
		o.key("missing_frames").integer(s.MissingFrames)
		o.key("passed").boolean(s.Passed)
		countsJSON(o.key("counts"), s.Counts)
		o.key("suppressed").integer(int64(s.Suppressed))
		jsonList(o.key("findings"), s.Findings, findingJSON)
		jsonList(o.key("assertions"), s.Assertions, assertionJSON)
		jsonList(o.key("failed"), s.Failed, textJSON)
		driftJSON(o.key("drift"), s.Drift)
	})
}

func findingJSON(w *jsonIndenter, f *JSONFinding) {
	w.object(func(o *jsonObject) {
		o.key("rule").text(f.Rule)
		o.key("signal").text(f.Signal)
		o.key("severity").text(f.Severity)
		o.key("level").text(f.Level)
		o.key("gated").boolean(f.Gated)
		o.key("message").text(f.Message)
		o.key("file").text(f.File)
		o.key("line").integer(int64(f.Line))
		o.key("seq").integer(f.Seq)
		o.key("subject").text(f.Subject)
		o.key("fingerprint").text(f.Fingerprint)
		jsonList(o.key("related"), f.Related, locationJSON)
		if f.Also != 0 {
			o.key("also").integer(int64(f.Also))
		}
		if sp := f.Suppressed; sp != nil {
			o.key("suppressed").object(func(o *jsonObject) {
				o.key("reason").text(sp.Reason)
				nullableJSON(o.key("expires"), sp.Expires)
			})
		}
		o.key("existing").boolean(f.Existing)
		if c := f.CausedBy; c != nil {
			o.key("caused_by").object(func(o *jsonObject) {
				o.key("rule").text(c.Rule)
				o.key("file").text(c.File)
				o.key("line").integer(int64(c.Line))
				o.key("message").text(c.Message)
			})
		}
	})
}

func locationJSON(w *jsonIndenter, l *JSONLocation) {
	w.object(func(o *jsonObject) {
		o.key("file").text(l.File)
		o.key("line").integer(int64(l.Line))
		o.key("message").text(l.Message)
	})
}

func assertionJSON(w *jsonIndenter, a *JSONAssertion) {
	w.object(func(o *jsonObject) {
		o.key("name").text(a.Name)
		o.key("arg").text(a.Arg)
		o.key("passed").boolean(a.Passed)
		o.key("message").text(a.Message)
	})
}

func ruleStateJSON(w *jsonIndenter, st *JSONRuleState) {
	w.object(func(o *jsonObject) {
		o.key("rule").text(st.Rule)
		o.key("signal").text(st.Signal)
		o.key("status").text(st.Status)
		o.key("judged").integer(st.Judged)
		o.key("findings").integer(int64(st.Findings))
		o.key("gated").integer(int64(st.Gated))
	})
}

// countsJSON writes c as its MarshalJSON does, indented; its keys are
// json.Marshal's, which unlike the report's strings escape HTML.
func countsJSON(w *jsonIndenter, c JSONCounts) {
	w.object(func(o *jsonObject) {
		for _, k := range c.keys() {
			if strings.ContainsAny(k, "<>&") {
				name, _ := json.Marshal(k) // a string always marshals
				o.next()
				w.b = append(w.b, name...)
				w.b = append(w.b, ": "...)
			} else {
				o.key(k)
			}
			w.integer(int64(c[k]))
		}
	})
}

func nullableJSON(w *jsonIndenter, s *string) {
	if s == nil {
		w.null()
		return
	}
	w.text(*s)
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
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range c.keys() {
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

// keys are c's keys in the order it is written: the signals it has, in
// signal order, then any other key sorted.
func (c JSONCounts) keys() []string {
	if len(c) == len(signalNames) && c.hasEverySignal() {
		return signalNames[:]
	}
	var keys []string
	known := map[string]bool{}
	for _, name := range signalNames {
		if _, ok := c[name]; ok {
			keys = append(keys, name)
			known[name] = true
		}
	}
	var rest []string
	for k := range c {
		if !known[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

// hasEverySignal is the common case: counts made by jsonSession.
func (c JSONCounts) hasEverySignal() bool {
	for _, name := range signalNames {
		if _, ok := c[name]; !ok {
			return false
		}
	}
	return true
}

// signalNames are the signals' names in signal order, made once.
var signalNames = func() (names [checks.NumSignals]string) {
	for _, sig := range checks.Signals() {
		names[sig] = sig.String()
	}
	return names
}()
