package session

import (
	"fmt"
	"strings"
)

// frameLog records what each frame was found to be as it is delivered
// (frames are not kept: their bytes belong to the reader).
type frameLog struct {
	got      []string
	damage   []string
	sessions []string
}

func (l *frameLog) Frame(s *Session, f *Frame) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %s", f.Line, f.Direction, f.Pairing)
	if f.Inferred != NotInferred {
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

func (l *frameLog) Damage(s *Session, d Damage) {
	l.damage = append(l.damage, fmt.Sprintf("%s %d %s", s.ID, d.Line, d.Reason))
}

func (l *frameLog) End(s *Session) {
	l.sessions = append(l.sessions, fmt.Sprintf("%s[%s] %d frames", s.ID, s.Label, s.Frames))
}

var inferenceName = map[Inference]string{FromMethod: "method", FromAnsweredCall: "answer", FromCancelledCall: "cancel",
	FromTask: "task", FromProgress: "progress", FromNumbering: "numbering"}
