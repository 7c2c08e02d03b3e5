package session

import (
	"slices"
	"sort"
)

// credits are the frames of one direction a session's capture may have lost
// (a seq gap, a truncated frame, a damaged envelope), each where it was
// lost. A lost answer can only explain a request sent before it, so it
// excuses the pending request it followed, not a later one; a lost request
// may explain an answer with no request.
type credits struct{ marks []creditMark }

// creditMark is n lost frames at pos: twice the session's frame count, less
// one for frames dropped just before a frame, plus one for damage between
// frames (a request's own pos is twice its frame count).
type creditMark struct {
	pos int64
	n   int
}

// maxCreditMarks bounds the marks a session keeps; past it the oldest are
// merged into the next, which only makes them excuse more.
const maxCreditMarks = 64

func (cr *credits) add(pos int64, n int) {
	if n <= 0 {
		return
	}
	if k := len(cr.marks); k > 0 && cr.marks[k-1].pos == pos {
		cr.marks[k-1].n += n
		return
	}
	cr.marks = append(cr.marks, creditMark{pos, n})
	if len(cr.marks) > maxCreditMarks {
		cr.marks[1].n += cr.marks[0].n
		cr.marks = slices.Delete(cr.marks, 0, 1)
	}
}

// take uses one lost frame, the latest; false when there is none.
func (cr *credits) take() bool {
	k := len(cr.marks)
	if k == 0 {
		return false
	}
	if cr.marks[k-1].n--; cr.marks[k-1].n == 0 {
		cr.marks = cr.marks[:k-1]
	}
	return true
}

// excused reports, for each pending request (all sent in the direction
// these lost answers would have answered), whether a lost answer explains
// it: each lost frame excuses the latest pending request sent before it;
// what is left may excuse one sent just after it, within the reorder
// window (a recorder may write an answer before its request).
func (cr *credits) excused(pending []*Call) map[*Call]bool {
	if len(cr.marks) == 0 || len(pending) == 0 {
		return nil
	}
	reqs := slices.Clone(pending)
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].pos < reqs[j].pos })
	out := map[*Call]bool{}
	left := make([]int, len(cr.marks))
	var stack []*Call
	next := 0
	for m, mark := range cr.marks {
		for next < len(reqs) && reqs[next].pos < mark.pos {
			stack = append(stack, reqs[next])
			next++
		}
		n := mark.n
		for n > 0 && len(stack) > 0 {
			out[stack[len(stack)-1]] = true
			stack = stack[:len(stack)-1]
			n--
		}
		left[m] = n
	}
	for m, mark := range cr.marks {
		for _, c := range reqs {
			if left[m] == 0 {
				break
			}
			if !out[c] && c.pos >= mark.pos && c.pos <= mark.pos+2*ReorderWindow {
				out[c] = true
				left[m]--
			}
		}
	}
	return out
}
