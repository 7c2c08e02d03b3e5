package jsonscan

import (
	"strings"
	"testing"
)

func TestInternerMatchesString(t *testing.T) {
	t.Parallel()
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
// string handed out does not alias the bytes it was read from. Not
// parallel: it counts allocations, as TestNamesMatchesString does.
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

func TestNamesMatchesString(t *testing.T) {
	for _, v := range []string{`"read_file"`, `""`, `"a\"b"`, `"` + strings.Repeat("y", 200) + `"`, `null`, `"read_file"`} {
		want, wantOK := String([]byte(v))
		got, ok := Names.String([]byte(v))
		if got != want || ok != wantOK {
			t.Errorf("Names.String(%s) = %q, %v; String gives %q, %v", v, got, ok, want, wantOK)
		}
	}
	buf := []byte(`"search_files"`)
	Names.String(buf)
	if n := testing.AllocsPerRun(100, func() { Names.String(buf) }); n != 0 {
		t.Errorf("%v allocations for a name seen before", n)
	}
}

// TestNamesConcurrent: readers on several goroutines share the table (run
// with -race).
func TestNamesConcurrent(t *testing.T) {
	t.Parallel()
	done := make(chan bool)
	for g := range 4 {
		go func() {
			for i := range 2000 {
				v := []byte(`"tool_` + strings.Repeat("x", (g+i)%7) + `"`)
				want, _ := String(v)
				if got, _ := Names.String(v); got != want {
					t.Errorf("got %q, want %q", got, want)
				}
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
}
