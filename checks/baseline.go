package checks

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/facts"
)

var ruleBaseline = &Rule{
	ID:       "baseline",
	Signal:   SignalDrift,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "The tool baseline could not be used, or was only recorded in this run",
		Why: `tool-drift is only as good as the baseline it compares with. This rule
reports a session whose tools were not verified against a persisted baseline: the
label has no baseline in the directory in use (record one with mcpcheck baseline
--accept); its baseline file is corrupt, records another server, has a version this
mcpcheck does not read, or cannot be read; the session has no server label; or, with
check --record-baseline, no baseline existed, so this run recorded one (trust on
first use) and verified nothing. In a CI job whose workspace is fresh on every run a
recorded baseline is recorded again each time and drift can never be found: gating
drift then fails here, with the directory to persist.

check reads baselines from --baseline DIR (or the configuration file's baseline:),
else from .mcpcheck/baselines under the source root when it exists; a directory in
use puts drift in the default gate. Without one, drift is not checked (the report
says so once) and this rule does not run.`,
		Fix: `Record the baseline and check it in: mcpcheck baseline CAPTURE --accept
--reason "…" writes .mcpcheck/baselines (or --baseline DIR; the GitHub Action's
baseline input). Repair or re-record a broken baseline the same way (or remove it
with --reset).`,
		Bad:   `mcpcheck check --record-baseline --baseline "$(mktemp -d)" session.jsonl  (a fresh directory: recorded, not verified)`,
		Good:  `mcpcheck check --baseline .mcpcheck/baselines session.jsonl  (a checked-in baseline)`,
		Since: "0.2.0",
	},
	Facts:   []facts.Fact{facts.ToolListings},
	Options: []Setting{BaselineStore},
	New:     func() Checker { return &baselineCheck{} },
}

type baselineCheck struct{ Base }

func (*baselineCheck) End(p *Pass) {
	d := computeDrift(p)
	if d == nil || d.store.Quiet() {
		return
	}
	r := d.report
	at := Location{File: p.Session.File, Line: d.first.Line}
	report := func(kind, format string, args ...any) {
		p.ReportAt(at, d.first.Seq, "baseline "+kind, format, args...)
	}
	label := quoteName(r.Label)
	dir := d.store.Dir()
	switch {
	case r.Label == "":
		report("no-label", "the session has no server label, so its tools cannot be compared with a baseline; record the capture with a server label")
	case d.err != nil:
		report(string(d.err.Kind), "the baseline of server %s cannot be used: %s; nothing was verified; re-record it with mcpcheck baseline --accept --reason TEXT", label, r.Problem)
	case r.Status == baseline.StatusUnavailable && d.store.ReadOnly():
		report("missing", "server %s has no baseline%s; nothing was verified; record one with mcpcheck baseline --accept --reason TEXT", label, in(dir))
	case r.Status == baseline.StatusUnavailable:
		report("missing", "server %s has no baseline: %s; nothing was verified", label, r.Problem)
	case r.Status == baseline.StatusRecorded && r.NotKept != "":
		report("recorded", "server %s had no baseline%s: its tools/list is the baseline for this run only, because %s; recorded, not verified", label, in(dir), r.NotKept)
	case r.Status == baseline.StatusRecorded:
		report("recorded", "server %s had no baseline: its tools/list is now the baseline in %s; recorded, not verified; %s", label, dir, persistHint(dir))
	case r.RecordedBy != nil && r.NotKept != "":
		p.ReportAt(at, d.first.Seq, "baseline recorded-in-run", "the baseline of server %s is session %s's tools/list, earlier in this run, kept for this run only (%s); not verified", label, quoteName(r.RecordedBy.Session), r.NotKept).
			Relate(r.RecordedBy.File, r.RecordedBy.Line, "baseline recorded here")
	case r.RecordedBy != nil:
		p.ReportAt(at, d.first.Seq, "baseline recorded-in-run", "the baseline of server %s was recorded earlier in this run, from session %s, not verified; %s", label, quoteName(r.RecordedBy.Session), persistHint(dir)).
			Relate(r.RecordedBy.File, r.RecordedBy.Line, "baseline recorded here")
	}
}

// in is " in DIR", or nothing without a directory.
func in(dir string) string {
	if dir == "" {
		return ""
	}
	return fmt.Sprintf(" in %s", dir)
}
