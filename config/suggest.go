package config

import "fmt"

// didYouMean is `; did you mean "X"?` for the valid name nearest to got,
// when one is near enough to be a slip of the keyboard; else "".
func didYouMean(got string, valid []string) string {
	best, bestDist := "", 0
	for _, v := range valid {
		d := distance(got, v)
		if best == "" || d < bestDist {
			best, bestDist = v, d
		}
	}
	if best == "" || best == got || bestDist > max(2, len(got)/3) {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
