package session_test

import (
	"fmt"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
	"slices"
	"strings"
	"testing"
)

// eventLog records, per session, what a handler is told, in order.
type eventLog struct {
	bySession map[string][]string
	ends      []string
}

func (l *eventLog) add(s *session.Session, format string, args ...any) {
	if l.bySession == nil {
		l.bySession = map[string][]string{}
	}
	l.bySession[s.ID] = append(l.bySession[s.ID], fmt.Sprintf(format, args...))
}

func (l *eventLog) Frame(s *session.Session, f *session.Frame) {
	l.add(s, "frame %d seq %d %s %s gap %d", f.Line, f.Seq, f.Direction, f.Pairing, f.GapBefore)
}
func (l *eventLog) Damage(s *session.Session, d session.Damage) {
	l.add(s, "damage %d %s (+%d)", d.Line, d.Reason, d.More)
}
func (l *eventLog) End(s *session.Session) {
	l.ends = append(l.ends, s.ID)
	var pending []string
	for _, c := range s.Unfinished() {
		pending = append(pending, c.Label())
	}
	l.add(s, "end frames %d missing %d revision %q label %q first line %d pending %v", s.Frames, s.MissingFrames, s.Revision, s.Label, s.FirstLine, pending)
}

// A session past the live limit waits in the temporary file and is
// correlated alone after the file, with the same outcome: its frames, the
// damage that names it or follows its frames, damage that named it before
// it appeared, and answers recorded before their requests.
func TestDeferredSessionsCorrelateAsLiveOnes(t *testing.T) {
	t.Parallel()
	env := func(id string, seq int, dir, raw string) string {
		return fmt.Sprintf(`{"session_id":%q,"server_label":"lbl-%s","seq":%d,"ts":"2026-09-01T10:00:%02dZ","direction":%q,"transport":"stdio","raw":%s}`, id, id, seq, seq, dir, raw)
	}
	capture := strings.Join([]string{
		env("A", 1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		`{"session_id":"C","seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","id":9,"me`, // C's, before C appears
		env("B", 1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
		`stray stdout text`, // follows B's frame: B's
		env("A", 2, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`),
		env("C", 2, "s2c", `{"jsonrpc":"2.0","id":9,"result":{}}`),
		env("B", 3, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`), // before its request
		env("B", 4, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`),
		`{"session_id":"B","seq":5,"direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"res`, // names B
		env("A", 3, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`),
		`{"session_id":"Z","seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","id":4,"me`, // Z never appears: A's at the end
		`{"session_id":"D","seq":6,"direction":"c2s","raw":{"jsonrpc":"2.0","id":3,"me`, // D's, before D appears
		env("D", 7, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`),
		env("B", 6, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`),
	}, "\n") + "\n"

	read := func(live int) *eventLog {
		var l eventLog
		o := readers.Options{Limits: session.Limits{MaxLiveSessions: live}}
		if err := readers.Read("mixed.jsonl", strings.NewReader(capture), &l, o); err != nil {
			t.Fatal(err)
		}
		return &l
	}
	normal := read(session.MaxLiveSessions)
	// 1: every other session waits; 2: C's early damage waits in memory
	// first, then with C
	for _, live := range []int{1, 2, 3} {
		deferred := read(live)
		if !slices.Equal(normal.ends, deferred.ends) || !slices.Equal(normal.ends, []string{"A", "B", "C", "D"}) {
			t.Errorf("%d live: sessions end in %v deferred, %v live; want A B C D", live, deferred.ends, normal.ends)
		}
		for id, want := range normal.bySession {
			if got := deferred.bySession[id]; !slices.Equal(got, want) {
				t.Errorf("%d live: session %s deferred:\n  %s\nlive:\n  %s", live, id, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		}
	}
	// the events prove what is compared: damage in B, a paired early answer
	if b := strings.Join(normal.bySession["B"], "\n"); !strings.Contains(b, "damage 4 not a JSON object") ||
		!strings.Contains(b, "frame 7 seq 3 s2c answered") || !strings.Contains(b, "damage 9") {
		t.Errorf("session B:\n%s", b)
	}
	if c := strings.Join(normal.bySession["C"], "\n"); !strings.Contains(c, "damage 2") || !strings.Contains(c, "missing 0") {
		t.Errorf("session C:\n%s", c)
	}
	if a, d := strings.Join(normal.bySession["A"], "\n"), strings.Join(normal.bySession["D"], "\n"); !strings.Contains(a, "damage 11") ||
		!strings.Contains(d, "damage 12") || !strings.Contains(d, "missing 5") {
		t.Errorf("session A:\n%s\nsession D:\n%s", a, d)
	}
}
