package session

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// The sorter gives back what it was given, in order, through every path:
// one run, many runs, and more runs than it merges at once (merged in
// passes).
func TestSortFileSortsThroughRunsAndPasses(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 10, 500, 5000} {
		sf := &sortFile{pattern: "mcpcheck-sorttest-*", chunkSize: 256, fanIn: 3}
		var want [][]byte
		x := uint64(n)
		for i := range n {
			x = x*6364136223846793005 + 1442695040888963407
			rec := fmt.Appendf(nil, "%d-%d", x>>60, i%7) // repeats, and lengths that differ
			want = append(want, rec)
			sf.add(rec)
		}
		slices.SortFunc(want, bytes.Compare)
		runs := len(sf.runs)
		m, err := sf.sorted()
		if err != nil {
			t.Fatal(err)
		}
		var got [][]byte
		for {
			rec, ok := m.next()
			if !ok {
				break
			}
			got = append(got, slices.Clone(rec))
		}
		if m.err != nil {
			t.Fatal(m.err)
		}
		if !slices.EqualFunc(got, want, bytes.Equal) {
			t.Errorf("%d records: got %d back, out of order or changed", n, len(got))
		}
		if n == 5000 && (runs <= sf.fanIn || len(sf.runs) > sf.fanIn) {
			t.Errorf("%d runs, %d left to merge: the passes were not exercised or left too many", runs, len(sf.runs))
		}
		sf.close()
	}
}
