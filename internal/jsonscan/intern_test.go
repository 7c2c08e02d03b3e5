package jsonscan

import (
	"fmt"
	"hash/maphash"
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

// collidingNames finds two names whose first slot is one under seed, the
// case that made two tool names of a capture evict each other at every
// call in about one process in five (TestAtMostOneAllocationPerFrame
// counted 1.16 allocations a frame instead of 0.76).
func collidingNames(t *testing.T, seed maphash.Seed) (string, string) {
	t.Helper()
	seen := map[uint64]string{}
	for i := 0; i < 10_000; i++ {
		name := fmt.Sprintf("tool_%d", i)
		first, _ := slotsOf(maphash.String(seed, name))
		if other, ok := seen[first]; ok {
			return other, name
		}
		seen[first] = name
	}
	t.Fatal("no two names share a slot")
	return "", ""
}

// Two values that share a slot are both kept, in either interner: taking
// them in turn costs no allocation. Not parallel: it counts allocations.
func TestInternersKeepTwoValuesOfOneSlot(t *testing.T) {
	var in Interner
	in.seed, in.seeded = maphash.MakeSeed(), true
	a, b := collidingNames(t, in.seed)
	qa, qb := []byte(`"`+a+`"`), []byte(`"`+b+`"`)
	in.String(qa)
	in.String(qb)
	if n := testing.AllocsPerRun(100, func() { in.String(qa); in.String(qb) }); n != 0 {
		t.Errorf("Interner: %v allocations for %q and %q in turn", n, a, b)
	}
	var names sharedInterner
	names.seed = maphash.MakeSeed()
	a, b = collidingNames(t, names.seed)
	qa, qb = []byte(`"`+a+`"`), []byte(`"`+b+`"`)
	names.String(qa)
	names.String(qb)
	if n := testing.AllocsPerRun(100, func() { names.String(qa); names.String(qb) }); n != 0 {
		t.Errorf("Names: %v allocations for %q and %q in turn", n, a, b)
	}
	for _, q := range [][]byte{qa, qb} {
		if got, _ := names.String(q); got != string(q[1:len(q)-1]) {
			t.Errorf("Names gives %q for %s", got, q)
		}
	}
}
