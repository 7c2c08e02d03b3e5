// Package suggest finds the name a user probably meant: the did-you-mean
// of every usage error (commands, flags, rule ids, signals, formats, tool
// names in assertions).
package suggest

import (
	"strings"
	"unicode/utf8"
)

// Closest is the candidate nearest to word, ignoring case, when it is near
// enough to be a slip: a few edits (a transposition counts as one) for the
// word's length, or a word that starts with the candidate or is its start
// ("warning" for warn). It is "" when nothing is near, or word is a
// candidate itself.
func Closest(word string, candidates []string) string {
	w := strings.ToLower(word)
	if w == "" {
		return ""
	}
	limit := min(1+utf8.RuneCountInString(w)/4, 3)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == w {
			return ""
		}
		d := distance(w, lc)
		if d > limit && len(lc) >= 3 && len(w) >= 3 && (strings.HasPrefix(w, lc) || strings.HasPrefix(lc, w)) {
			d = limit // a longer or shorter spelling of the same word
		}
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// DidYouMean is " (did you mean X?)" for the closest candidate, or "".
func DidYouMean(word string, candidates []string) string {
	if c := Closest(word, candidates); c != "" {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// distance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and transpositions of adjacent
// runes that turn one into the other.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// three rows: the one before the previous (for transpositions), the
	// previous, the current
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
