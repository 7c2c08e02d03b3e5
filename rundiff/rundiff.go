// Package rundiff compares two runs (spec §5.3): the tools each server
// advertised (the drift comparison with its tiers), findings new and gone
// by fingerprint, call outcomes that changed for the same tool and
// arguments, per-tool latency past a ratio, and coverage gained and lost.
// It reads two sides as plain data and decides what is a regression; it
// neither reads files nor renders.
package rundiff

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/usage"
)

// Finding is a finding as the comparison needs it.
type Finding struct {
	Fingerprint string `json:"fingerprint"`
	Rule        string `json:"rule"`
	Label       string `json:"label"`
	Message     string `json:"message"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	Gated       bool   `json:"gated"` // fails the gate of its run
}

// Side is one run: its usage and its findings by fingerprint.
type Side struct {
	Name     string // what was compared, for messages: the captures or the report
	Usage    *usage.Summary
	Findings map[string]Finding
	// Report says the side is an earlier JSON report: it holds no tool
	// definitions and no call outcomes, only names and statistics.
	Report bool
}

// Options tune what counts as a regression.
type Options struct {
	// DurationRatio: a tool whose p50 or p95 grew by more than this factor
	// is a regression; 0 compares no latency.
	DurationRatio float64
	// MinDelta: a latency change smaller than this is noise, whatever its
	// ratio.
	MinDelta time.Duration
}

// Diff is what changed from base to head.
type Diff struct {
	Tools       []ServerTools    `json:"tools"`
	NewFindings []Finding        `json:"new_findings"`
	Gone        []Finding        `json:"gone_findings"`
	Outcomes    []OutcomeChange  `json:"outcomes"`
	Latency     []LatencyChange  `json:"latency"`
	Coverage    []CoverageChange `json:"coverage"`
	Notes       []string         `json:"notes"`
	// Regressions says, one line each, why the diff fails: a new gated
	// finding, a success that became a failure, a breaking tool change,
	// latency past the ratio.
	Regressions []string `json:"regressions"`
}

// ServerTools are the tool changes of one server label.
type ServerTools struct {
	Label   string                `json:"label"`
	Changes []baseline.ToolChange `json:"changes"`
}

// OutcomeChange is a tool with the same arguments whose outcome changed.
type OutcomeChange struct {
	Label      string `json:"label"`
	Tool       string `json:"tool"`
	ArgsHash   string `json:"arguments_hash"`
	Base       string `json:"base"` // succeeded, failed, flaky
	Head       string `json:"head"`
	HeadKind   string `json:"head_fail_kind,omitempty"`
	Regression bool   `json:"regression"`
}

// LatencyChange is a tool whose p50 or p95 moved past the ratio.
type LatencyChange struct {
	Label      string        `json:"label"`
	Tool       string        `json:"tool"`
	BaseP50    time.Duration `json:"base_p50_ns"`
	HeadP50    time.Duration `json:"head_p50_ns"`
	BaseP95    time.Duration `json:"base_p95_ns"`
	HeadP95    time.Duration `json:"head_p95_ns"`
	Ratio      float64       `json:"ratio"` // the larger of the two ratios
	Regression bool          `json:"regression"`
}

// CoverageChange is a server whose successfully called tools changed.
type CoverageChange struct {
	Label       string   `json:"label"`
	BasePercent float64  `json:"base_percent"`
	HeadPercent float64  `json:"head_percent"`
	Gained      []string `json:"gained"` // called successfully in head, not in base
	Lost        []string `json:"lost"`   // called successfully in base, not in head
}

// Compare compares head with base.
func Compare(base, head *Side, o Options) *Diff {
	d := &Diff{Tools: []ServerTools{}, NewFindings: []Finding{}, Gone: []Finding{}, Outcomes: []OutcomeChange{},
		Latency: []LatencyChange{}, Coverage: []CoverageChange{}, Notes: []string{}, Regressions: []string{}}
	d.findings(base, head)
	labels := map[string]bool{}
	for _, s := range []*Side{base, head} {
		if s.Usage != nil {
			for _, sv := range s.Usage.Servers {
				labels[sv.Label] = true
			}
		}
	}
	order := make([]string, 0, len(labels))
	for l := range labels {
		order = append(order, l)
	}
	sort.Strings(order)
	for _, l := range order {
		b, h := base.Usage.Server(l), head.Usage.Server(l)
		d.tools(l, b, h, base.Report || head.Report)
		if b == nil || h == nil {
			continue
		}
		d.outcomes(l, b, h)
		d.latency(l, b, h, o)
		d.coverage(l, b, h)
	}
	if base.Report || head.Report {
		d.Notes = append(d.Notes, "a side is a JSON report: tool definitions and call outcomes are not in it, so tools are compared by name only and outcomes not at all")
	}
	for _, s := range []*Side{base, head} {
		if s.Usage != nil && s.Usage.CapReached {
			d.Notes = append(d.Notes, fmt.Sprintf("%s: more distinct tool arguments than the %d remembered: outcomes of later ones were not compared", s.Name, s.Usage.MaxArgumentHashes))
		}
		if s.Usage != nil {
			if n := s.Usage.LabelCapNote(); n != "" {
				d.Notes = append(d.Notes, s.Name+": "+n+", and are not compared")
			}
		}
	}
	return d
}

// Regressed reports whether the diff fails (exit 1).
func (d *Diff) Regressed() bool { return len(d.Regressions) > 0 }

func (d *Diff) findings(base, head *Side) {
	for fp, f := range head.Findings {
		if _, ok := base.Findings[fp]; !ok {
			d.NewFindings = append(d.NewFindings, f)
		}
	}
	for fp, f := range base.Findings {
		if _, ok := head.Findings[fp]; !ok {
			d.Gone = append(d.Gone, f)
		}
	}
	byPlace := func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Fingerprint, b.Fingerprint))
	}
	slices.SortFunc(d.NewFindings, byPlace)
	slices.SortFunc(d.Gone, byPlace)
	gated := 0
	for _, f := range d.NewFindings {
		if f.Gated {
			gated++
		}
	}
	if gated > 0 {
		d.Regressions = append(d.Regressions, fmt.Sprintf("%d new %s the gate", gated, plural(gated, "finding fails", "findings fail")))
	}
}

// tools compares the advertised tools of label: the drift comparison when
// both sides hold definitions, else by name.
func (d *Diff) tools(label string, b, h *usage.Server, namesOnly bool) {
	var changes []baseline.ToolChange
	switch {
	case b != nil && h != nil && b.Definitions != nil && h.Definitions != nil && !namesOnly:
		changes = baseline.Compare(b.Definitions, h.Definitions)
	default:
		bn, hn := advertised(b), advertised(h)
		for n := range bn {
			if !hn[n] && h != nil && h.Tools.Listed {
				changes = append(changes, baseline.ToolChange{Tool: n, Change: baseline.Removed, Tier: baseline.TierBreaking})
			}
		}
		for n := range hn {
			if !bn[n] && b != nil && b.Tools.Listed {
				changes = append(changes, baseline.ToolChange{Tool: n, Change: baseline.Added, Tier: baseline.TierInfo})
			}
		}
		slices.SortFunc(changes, func(x, y baseline.ToolChange) int { return cmp.Compare(x.Tool, y.Tool) })
	}
	if len(changes) == 0 {
		return
	}
	d.Tools = append(d.Tools, ServerTools{Label: label, Changes: changes})
	var breaking []string
	for _, c := range changes {
		if c.Tier == baseline.TierBreaking {
			breaking = append(breaking, c.Tool)
		}
	}
	if len(breaking) > 0 {
		d.Regressions = append(d.Regressions, fmt.Sprintf("server %s: breaking tool changes: %s", labelOf(label), joinNames(breaking)))
	}
}

func advertised(s *usage.Server) map[string]bool {
	out := map[string]bool{}
	if s == nil {
		return out
	}
	for _, t := range s.ToolStats {
		if t.Advertised {
			out[t.Name] = true
		}
	}
	return out
}

func outcomeName(o usage.Outcome) string {
	switch {
	case o.OK && o.Failed:
		return "flaky"
	case o.Failed:
		return "failed"
	}
	return "succeeded"
}

func (d *Diff) outcomes(label string, b, h *usage.Server) {
	bo, ho := b.Outcomes(), h.Outcomes()
	type key struct {
		tool string
		args uint64
	}
	base := make(map[key]usage.Outcome, len(bo))
	for _, o := range bo {
		base[key{o.Tool, o.Args}] = o
	}
	regressed := 0
	for _, o := range ho {
		was, ok := base[key{o.Tool, o.Args}]
		if !ok || outcomeName(was) == outcomeName(o) {
			continue
		}
		c := OutcomeChange{Label: label, Tool: o.Tool, ArgsHash: fmt.Sprintf("%016x", o.Args), Base: outcomeName(was), Head: outcomeName(o), HeadKind: o.FailKind}
		c.Regression = was.OK && !was.Failed && o.Failed // a success that became a failure
		if c.Regression {
			regressed++
		}
		d.Outcomes = append(d.Outcomes, c)
	}
	if regressed > 0 {
		d.Regressions = append(d.Regressions, fmt.Sprintf("server %s: %d %s that succeeded in base failed in head", labelOf(label), regressed, plural(regressed, "call", "calls")))
	}
}

func (d *Diff) latency(label string, b, h *usage.Server, o Options) {
	if o.DurationRatio <= 0 {
		return
	}
	bt := map[string]usage.Tool{}
	for _, t := range b.ToolStats {
		bt[t.Name] = t
	}
	var slow []string
	for _, t := range h.ToolStats {
		was, ok := bt[t.Name]
		if !ok || was.Latency.Count == 0 || t.Latency.Count == 0 {
			continue
		}
		c := LatencyChange{Label: label, Tool: t.Name, BaseP50: was.Latency.P50, HeadP50: t.Latency.P50, BaseP95: was.Latency.P95, HeadP95: t.Latency.P95}
		c.Ratio = max(ratio(c.BaseP50, c.HeadP50), ratio(c.BaseP95, c.HeadP95))
		grew := (ratio(c.BaseP50, c.HeadP50) > o.DurationRatio && c.HeadP50-c.BaseP50 >= o.MinDelta) ||
			(ratio(c.BaseP95, c.HeadP95) > o.DurationRatio && c.HeadP95-c.BaseP95 >= o.MinDelta)
		shrank := c.Ratio < 1/o.DurationRatio && c.BaseP95-c.HeadP95 >= o.MinDelta
		if !grew && !shrank {
			continue
		}
		c.Regression = grew
		if grew {
			slow = append(slow, t.Name)
		}
		d.Latency = append(d.Latency, c)
	}
	if len(slow) > 0 {
		d.Regressions = append(d.Regressions, fmt.Sprintf("server %s: latency past %gx: %s", labelOf(label), o.DurationRatio, joinNames(slow)))
	}
}

// ratio is cur/old, with a zero old read as 1µs.
func ratio(old, cur time.Duration) float64 {
	return float64(cur) / float64(max(old, time.Microsecond))
}

func succeeded(s *usage.Server) map[string]bool {
	out := map[string]bool{}
	for _, t := range s.ToolStats {
		if t.OK > 0 {
			out[t.Name] = true
		}
	}
	return out
}

func (d *Diff) coverage(label string, b, h *usage.Server) {
	bs, hs := succeeded(b), succeeded(h)
	c := CoverageChange{Label: label, BasePercent: b.Tools.Percent(), HeadPercent: h.Tools.Percent(), Gained: []string{}, Lost: []string{}}
	for n := range hs {
		if !bs[n] {
			c.Gained = append(c.Gained, n)
		}
	}
	for n := range bs {
		if !hs[n] {
			c.Lost = append(c.Lost, n)
		}
	}
	if len(c.Gained)+len(c.Lost) == 0 && c.BasePercent == c.HeadPercent {
		return
	}
	slices.Sort(c.Gained)
	slices.Sort(c.Lost)
	d.Coverage = append(d.Coverage, c)
}

func labelOf(l string) string {
	if l == "" {
		return "(unlabelled)"
	}
	return l
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// joinNames lists up to 10 names and counts the rest.
func joinNames(names []string) string {
	const most = 10
	s := ""
	for i, n := range names {
		if i == most {
			return s + fmt.Sprintf(" and %d more", len(names)-most)
		}
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
