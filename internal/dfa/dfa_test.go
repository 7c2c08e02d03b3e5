package dfa

import (
	"math/rand/v2"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// exprs exercise what the automaton must decide as regexp does: word
// boundaries at both ends, line and text anchors, case folding (the Kelvin
// sign folds to k), counted repetition, lazy and greedy loops, classes
// outside ASCII and alternations of literals.
var exprs = []string{
	`(?i)\b(?:ignore|disregard)\s+(?:all\s+)?previous\s+instructions\b`,
	`(?i)\bkeep\b[^\n]{0,12}?\bsecret\b`,
	`^(?:abc|ab)$`,
	`(?m)^user:`,
	`(?i)<\s*/?\s*important\s*>`,
	`\bx\B`,
	`[α-ω]+\.`,
	`(?s)a.{2}b`,
	`(?i)send\b((?:[^\n.!?]|[.!?]\S){0,5}?)\bto\s+(https?://[^\s"]+)`,
	`\A\z`,
	`(?:^|[\s(])\.env\b`,
}

// pieces make texts that come near the expressions' matches and miss them.
var pieces = []string{"ignore", "IGNORE", "previous", "instructions", "all", " ", "  ", "\n", "\t", "keep", "secret",
	"it", "abc", "ab", "user:", "<", ">", "/", "important", "x", "xy", "α", "ω", "β", ".", "a", "b", "é", "\u212a", "K",
	"send", "to", "https://e.x/", "\"", "!", "?", ".env", "(", "\xff", "_", "disregard", "sEnD", "ke", "ep"}

func randomText(rng *rand.Rand, pieceCount int) string {
	return randomTextOf(rng, pieces, pieceCount)
}

func randomTextOf(rng *rand.Rand, pieces []string, pieceCount int) string {
	var b strings.Builder
	for n := rng.IntN(pieceCount); n > 0; n-- {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// ends lists, per expression, every position where Scan says a match
// ends.
func ends(s *Set, text string) [][]int {
	out := make([][]int, s.Len())
	s.Scan(text, 1<<s.Len()-1, func(i, end int) uint16 {
		out[i] = append(out[i], end)
		return 1<<s.Len() - 1
	})
	return out
}

// endsByRegexp finds the same with regexp: a match of re ends at e when re
// matches some text[s:e] whole, its assertions reading the runes around
// the span. regexp anchors only at the ends of what it is given, so the
// span is given with the rune before it and the rune after it, each
// matched by a dot ahead of and behind the expression.
func endsByRegexp(re string, text string) []int {
	var at []int // rune boundaries, as regexp decodes
	for i := 0; i < len(text); {
		at = append(at, i)
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	at = append(at, len(text))
	var out []int
	for j, e := range at {
		for k := 0; k <= j; k++ {
			if matchesSpan(re, text, at, k, j) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

var spanCache = map[string]*regexp.Regexp{}

// matchesSpan: re matches text[at[k]:at[j]] whole, with its neighbours.
func matchesSpan(re, text string, at []int, k, j int) bool {
	from, to := at[k], at[j]
	pattern := `(?:` + re + `)`
	if k > 0 {
		from = at[k-1]
		pattern = `(?s:.)` + pattern
	}
	if j < len(at)-1 {
		to = at[j+1]
		pattern += `(?s:.)`
	}
	pattern = `^` + pattern + `$`
	rx, ok := spanCache[pattern]
	if !ok {
		rx = regexp.MustCompile(pattern)
		spanCache[pattern] = rx
	}
	return rx.MatchString(text[from:to])
}

func TestScanFindsWhatRegexpFinds(t *testing.T) {
	set := MustCompile(exprs...)
	var res []*regexp.Regexp
	for _, e := range exprs {
		res = append(res, regexp.MustCompile(e))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	matched := 0
	for n := 0; n < 20000; n++ {
		text := randomText(rng, 24)
		got := ends(set, text)
		for i, re := range res {
			want := re.MatchString(text)
			if want != (len(got[i]) > 0) {
				t.Fatalf("%q on %q: regexp says %v, Scan found ends %v", exprs[i], text, want, got[i])
			}
			if want {
				matched++
			}
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d matches in the generated texts: the test proves little", matched)
	}
}

// Every position where a match ends, not only whether there is one.
func TestScanFindsEveryEnd(t *testing.T) {
	set := MustCompile(exprs...)
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for n := 0; n < 3000; n++ {
		text := randomText(rng, 14)
		got := ends(set, text)
		for i, re := range exprs {
			want := endsByRegexp(re, text)
			if !slices.Equal(got[i], want) {
				t.Fatalf("%q on %q: Scan found ends %v, regexp %v", re, text, got[i], want)
			}
			checked += len(want)
		}
	}
	if checked < 200 {
		t.Fatalf("only %d match ends in the generated texts: the test proves little", checked)
	}
}

// A cache that fills up starts again without changing an answer.
func TestScanWithAFullCache(t *testing.T) {
	defer func(n int) { maxStates = n }(maxStates)
	maxStates = 3
	set := MustCompile(exprs...) // its caches are made with the small limit
	full := MustCompile(exprs...)
	maxStates = 1 << 20
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 3000; n++ {
		text := randomText(rng, 24)
		maxStates = 3
		got := ends(set, text)
		maxStates = 1 << 20
		if want := ends(full, text); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("%q: with 3 states %v, with room %v", text, got, want)
		}
	}
}

var gatePieces = []string{"keep", "KEEP", "send", "secret", "secrets", " ", "  ", "\n", ".env", "to", "https://e.x/", "a", "é", "\"", "_"}

// A gated expression ends a match exactly where the expression it stands
// for, opener, gap and rest written as one, does.
func TestLineGateIsTheGap(t *testing.T) {
	opener, rest := `(?i)\b(?:keep|send)\b`, `(?i)(?:\bsecret\b|\.env|to\s+https?://[^\s"]+)`
	whole := `(?i)\b(?:keep|send)\b[^\n]{0,5}?(?:\bsecret\b|\.env|to\s+https?://[^\s"]+)`
	set := MustCompileGated(LineGate(0, 1<<1, 5), opener, rest)
	rng := rand.New(rand.NewPCG(7, 8))
	checked := 0
	for n := 0; n < 3000; n++ {
		text := randomTextOf(rng, gatePieces, 14)
		got := ends(set, text)[1]
		want := endsByRegexp(whole, text)
		if !slices.Equal(got, want) {
			t.Fatalf("%q: the gate found ends %v, the whole expression %v", text, got, want)
		}
		checked += len(want)
	}
	if checked < 200 {
		t.Fatalf("only %d match ends in the generated texts: the test proves little", checked)
	}
}

func FuzzScan(f *testing.F) {
	for _, p := range pieces {
		f.Add(p + " " + p)
	}
	set := MustCompile(exprs...)
	var res []*regexp.Regexp
	for _, e := range exprs {
		res = append(res, regexp.MustCompile(e))
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := ends(set, text)
		for i, re := range res {
			if want := re.MatchString(text); want != (len(got[i]) > 0) {
				t.Fatalf("%q on %q: regexp says %v, Scan found ends %v", exprs[i], text, want, got[i])
			}
		}
	})
}

// A scan of a short text costs what its few states cost, not the room for
// maxStates of them: each of tool-poisoning's three automata makes a cache,
// and one made for 8192 states held 1-2 MB of a run's live heap.
func TestAFreshCacheIsSmall(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	set := MustCompile(exprs...)
	set.Scan("send the secret to https://e.x/ and keep it", 1<<len(exprs)-1, func(int, int) uint16 { return 1<<len(exprs) - 1 })
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 128<<10 {
		t.Errorf("a set and one short scan allocated %d bytes; want at most 128 KiB (76 KiB today)", n)
	}
}
