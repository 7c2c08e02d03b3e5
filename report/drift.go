package report

import (
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/result"
)

// maxDriftDiffs bounds the differences the text block lists per field;
// the json format has them all.
const maxDriftDiffs = 10

// DriftBlock is the text drift block of a session (spec §7.1): the
// baseline it was compared with, then every changed tool with its tier,
// each changed field with its tier and its differences as JSON pointers.
// It is empty when the session has no drift to show (no changes and no
// field left uncompared); recording and unusable baselines are findings
// of the baseline rule.
func DriftBlock(s *result.SessionResult) []string {
	r := s.Drift
	if r == nil || (len(r.Changes) == 0 && len(r.NotCompared) == 0) {
		return nil
	}
	added, removed, changed := r.Kinds()
	breaking, review, info := r.Tiers()
	head := fmt.Sprintf("drift of server %s against %s", printable(fmt.Sprintf("%q", r.Label)), driftSource(r))
	var lines []string
	if len(r.Changes) == 0 {
		lines = append(lines, head+": no tool differs")
	} else {
		lines = append(lines, fmt.Sprintf("%s: %d added, %d removed, %d changed (breaking %d, review %d, info %d)",
			head, added, removed, changed, breaking, review, info))
	}
	for _, c := range r.Changes {
		mark := map[baseline.ChangeKind]string{baseline.Added: "+", baseline.Removed: "-", baseline.Changed: "~"}[c.Change]
		lines = append(lines, fmt.Sprintf("  %s %s (%s)", mark, printable(c.Tool), c.Tier))
		for _, fc := range c.Fields {
			lines = append(lines, fmt.Sprintf("      %s (%s)", fc.Field, fc.Tier))
			for i, d := range fc.Diffs {
				if i == maxDriftDiffs {
					lines = append(lines, fmt.Sprintf("        … %d more (the json format lists them all)", len(fc.Diffs)-i))
					break
				}
				lines = append(lines, "        "+printable(d.Explained()))
			}
		}
	}
	if len(r.NotCompared) > 0 {
		names := make([]string, len(r.NotCompared))
		for i, f := range r.NotCompared {
			names[i] = string(f)
		}
		lines = append(lines, fmt.Sprintf("  not compared, as the %s does not record them: %s", r.Format, strings.Join(names, ", ")))
	}
	return lines
}

// driftSource names the baseline a session was compared with.
func driftSource(r *baseline.Report) string {
	var src string
	switch {
	case r.RecordedBy != nil:
		src = fmt.Sprintf("the baseline session %s recorded earlier in this run", printable(r.RecordedBy.Session))
	case r.Status == baseline.StatusRecorded:
		src = "the baseline this session recorded"
	case r.Path != "":
		src = "its baseline " + printable(r.Path)
	default:
		src = "its baseline"
	}
	var about []string
	if r.Format != "" {
		about = append(about, r.Format)
	}
	if a := r.Accepted; a != nil {
		about = append(about, printable(fmt.Sprintf("accepted %s: %q", a.Time, a.Reason)))
	}
	if len(about) > 0 {
		src += " (" + strings.Join(about, ", ") + ")"
	}
	return src
}

// gatedDrift reports whether a drift finding of the session fails the gate.
func gatedDrift(s *result.SessionResult) bool {
	for _, f := range s.Findings {
		if f.Gated && f.Drift != nil {
			return true
		}
	}
	return false
}

// JSONDrift is a session's tool-definition drift against its baseline
// (spec §6). It is null when the session listed no tools (or tool-drift
// is disabled).
type JSONDrift struct {
	Label string `json:"label"`
	// Status is compared (with a baseline; recorded_in_run says when an
	// earlier session of this run recorded it), recorded (this session's
	// first listing became the baseline: nothing was verified), or
	// unavailable (problem says why).
	Status string `json:"status"`
	// Baseline is the baseline file, "" without a baseline directory.
	Baseline string `json:"baseline"`
	// Format is the file's format and version ("mcpcheck baseline
	// version 1", "mcpsnoop baseline version 2"); "" when none was used.
	Format        string          `json:"format"`
	Recorded      *JSONProvenance `json:"recorded"` // when check recorded it (trust on first use)
	Accepted      *JSONProvenance `json:"accepted"` // when a person accepted it, and why
	RecordedInRun *JSONOrigin     `json:"recorded_in_run"`
	// NotKept says why a baseline recorded in this run is not on disk.
	NotKept string `json:"not_kept"`
	// NotCompared are fields the baseline does not record (an mcpsnoop
	// version 1 file): they were not compared.
	NotCompared []string        `json:"not_compared"`
	Problem     string          `json:"problem"`
	Counts      JSONDriftCounts `json:"counts"`
	Tools       []JSONToolDrift `json:"tools"`
}

