package checks

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/session"
)

var rulePendingRequest = &Rule{
	ID:        "pending-request",
	Title:     "A request with no answer by the end of the capture",
	Signal:    SignalPending,
	Severity:  SeverityWarning,
	Revisions: "all",
	Doc: `A request that never got an answer is a hang: a server that crashed or
deadlocked, a client that stopped waiting without cancelling, or a capture that
ended too early. Multi round-trip operations still waiting for their retry and
tasks that never reached a terminal status count as unanswered too. Cancelled
requests and subscriptions/listen streams are not pending.

Fix: make sure every request is answered, or cancelled with
notifications/cancelled; end captures after the last answer.

Bad:  {"id":0,"method":"initialize",…} and nothing answers id 0
Good: {"id":0,"method":"initialize",…} then {"id":0,"result":{…}}`,
	Start: func(*session.Session) any { return pendingRequests{} },
}

type pendingRequests struct{}

func (pendingRequests) End(p *Pass, s *session.Session) {
	for _, c := range s.Unfinished() {
		var msg string
		switch {
		case c.State == session.Parked:
			msg = fmt.Sprintf("%s answered input_required and was never retried", c.Label())
		case c.State == session.TaskRunning && c.Task != nil:
			msg = fmt.Sprintf("task %s of %s never reached a terminal status (last status %s)",
				Quote(c.Task.ID, 80), c.Label(), Quote(c.Task.Status, 40))
		default:
			msg = fmt.Sprintf("%s %s was never answered", c.Dir.Sender(), c.Label())
		}
		p.ReportAt(Location{File: c.File, Line: c.Line}, c.Seq, callSubject(c), "%s", msg)
	}
	if n := s.RetiredOperations; n > 0 {
		p.ReportAt(Location{File: s.File, Line: s.FirstLine}, 0, "retired operations",
			"%d multi round-trip %s waited for a retry beyond the %d mcpcheck follows at once and %s not checked further",
			n, plural(n, "operation", "operations"), session.MaxParkedOperations, plural(n, "was", "were"))
	}
}

var ruleLateResult = &Rule{
	ID:        "late-result",
	Title:     "An answer that arrived after the requester cancelled",
	Signal:    SignalLateResult,
	Severity:  SeverityNote,
	Revisions: "all",
	Doc: `After notifications/cancelled the receiver should stop work and not answer
(2026-07-28 makes it a MUST NOT). An answer after the cancellation wastes work
and can confuse a client that already reused the slot; a race of a few
milliseconds is normal, a consistent pattern is a server that ignores
cancellation.

Fix: make the handler observe cancellation (an AbortSignal or a context) and
drop its answer once cancelled.

Bad:  {"method":"notifications/cancelled","params":{"requestId":5}} then {"id":5,"result":{…}}
Good: {"method":"notifications/cancelled","params":{"requestId":5}} and no answer for id 5`,
	Check: func(p *Pass, f *session.Frame) {
		if f.Pairing != session.Late {
			return
		}
		c := f.Call
		p.Report(f, callSubject(c), "%s was answered after the %s cancelled it", c.Label(), c.Dir.Sender()).
			Relate(c.File, c.Line, "request sent here")
	},
}

var ruleMissingFrames = &Rule{
	ID:        "missing-frames",
	Title:     "The recorder dropped frames (a gap in seq)",
	Signal:    SignalIncomplete,
	Severity:  SeverityWarning,
	Revisions: "all",
	Doc: `mcpsnoop numbers the frames of a session 1, 2, 3, …. A forward gap means frames
were lost (a full buffer, a crash, a filtered export), so every count in the
report is a floor and a request may look unanswered only because its answer was
dropped.

Fix: re-record with enough buffer, or check the complete capture file.

Bad:  seq 1, 2, 5 (frames 3 and 4 are missing)
Good: seq 1, 2, 3, 4, 5`,
	Check: func(p *Pass, f *session.Frame) {
		if f.GapBefore <= 0 {
			return
		}
		from := f.Seq - f.GapBefore
		p.Report(f, fmt.Sprintf("seq %d", from), "%d %s missing before seq %d (seq %d to %d were not recorded)",
			f.GapBefore, plural(int(f.GapBefore), "frame is", "frames are"), f.Seq, from, f.Seq-1)
	},
}

var ruleTruncatedCapture = &Rule{
	ID:        "truncated-capture",
	Title:     "An envelope that does not parse, or a frame the recorder truncated",
	Signal:    SignalIncomplete,
	Severity:  SeverityWarning,
	Revisions: "all",
	Doc: `A torn write, a concatenation glitch or a capture cut off mid-line leaves an
envelope that is not valid JSON; a frame larger than the proxy's cap is stored
truncated. mcpcheck reports the damage, skips to the next envelope and checks
everything around it, but what was in the damaged part is unknown.

Fix: copy captures whole (CI artifacts can be cut at a size limit), raise the
recorder's frame cap, or re-record.

Bad:  {"session_id":"s1","seq":7,"direction":"s2c","raw":{"jsonrpc":"2.0","id":3,"res
Good: {"session_id":"s1","seq":7,"direction":"s2c","raw":{"jsonrpc":"2.0","id":3,"result":{}}}`,
	Start: func(*session.Session) any { return &truncatedCapture{} },
}

// maxDamageFindings is how many damaged pieces a session lists one by one;
// a file of garbage must not become millions of findings.
const maxDamageFindings = 100

type truncatedCapture struct {
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

func (t *truncatedCapture) End(p *Pass, s *session.Session) {
	if t.more > 0 {
		fd := p.ReportAt(t.last, 0, "more damage", "%d more damaged or truncated %s not listed; the last at line %d",
			t.more, plural(t.more, "piece", "pieces"), t.last.Line)
		fd.Also = t.more - 1 // the counts still say how many pieces were damaged
	}
}
