package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleUnreadCapture = &Rule{
	ID:       "unread-capture",
	Signal:   SignalInvalid,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "Part of a capture that was not read: a frame past a limit, a capture that breaks off",
		Why: `A gate must not pass what it could not read. A frame that is valid JSON but
nests deeper than the 10,000 levels mcpcheck reads, or a record larger than the
size limit (256 MiB: an envelope, a HAR entry, a LogRocket event in a batch or
single), is not recorder damage: a server can send it on purpose to hide a
failure. Such a frame or record is read as far as the limit allows and judged
(an isError flag or an error code before the limit still counts, and it still
answers its request), and this finding fails the gate for the rest. A HAR entry
or event whose first 256 MiB hold no request is skipped, and this finding fails
the gate for it.

A capture that could not be read to its end loses an unknown amount of
traffic: a compressed stream (.gz) that breaks off, a HAR or LogRocket document
whose entries could not all be read (reading resumes at the next entry it
finds, and the finding says how many were lost). A torn line where the
recorder stopped is only a truncated-capture note; this is not.`,
		Fix: `Fix the server that sends such frames; copy captures whole (CI artifacts can
be cut at a size limit) or re-record. To accept a capture that breaks off,
suppress the finding, or leave the rule out of the gate:
--fail-on error,warn,invalid-frame,invalid-envelope (or --disable unread-capture).`,
		Bad:   `{"session_id":"s1","seq":7,"direction":"s2c","raw":{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"x","data":[[[[…10,001 levels…]]]]}}}`,
		Good:  `{"session_id":"s1","seq":7,"direction":"s2c","raw":{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"x","data":[]}}}`,
		Since: "0.2.0",
	},
	New: func() Checker { return &unreadCapture{} },
}

type unreadCapture struct{ Base }

// Frame reports a frame read only as far as a limit allowed.
func (u *unreadCapture) Frame(p *Pass, f *session.Frame) {
	if f.Element > 1 {
		return // the elements of one envelope share its problems
	}
	for _, ep := range f.EnvelopeProblems {
		if ep.Fault == session.OverLimit {
			p.Report(f, "frame past the "+ep.Member+" limit", "%s", ep.Problem)
		}
	}
}

// Damage reports a part of the capture that was lost, not torn.
func (u *unreadCapture) Damage(p *Pass, d session.Damage) {
	if d.Lost == "" {
		return
	}
	fd := p.ReportAt(Location{File: d.File, Line: d.Line}, 0, "capture not read to its end", "%s", d.Lost)
	fd.Also += d.More
}

// overLimit reports a frame that a limit of the checker cut.
func overLimit(f *session.Frame) bool {
	for _, ep := range f.EnvelopeProblems {
		if ep.Fault == session.OverLimit {
			return true
		}
	}
	return false
}
