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

// maxDamageFindings is how many damaged pieces a session lists one by one;
// a file of garbage must not become millions of findings.
const maxDamageFindings = 100

type truncatedCapture struct {
	Base
	listed, more int
	last         Location
}

func (t *truncatedCapture) Damage(p *Pass, d session.Damage) {
	if t.listed == maxDamageFindings {
		t.more, t.last = t.more+1, Location{File: d.File, Line: d.Line}
		return
	}
	t.listed++
	p.ReportAt(Location{File: d.File, Line: d.Line}, 0, "damaged envelope", "unreadable envelope: %s", d.Reason)
}

func (t *truncatedCapture) Frame(p *Pass, f *session.Frame) {
	if !f.Truncated {
		return
	}
	if t.listed == maxDamageFindings {
		t.more, t.last = t.more+1, Location{File: f.File, Line: f.Line}
		return
	}
	t.listed++
	p.Report(f, "truncated "+f.Direction.String(), "the recorder truncated this %s frame at its size cap", f.Direction)
}

func (t *truncatedCapture) End(p *Pass) {
	if t.more > 0 {
		fd := p.ReportAt(t.last, 0, "more damage", "%d more damaged or truncated %s not listed; the last at line %d",
			t.more, plural(t.more, "piece", "pieces"), t.last.Line)
		fd.Also = t.more - 1 // the counts still say how many pieces were damaged
	}
}