// JSONProvenance is when and from which capture a baseline was taken.
type JSONProvenance struct {
	Reason  string `json:"reason,omitempty"`
	Time    string `json:"time"`
	Capture string `json:"capture"`
	Session string `json:"session"`
}

// JSONOrigin is the session that recorded a baseline earlier in the run.
type JSONOrigin struct {
	File    string `json:"file"`
	Session string `json:"session"`
	Line    int    `json:"line"`
}

// JSONDriftCounts counts changed tools by kind and by tier.
type JSONDriftCounts struct {
	Added    int `json:"added"`
	Removed  int `json:"removed"`
	Changed  int `json:"changed"`
	Breaking int `json:"breaking"`
	Review   int `json:"review"`
	Info     int `json:"info"`
}

// JSONToolDrift is one tool that differs: added, removed or changed, its
// tier (the highest of its fields), and the changed fields.
type JSONToolDrift struct {
	Tool   string           `json:"tool"`
	Change string           `json:"change"`
	Tier   string           `json:"tier"`
	Fields []JSONFieldDrift `json:"fields"`
}

// JSONFieldDrift is one changed field (description, title, input_schema,
// output_schema, annotations, icons) and its differences.
type JSONFieldDrift struct {
	Field string          `json:"field"`
	Tier  string          `json:"tier"`
	Diffs []JSONDriftDiff `json:"diffs"`
}

// JSONDriftDiff is one difference: a JSON pointer into the field's value
// ("" for the whole value), the old and new values as JSON (a member is
// absent when the value was), the tier and why it has it.
type JSONDriftDiff struct {
	Pointer string          `json:"pointer"`
	Old     json.RawMessage `json:"old,omitempty"`
	New     json.RawMessage `json:"new,omitempty"`
	Tier    string          `json:"tier"`
	Reason  string          `json:"reason"`
}

func jsonDrift(r *baseline.Report) *JSONDrift {
	if r == nil {
		return nil
	}
	j := &JSONDrift{
		Label: r.Label, Status: string(r.Status), Baseline: r.Path, Format: r.Format,
		Recorded: jsonProvenance(r.Recorded), Accepted: jsonProvenance(r.Accepted),
		NotKept: r.NotKept, Problem: r.Problem,
		NotCompared: []string{},
		Tools:       make([]JSONToolDrift, 0, len(r.Changes)),
	}
	if o := r.RecordedBy; o != nil {
		j.RecordedInRun = &JSONOrigin{File: o.File, Session: o.Session, Line: o.Line}
	}
	for _, f := range r.NotCompared {
		j.NotCompared = append(j.NotCompared, string(f))
	}
	c := &j.Counts
	c.Added, c.Removed, c.Changed = r.Kinds()
	c.Breaking, c.Review, c.Info = r.Tiers()
	for _, tc := range r.Changes {
		jt := JSONToolDrift{Tool: tc.Tool, Change: string(tc.Change), Tier: tc.Tier.String(), Fields: []JSONFieldDrift{}}
		for _, fc := range tc.Fields {
			jf := JSONFieldDrift{Field: string(fc.Field), Tier: fc.Tier.String(), Diffs: []JSONDriftDiff{}}
			for _, d := range fc.Diffs {
				jf.Diffs = append(jf.Diffs, JSONDriftDiff{Pointer: d.Pointer, Old: rawOrNil(d.Old), New: rawOrNil(d.New), Tier: d.Tier.String(), Reason: d.Reason})
			}
			jt.Fields = append(jt.Fields, jf)
		}
		j.Tools = append(j.Tools, jt)
	}
	return j
}

