package session

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/internal/racedetect"
)

// TestKnownStrings: the version and a known method cost no allocation and
// read as jsonscan.String reads them; anything else reads as before.
func TestKnownStrings(t *testing.T) {
	for _, v := range []string{`"2.0"`, `"tools/call"`, `"tools\/call"`, `"x/unknown"`, `7`, `"2.0 "`} {
		want, wantOK := jsonscan.String([]byte(v))
		if got, ok := knownString([]byte(v)); got != want || ok != wantOK {
			t.Errorf("knownString(%s) = %q, %v; want %q, %v", v, got, ok, want, wantOK)
		}
	}
	t.Run("allocations", func(t *testing.T) {
		racedetect.SkipUnderRace(t)
		raw := json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if n := testing.AllocsPerRun(100, func() { decodeMessage(raw) }); n != 0 {
			t.Errorf("decoding a notification of a known method: %v allocations", n)
		}
	})
}

// TestIDCache: ids read through the cache are MakeID's, and an answer's id
// reuses its request's string.
func TestIDCache(t *testing.T) {
	var c idCache
	for _, raw := range []string{`1`, ` 42 `, `0`, `00`, `07`, `65535`, `65536`, `99999`, `123456`, `-1`, `1.0`, `1e3`, `"a-1"`, `"a\u002d1"`, `{"x":1}`, `[1]`, `null`, `-0.5e3`, ``, `"` + strings.Repeat("z", 80) + `"`, `42`} {
		if got, want := c.make([]byte(raw)), MakeID([]byte(raw)); got != want {
			t.Errorf("make(%s) = %v, MakeID gives %v", raw, got, want)
		}
	}
	c.make([]byte(`10421`))     // the request
	answer := []byte(` 10421 `) // its answer, from other bytes
	t.Run("allocations", func(t *testing.T) {
		racedetect.SkipUnderRace(t)
		if n := testing.AllocsPerRun(100, func() { c.make(answer) }); n != 0 {
			t.Errorf("an answer's id: %v allocations", n)
		}
	})
}

// A plain integer id below smallIDCount is made once for the process: the
// next session's request of the same id allocates nothing, and neither do
// readers on several goroutines.
func TestSmallIDs(t *testing.T) {
	var first idCache
	first.make([]byte(`31337`))
	again := []byte(`31337`)
	t.Run("allocations", func(t *testing.T) {
		racedetect.SkipUnderRace(t)
		if n := testing.AllocsPerRun(100, func() {
			var second idCache // a reader that has not seen it
			second.make(again)
		}); n != 0 {
			t.Errorf("a repeated small id in another reader: %v allocations", n)
		}
	})
	for _, raw := range []string{`65536`, `012`, `-3`, `3.0`} {
		if _, ok := smallIDs.token([]byte(raw)); ok {
			t.Errorf("%s is taken as a small id: its token is its own spelling", raw)
		}
	}
	done := make(chan bool)
	for range 4 {
		go func() {
			var c idCache
			for i := range 2000 {
				raw := []byte(strconv.Itoa(i))
				if c.make(raw).String() != string(raw) {
					done <- false
					return
				}
			}
			done <- true
		}()
	}
	for range 4 {
		if !<-done {
			t.Error("a small id read on several goroutines is not its spelling")
		}
	}
}
