package checks

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// The set answers as a plain set of tokens would, whatever the order ids
// come in, keeps counter ids as runs, and says when it stopped growing.
func TestIDSetIsASetOfTokens(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 9))
	var s idSet
	want := map[string]bool{}
	tokens := []string{"0", "-1", "1.0", "1e3", `"7"`, "007", "-0", "9223372036854775807", "-9223372036854775808", "9223372036854775808"}
	for i := 0; i < 3000; i++ {
		tok := fmt.Sprint(rng.IntN(2000) - 100)
		if i%50 == 0 {
			tok = tokens[rng.IntN(len(tokens))]
		}
		s.add(session.MakeID([]byte(tok)))
		want[tok] = true
	}
	if s.full {
		t.Fatal("full")
	}
	for i := -200; i < 2100; i++ {
		tok := fmt.Sprint(i)
		if got := s.has(session.MakeID([]byte(tok))); got != want[tok] {
			t.Fatalf("has(%s) = %v, want %v", tok, got, want[tok])
		}
	}
	for _, tok := range append(tokens, `"8"`, "1.5", "2e3") {
		if got := s.has(session.MakeID([]byte(tok))); got != want[tok] {
			t.Errorf("has(%s) = %v, want %v", tok, got, want[tok])
		}
	}
	for k := 1; k < len(s.runs); k++ {
		if s.runs[k-1].hi+1 >= s.runs[k].lo {
			t.Fatalf("runs %v and %v touch", s.runs[k-1], s.runs[k])
		}
	}

	var counter idSet
	for i := 1; i <= 100_000; i++ {
		counter.add(session.MakeID([]byte(fmt.Sprint(i))))
	}
	if len(counter.runs) != 1 || !counter.has(session.MakeID([]byte("54321"))) || counter.has(session.MakeID([]byte("100001"))) {
		t.Errorf("a counter's ids are %d runs", len(counter.runs))
	}

	var sparse idSet
	for i := 0; i <= maxIDRuns; i++ {
		sparse.add(session.MakeID([]byte(fmt.Sprint(i * 2))))
	}
	if !sparse.full || sparse.has(session.MakeID([]byte(fmt.Sprint(maxIDRuns*2)))) {
		t.Error("a set past its bound does not say it is full")
	}
}
