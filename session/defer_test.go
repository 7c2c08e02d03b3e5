package session

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// eventLog records, per session, what a handler is told, in order.
type eventLog struct {
	bySession map[string][]string
	ends      []string
}

func (l *eventLog) add(s *Session, format string, args ...any) {
	if l.bySession == nil {
		l.bySession = map[string][]string{}
	}
	l.bySession[s.ID] = append(l.bySession[s.ID], fmt.Sprintf(format, args...))
}

func (l *eventLog) Frame(s *Session, f *Frame) {
	l.add(s, "frame %d seq %d %s %s gap %d", f.Line, f.Seq, f.Direction, f.Pairing, f.GapBefore)
}
func (l *eventLog) Damage(s *Session, d Damage) {
	l.add(s, "damage %d %s (+%d)", d.Line, d.Reason, d.More)
}
func (l *eventLog) End(s *Session) {
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
		env("D", 7, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`),
		env("B", 6, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`),
	}, "\n") + "\n"

	read := func(live int) *eventLog {
		defer SetLiveSessionsForTesting(live)()
		var l eventLog
		if err := Read("mixed.jsonl", strings.NewReader(capture), &l); err != nil {
			t.Fatal(err)
		}
		return &l
	}
	normal, deferred := read(MaxLiveSessions), read(1)
	if !slices.Equal(normal.ends, deferred.ends) || !slices.Equal(normal.ends, []string{"A", "B", "C", "D"}) {
		t.Errorf("sessions end in %v deferred, %v live; want A B C D", deferred.ends, normal.ends)
	}
	for id, want := range normal.bySession {
		if got := deferred.bySession[id]; !slices.Equal(got, want) {
			t.Errorf("session %s deferred:\n  %s\nlive:\n  %s", id, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
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
}

// fillValue sets every exported field reachable from v to a non-zero value.
func fillValue(t *testing.T, v reflect.Value, rng *rand.Rand) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d\x00\"é", rng.IntN(1000)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(1 + rng.IntN(100)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(1 + rng.IntN(100)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillValue(t, v.Elem(), rng)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fillValue(t, s.Index(i), rng)
		}
		v.Set(s)
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Date(2026, 9, 1, 10, 0, 0, 123456789, time.UTC)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillValue(t, v.Field(i), rng)
			}
		}
	default:
		t.Fatalf("a field of kind %s: the spill cannot carry it", v.Kind())
	}
}

var timeType = reflect.TypeOf(time.Time{})

// Every field a format may set on a frame survives the spill, whatever is
// added to Frame later; the fields correlation sets are not carried.
func TestSpillCarriesEveryFrameField(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var f Frame
	v := reflect.ValueOf(&f).Elem()
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		if sf.IsExported() && !spillSkip[sf.Name] {
			fillValue(t, v.Field(i), rng)
		}
	}
	got, err := decodeFrame(encodeFrame(nil, &f))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, &f) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, &f)
	}
	for name := range spillSkip {
		if _, ok := v.Type().FieldByName(name); !ok {
			t.Errorf("spillSkip names %s, which Frame no longer has", name)
		}
	}
	// a frame without raw keeps a nil Raw, one with an empty raw an empty one
	for _, raw := range [][]byte{nil, {}} {
		got, err := decodeFrame(encodeFrame(nil, &Frame{Raw: raw}))
		if err != nil || (got.Raw == nil) != (raw == nil) {
			t.Errorf("raw %#v came back as %#v (%v)", raw, got.Raw, err)
		}
	}
	dr := &damageRecord{D: Damage{File: "f", Line: 3, Reason: "torn", More: 2}, Named: true, Dir: ServerToClient, Seqs: []int64{4, 5}}
	back, err := decodeDamage(encodeDamage(nil, dr))
	if err != nil || !reflect.DeepEqual(back, dr) {
		t.Errorf("damage round trip: %+v (%v)", back, err)
	}
	// and every field of a damage record, whatever is added to Damage later
	full := &damageRecord{}
	fillValue(t, reflect.ValueOf(full).Elem(), rng)
	if back, err := decodeDamage(encodeDamage(nil, full)); err != nil || !reflect.DeepEqual(back, full) {
		t.Errorf("damage round trip:\n got %+v (%v)\nwant %+v", back, err, full)
	}
	if _, err := decodeFrame([]byte{0xff, 0xff}); err == nil {
		t.Error("a damaged record decodes")
	}
}
