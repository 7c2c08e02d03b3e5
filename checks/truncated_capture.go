package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleTruncatedCapture = &Rule{
	ID:       "truncated-capture",
	Signal:   SignalIncomplete,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "An envelope that does not parse, or a frame the recorder truncated",
		Why: `A torn write, a concatenation glitch or a capture cut off mid-line leaves an
envelope that is not valid JSON; a frame larger than the proxy's cap is stored
truncated. mcpcheck reports the damage, skips to the next envelope and checks
everything around it, but what was in the damaged part is unknown.`,
		Fix: `Copy captures whole (CI artifacts can be cut at a size limit), raise the
recorder's frame cap, or re-record.`,
		Bad:   `{"session_id":"s1","seq":7,"direction":"s2c","raw":{"jsonrpc":"2.0","id":3,"res`,
		Good:  `{"session_id":"s1","seq":7,"direction":"s2c","raw":{"jsonrpc":"2.0","id":3,"result":{}}}`,
		Since: "0.1.0",
	},
	New: func() Checker { return &truncatedCapture{} },
}

type truncatedCapture struct{ Base }

// Damage reports a damaged piece; one that stands for more (the reader
// summarises a flood it could not place) counts them all. Past the per-rule
// cap the driver folds them (spec §2.4).
func (t *truncatedCapture) Damage(p *Pass, d session.Damage) {
	if d.ByDesign {
		return // nothing was unreadable: the format keeps no such frames
	}
	fd := p.ReportAt(Location{File: d.File, Line: d.Line}, 0, "damaged envelope", "unreadable envelope: %s", d.Reason)
	fd.Also += d.More
}

func (t *truncatedCapture) Frame(p *Pass, f *session.Frame) {
	if f.Truncated && !overLimit(f) { // a limit of the checker cut it, not the recorder: unread-capture's
		p.Report(f, "truncated "+f.Direction.String(), "the recorder truncated this %s frame at its size cap", f.Direction)
	}
}
