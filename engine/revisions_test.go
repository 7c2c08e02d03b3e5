package engine

import (
	"testing"
	"unsafe"

	"github.com/mcpcheck/mcpcheck/checks"
)

// The rules that judge a revision are remembered for a few revisions; asked
// for more, in any order, and for revisions whose bytes are later reused,
// each answer is still what the rules' own ranges say.
func TestJudgesRevisionMatchesTheRanges(t *testing.T) {
	rules := checks.All()
	d := newDriver(&Config{Rules: rules}, nil, "capture.jsonl")
	revs := []string{"", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", "draft"}
	ranged := 0
	for _, r := range rules {
		if r.Revisions != checks.AllRevisions {
			ranged++
		}
	}
	if ranged == 0 {
		t.Fatal("no rule judges only some revisions: the test compares nothing")
	}
	buf := make([]byte, 16)
	for round := range 3 {
		for k := range revs {
			rev := revs[(k*5+round)%len(revs)]
			n := copy(buf, rev)
			asked := unsafe.String(&buf[0], n) // the reader's bytes, overwritten below
			got := d.judgesRevision(asked)
			clear(buf)
			for i, r := range rules {
				if want := r.Revisions.Includes(rev); got[i] != want {
					t.Errorf("revision %q: rule %s judges it = %v, want %v", rev, r.ID, got[i], want)
				}
			}
		}
	}
}
