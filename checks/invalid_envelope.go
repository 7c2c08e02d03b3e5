package checks

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleInvalidEnvelope = &Rule{
	ID:       "invalid-envelope",
	Signal:   SignalInvalid,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "An envelope the checker cannot judge: unknown direction, bad seq, a member twice",
		Why: `Every envelope says which way its frame went ("direction": c2s, s2c, stderr or
meta) and numbers it ("seq": an integer from 0 up). A frame whose direction is
missing or unknown ("S2C", "server", 2) cannot be paired or judged, so a tool
error or a protocol violation in it would pass unseen; a seq that is negative,
fractional, a string or beyond 63 bits makes gap counting meaningless; a member
name used twice leaves readers to disagree about which value counts. A capture
the gate cannot read is not a pass.

Formats without envelopes record no direction at all: in plain JSON-RPC (a tee
of both directions of a stdio server) it is inferred from the method, the open
request an answer's id names, the request that offered a progress token, or
which side's numbering of requests an id continues. A message whose sender none
of these shows is reported here and not judged: guessing would file its
problems against the wrong side.

When the message itself shows its direction (its method, or the one open
request it answers or cancels), it is still judged, and the finding says so.`,
		Fix: `Record with a recorder that writes mcpsnoop envelopes as specified, or
repair the capture (for example: jq -c '.direction |= ascii_downcase').`,
		Bad:   `{"session_id":"s1","seq":7,"direction":"S2C","raw":{"jsonrpc":"2.0","id":3,"result":{}}}`,
		Good:  `{"session_id":"s1","seq":7,"direction":"s2c","raw":{"jsonrpc":"2.0","id":3,"result":{}}}`,
		Since: "0.2.0",
	},
	New: func() Checker { return &invalidEnvelopes{} },
}

type invalidEnvelopes struct{ Base }

// Frame reports each problem of an envelope; a recorder that writes "S2C"
// does it on every answer, and the driver folds the flood (spec §2.4).
func (r *invalidEnvelopes) Frame(p *Pass, f *session.Frame) {
	if f.Element > 1 {
		return // the elements of one envelope share its problems
	}
	for _, ep := range f.EnvelopeProblems {
		if ep.Fault == session.OverLimit {
			continue // unread-capture's
		}
		subject := "envelope " + ep.Member
		msg := ep.Problem
		switch ep.Fault {
		case session.BadDirection:
			msg += "; " + directionOutcome(f)
		case session.DuplicateMember:
			subject = "envelope member " + Quote(ep.Member, 60) + " twice"
		case session.Undirected:
			subject = "direction of " + undirectedWhat(f)
			if f.Raw == nil && f.HasText {
				msg += "; the line " + Quote(f.Text, 120) + " was not judged"
			} else {
				msg += "; " + directionOutcome(f)
			}
		}
		p.Report(f, subject, "%s", msg)
	}
}

// directionOutcome says what became of a frame whose envelope had no usable
// direction.
func directionOutcome(f *session.Frame) string {
	switch {
	case f.Inferred != session.NotInferred:
		return fmt.Sprintf("the message was judged as %s, inferred from %s", f.Direction, f.Inferred)
	case f.Raw != nil:
		return sniffedMessage(f.Raw) + " was not judged: its direction cannot be inferred"
	case f.HasText:
		return "its text was not judged"
	}
	return "nothing in it could be judged"
}

// undirectedWhat names, for a stable subject, the kind of message whose
// direction could not be inferred: its method, else an answer, else text.
func undirectedWhat(f *session.Frame) string {
	if f.Raw == nil {
		return "a line of text"
	}
	if jsonscan.FirstByte(f.Raw) == '[' {
		return "a JSON array"
	}
	var method string
	jsonscan.Top(f.Raw, func(name string, val []byte) {
		if name == "method" {
			method, _ = jsonscan.String(val)
		}
	})
	if method != "" {
		return cut(method, 80)
	}
	return "an answer"
}

// sniffedMessage names a message that was not decoded, for messages.
func sniffedMessage(raw []byte) string {
	if jsonscan.FirstByte(raw) == '[' {
		return "the JSON array"
	}
	var method string
	var id []byte
	jsonscan.Top(raw, func(name string, val []byte) {
		switch name {
		case "method":
			method, _ = jsonscan.String(val)
		case "id":
			id = val
		}
	})
	switch {
	case method != "" && id != nil:
		return fmt.Sprintf("the %s request (id %s)", cut(method, 80), cut(string(id), 40))
	case method != "":
		return "the " + cut(method, 80) + " notification"
	case id != nil:
		return "the answer to id " + cut(string(id), 40)
	}
	return "the message"
}
