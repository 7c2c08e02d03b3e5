package checks

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/session"
)

var ruleMissingFrames = &Rule{
	ID:       "missing-frames",
	Signal:   SignalIncomplete,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "The recorder dropped frames (a gap in seq)",
		Why: `mcpsnoop numbers the frames of a session 1, 2, 3, …. A forward gap means frames
were lost (a full buffer, a crash, a filtered export), so every count in the
report is a floor and a request may look unanswered only because its answer was
dropped.`,
		Fix:   `re-record with enough buffer, or check the complete capture file.`,
		Bad:   `seq 1, 2, 5 (frames 3 and 4 are missing)`,
		Good:  `seq 1, 2, 3, 4, 5`,
		Since: "0.1.0",
	},
	New: func() Checker { return missingFrames{} },
}

type missingFrames struct{ Base }

func (missingFrames) Frame(p *Pass, f *session.Frame) {
	if f.GapBefore > 0 {
		p.Report(f, "gap", "%s", gapMessage(f.Seq, f.GapBefore))
	}
}

// Damage reports the gap before a damaged envelope whose seq survived: the
// damaged frame itself was recorded, the ones before it were not.
func (missingFrames) Damage(p *Pass, d session.Damage) {
	if d.GapBefore > 0 {
		p.ReportAt(Location{File: d.File, Line: d.Line}, d.Seq, "gap", "%s", gapMessage(d.Seq, d.GapBefore))
	}
}

func gapMessage(seq, gap int64) string {
	if gap == 1 {
		return fmt.Sprintf("1 frame is missing before seq %d: seq %d was not recorded", seq, seq-1)
	}
	if gap == 2 {
		return fmt.Sprintf("2 frames are missing before seq %d: seq %d and %d were not recorded", seq, seq-2, seq-1)
	}
	return fmt.Sprintf("%d frames are missing before seq %d: seq %d to %d were not recorded", gap, seq, seq-gap, seq-1)
}
