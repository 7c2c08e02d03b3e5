package jsonscan

import (
	"strings"
	"testing"
)

func TestInternerMatchesString(t *testing.T) {
	var in Interner
	for _, v := range []string{`"c2s"`, `""`, `"a\"b"`, `"caf\u00e9"`, `"` + strings.Repeat("x", 200) + `"`, `12`, `"x"`, `"c2s"`} {
		want, wantOK := String([]byte(v))
		got, ok := in.String([]byte(v))
		if got != want || ok != wantOK {
			t.Errorf("Interner.String(%s) = %q, %v; String gives %q, %v", v, got, ok, want, wantOK)
		}
	}
}

// TestInternerReuses: a value seen before costs no allocation, and the
// string handed out does not alias the bytes it was read from.
func TestInternerReuses(t *testing.T) {
	var in Interner
	buf := []byte(`"session-7f3a"`)
	first, _ := in.String(buf)
	copy(buf, `"XXXXXXXXXXXX"`)
	if first != "session-7f3a" {
		t.Fatalf("interned string changed with its source bytes: %q", first)
	}
	buf = []byte(`"session-7f3a"`)
	if n := testing.AllocsPerRun(100, func() { in.String(buf) }); n != 0 {
		t.Errorf("%v allocations for a value seen before", n)
	}
}
