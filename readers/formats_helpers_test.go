package readers

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
)

// frameLog records what each frame was found to be as it is delivered
// (frames are not kept: their bytes belong to the reader).
type frameLog struct {
	got      []string
	damage   []string
	sessions []string
}

func (l *frameLog) Frame(s *session.Session, f *session.Frame) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %s", f.Line, f.Direction, f.Pairing)
	if f.Inferred != session.NotInferred {
		b.WriteString(" by " + inferenceName[f.Inferred])
	}
	for _, p := range f.EnvelopeProblems {
		b.WriteString(" ! " + p.Problem)
	}
	if f.HasText && f.Raw == nil {
		b.WriteString(" text " + fmt.Sprintf("%q", f.Text))
	}
	l.got = append(l.got, b.String())
}

func (l *frameLog) Damage(s *session.Session, d session.Damage) {
	l.damage = append(l.damage, fmt.Sprintf("%s %d %s", s.ID, d.Line, d.Reason))
}

func (l *frameLog) End(s *session.Session) {
	l.sessions = append(l.sessions, fmt.Sprintf("%s[%s] %d frames", s.ID, s.Label, s.Frames))
}

var inferenceName = map[session.Inference]string{session.FromMethod: "method", session.FromAnsweredCall: "answer", session.FromCancelledCall: "cancel",
	session.FromTask: "task", session.FromProgress: "progress", session.FromNumbering: "numbering", session.FromLegalSender: "legal"}

// pairings renders each delivered frame as "line:pairing", in delivery order.
func pairings(rec *recorder) string {
	var out []string
	for _, f := range rec.frames {
		if f.Pairing != session.Unpaired {
			out = append(out, fmt.Sprintf("%d:%s", f.Line, f.Pairing))
		}
	}
	return strings.Join(out, " ")
}

func byLine(rec *recorder, line int) *session.Frame {
	for _, f := range rec.frames {
		if f.Line == line {
			return f
		}
	}
	return &session.Frame{}
}
