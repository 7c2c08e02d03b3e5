package session_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
)

// Correlation is tested through the mcpsnoop reader (package readers), as
// captures reach it; these are the helpers its tests share.

// recorder is a Handler that keeps what it is told, for assertions.
type recorder struct {
	frames   []*session.Frame
	damage   []session.Damage
	sessions []*session.Session
}

func (r *recorder) Frame(s *session.Session, f *session.Frame)  { r.frames = append(r.frames, f) }
func (r *recorder) Damage(s *session.Session, d session.Damage) { r.damage = append(r.damage, d) }
func (r *recorder) End(s *session.Session)                      { r.sessions = append(r.sessions, s) }

func readString(t *testing.T, capture string) *recorder {
	t.Helper()
	return readStringWith(t, capture, readers.Options{})
}

func readStringWith(t *testing.T, capture string, o readers.Options) *recorder {
	t.Helper()
	rec := &recorder{}
	if err := readers.Read("test.jsonl", strings.NewReader(capture), rec, o); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return rec
}

// env builds one envelope line of session s1.
func env(seq int, dir, raw string, extra ...string) string {
	e := fmt.Sprintf(`{"session_id":"s1","server_label":"notes","seq":%d,"ts":"2026-09-01T10:00:%02d.%03dZ","direction":%q,"transport":"stdio"`, seq, seq/1000, seq%1000, dir)
	for _, x := range extra {
		e += "," + x
	}
	if raw != "" {
		e += `,"raw":` + raw
	}
	return e + "}"
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
