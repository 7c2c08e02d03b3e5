package checks

import (
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
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if f.GapBefore <= 0 {
			return
		}
		from := f.Seq - f.GapBefore
		// Not the seq: it shifts when earlier traffic changes.
		p.Report(f, "gap", "%d %s missing before seq %d (seq %d to %d were not recorded)",
			f.GapBefore, plural(int(f.GapBefore), "frame is", "frames are"), f.Seq, from, f.Seq-1)
	}),
}