// driftJSON writes d as encoding/json writes a *JSONDrift; the old and
// new values of its differences are left to it.
func driftJSON(w *jsonIndenter, d *JSONDrift) {
	if d == nil {
		w.null()
		return
	}
	w.object(func(o *jsonObject) {
		o.key("label").text(d.Label)
		o.key("status").text(d.Status)
		o.key("baseline").text(d.Baseline)
		o.key("format").text(d.Format)
		provenanceJSON(o.key("recorded"), d.Recorded)
		provenanceJSON(o.key("accepted"), d.Accepted)
		if rr := o.key("recorded_in_run"); d.RecordedInRun != nil {
			rr.object(func(o *jsonObject) {
				o.key("file").text(d.RecordedInRun.File)
				o.key("session").text(d.RecordedInRun.Session)
				o.key("line").integer(int64(d.RecordedInRun.Line))
			})
		} else {
			rr.null()
		}
		o.key("not_kept").text(d.NotKept)
		jsonList(o.key("not_compared"), d.NotCompared, textJSON)
		o.key("problem").text(d.Problem)
		c := &d.Counts
		o.key("counts").object(func(o *jsonObject) {
			o.key("added").integer(int64(c.Added))
			o.key("removed").integer(int64(c.Removed))
			o.key("changed").integer(int64(c.Changed))
			o.key("breaking").integer(int64(c.Breaking))
			o.key("review").integer(int64(c.Review))
			o.key("info").integer(int64(c.Info))
		})
		jsonList(o.key("tools"), d.Tools, toolDriftJSON)
	})
}

func provenanceJSON(w *jsonIndenter, p *JSONProvenance) {
	if p == nil {
		w.null()
		return
	}
	w.object(func(o *jsonObject) {
		if p.Reason != "" {
			o.key("reason").text(p.Reason)
		}
		o.key("time").text(p.Time)
		o.key("capture").text(p.Capture)
		o.key("session").text(p.Session)
	})
}

func toolDriftJSON(w *jsonIndenter, t *JSONToolDrift) {
	w.object(func(o *jsonObject) {
		o.key("tool").text(t.Tool)
		o.key("change").text(t.Change)
		o.key("tier").text(t.Tier)
		jsonList(o.key("fields"), t.Fields, fieldDriftJSON)
	})
}

func fieldDriftJSON(w *jsonIndenter, f *JSONFieldDrift) {
	w.object(func(o *jsonObject) {
		o.key("field").text(f.Field)
		o.key("tier").text(f.Tier)
		jsonList(o.key("diffs"), f.Diffs, driftDiffJSON)
	})
}

func driftDiffJSON(w *jsonIndenter, d *JSONDriftDiff) {
	w.object(func(o *jsonObject) {
		o.key("pointer").text(d.Pointer)
		if len(d.Old) > 0 {
			o.key("old").encoded(d.Old)
		}
		if len(d.New) > 0 {
			o.key("new").encoded(d.New)
		}
		o.key("tier").text(d.Tier)
		o.key("reason").text(d.Reason)
	})
}

func jsonProvenance(p *baseline.Provenance) *JSONProvenance {
	if p == nil {
		return nil
	}
	return &JSONProvenance{Reason: p.Reason, Time: p.Time, Capture: p.Capture, Session: p.Session}
}

// rawOrNil embeds a canonical JSON value; invalid bytes (a baseline file
// holding something that is not JSON) become a JSON string.
func rawOrNil(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// sarifDriftProperties carries a tool-drift finding's tier and fields.
func sarifDriftProperties(p map[string]any, c *baseline.ToolChange) {
	p["tier"] = c.Tier.String()
	p["change"] = string(c.Change)
	fields := make([]map[string]string, 0, len(c.Fields))
	for _, fc := range c.Fields {
		fields = append(fields, map[string]string{"field": string(fc.Field), "tier": fc.Tier.String()})
	}
	p["fields"] = fields
}

// ghDriftRows are the step summary's tool drift table rows: one per
// changed tool, with its tier and each field's tier.
func ghDriftRows(r *result.Result) iter.Seq[string] {
	return func(yield func(string) bool) {
		for s := range r.AllSessions() {
			if s.Drift == nil {
				continue
			}
			for _, c := range s.Drift.Changes {
				fields := "—"
				if len(c.Fields) > 0 {
					fields = strings.Join(c.FieldTiers(), ", ")
				}
				if !yield(fmt.Sprintf("| %s | %s | %s | %s | %s | %s |", ghMarkdown(s.ID), ghMarkdown(s.Label),
					ghMarkdown(c.Tool), c.Change, c.Tier, ghMarkdown(fields))) {
					return
				}
			}
		}
	}
}

func (s *ghSummary) drift(r *result.Result) {
	head := func() {
		s.line("")
		s.line("### Tool drift")
		s.line("")
		s.line("| session | label | tool | change | tier | fields |")
		s.line("|---|---|---|---|---|---|")
	}
	if n := s.section(head, ghDriftRows(r)); n > 0 {
		s.line("")
		s.line("%s not shown; the json report has them all.", countNoun(n, "more changed tool", "more changed tools"))
	}
}
