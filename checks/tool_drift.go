package checks

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/facts"
)

var ruleToolDrift = &Rule{
	ID:       "tool-drift",
	Signal:   SignalDrift,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "A tool definition differs from the server's baseline",
		Why: `A client, and the person who approved a server for it, trust the tools the
server listed when it was approved. A server that later lists a tool as destructive
that was read-only, removes a tool, or adds a required argument breaks that trust
(a "rug pull") or its callers, and nothing in the protocol says so.

A server label's baseline is a tools/list accepted with mcpcheck baseline
--accept (or recorded by check --record-baseline) into the baseline directory
(--baseline, else .mcpcheck/baselines under the source root); sessions compare
with it field by field: the set of tools,
description, title, input and output schema (canonical JSON; a root $schema that
spells out the default dialect does not count), annotations (through their spec
defaults: readOnlyHint false, destructiveHint true, idempotentHint false,
openWorldHint true; a hint that is not a boolean is kept as it is) and icons (in
order). One finding per added, removed or changed tool; a changed tool lists each
field with its tier and its main difference as a JSON pointer, and the finding's
severity follows its highest tier.

Tiers: breaking (a tool removed; a required argument added; an argument removed or
retyped; an enum narrowed; readOnlyHint true to false; destructiveHint false to true;
an output schema narrowed: a property removed, retyped or no longer required, or the
schema removed), review (description or title; a new optional argument; other
annotation changes; an output schema widened), info (a tool added; icons).`,
		Fix: `Review the change. If it is intended, accept it with
mcpcheck baseline CAPTURE --accept --reason "…" and commit the baseline directory;
otherwise fix the server.`,
		Bad:   `baseline: "delete_note" with annotations {"readOnlyHint":true}; now {"name":"delete_note","annotations":{"readOnlyHint":false,"destructiveHint":true}}`,
		Good:  `baseline: "delete_note" with annotations {"readOnlyHint":true}; now {"name":"delete_note","annotations":{"readOnlyHint":true}}`,
		Since: "0.2.0",
	},
	Facts:   []facts.Fact{facts.ToolListings},
	Options: []Setting{BaselineStore},
	New:     func() Checker { return &toolDrift{} },
}

type toolDrift struct{ Base }

func (*toolDrift) End(p *Pass) {
	d := computeDrift(p)
	if d == nil {
		return
	}
	p.attachDrift(d.report)
	r := d.report
	for i := range r.Changes {
		c := &r.Changes[i]
		l := d.lines[i]
		fd := p.ReportAt(Location{File: p.Session.File, Line: l.Line}, l.Seq, driftSubject(c, &l), "%s", driftMessage(c))
		fd.Severity = tierSeverity(c.Tier)
		fd.Drift = c
		if by := r.RecordedBy; by != nil {
			fd.Relate(by.File, by.Line, "baseline recorded here, earlier in this run")
		}
		relateDiffs(fd, c, p.Session.File, l.Line)
	}
}

// driftSubject names a change of a tool with a digest of what changed:
// the same change recorded again keeps its fingerprint, and a suppression
// of one change never hides a later, different one (an added tool that
// then turns destructive).
func driftSubject(c *baseline.ToolChange, l *facts.ToolListing) string {
	h := sha256.New()
	fmt.Fprintf(h, "%v", c.Fields)
	if t, ok := l.Definitions.Lookup(c.Tool); ok && c.Change == baseline.Added {
		// the members as they were digested before Tool.Hashed existed:
		// fingerprints, and the suppressions that name them, stay
		fmt.Fprintf(h, "%v", struct {
			Name, Title, Description                      string
			InputSchema, OutputSchema, Annotations, Icons json.RawMessage
		}{t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations, t.Icons})
	}
	return fmt.Sprintf("tool %s %s %x", c.Tool, c.Change, h.Sum(nil)[:4])
}

// driftMessage is a tool change in one short line: its tier said once,
// first ("breaking: …"), then the difference that set it; the other
// changed fields are named, and every difference is a related location of
// its own (and in JSON, with the change), so nothing is cut mid-word.
func driftMessage(c *baseline.ToolChange) string {
	name := quoteName(c.Tool)
	switch c.Change {
	case baseline.Added:
		return fmt.Sprintf("%s: tool %s was added since the baseline", c.Tier, name)
	case baseline.Removed:
		return fmt.Sprintf("%s: tool %s was removed since the baseline", c.Tier, name)
	}
	if len(c.Fields) == 0 {
		return fmt.Sprintf("%s: tool %s changed since the baseline", c.Tier, name)
	}
	top := 0
	diffs := 0
	for i, fc := range c.Fields {
		diffs += len(fc.Diffs)
		if fc.Tier > c.Fields[top].Tier {
			top = i
		}
	}
	fc := c.Fields[top]
	h := fc.Headline()
	what := h.String()
	if h.Reason != "" {
		what = h.Reason
		if h.Pointer != "" {
			what += " at " + h.Pointer
		}
	}
	msg := fmt.Sprintf("%s: tool %s changed since the baseline: %s: %s", c.Tier, name, fc.Field, what)
	var others []string
	for i, o := range c.Fields {
		if i != top {
			others = append(others, string(o.Field))
		}
	}
	if len(others) > 0 {
		msg += "; also changed: " + strings.Join(others, ", ")
	}
	if diffs > 1 {
		msg += fmt.Sprintf(" (%d differences)", diffs)
	}
	return msg
}

// maxDriftRelated bounds the differences a tool-drift finding lists as
// related locations; the drift block and JSON carry them all.
const maxDriftRelated = 20

// relateDiffs adds each difference of c as a related location at the
// listing that shows it: "input_schema: /properties/path: added … (breaking:
// required argument added)".
func relateDiffs(fd *Finding, c *baseline.ToolChange, file string, line int) {
	n := 0
	for _, fc := range c.Fields {
		for _, d := range fc.Diffs {
			if n == maxDriftRelated {
				fd.Relate(file, line, "and more differences: see the drift report")
				return
			}
			fd.Relate(file, line, string(fc.Field)+": "+d.Explained())
			n++
		}
	}
}
