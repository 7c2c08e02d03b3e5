package checks

import (
	"slices"
	"strconv"

	"github.com/mcpcheck/mcpcheck/session"
)

// idSet is a bounded set of request ids (exact tokens). Past its bound it
// stops growing and says so: a rule must then not conclude that an id is
// absent.
//
// Most peers number requests with a counter, so integer ids are kept as
// runs (1 to 100,000 is one run): a session's ids cost almost nothing
// however many requests it sends, and 256 live sessions may keep a set
// each. Other ids (strings, 1.0, 1e3) are kept one by one.
type idSet struct {
	runs  []idRun // disjoint, sorted, not adjacent
	other map[string]struct{}
	full  bool
}

// idRun is the integer ids lo to hi.
type idRun struct{ lo, hi int64 }

const (
	maxIDRuns  = 4096
	maxIDOther = 4096
)

func (s *idSet) add(id session.ID) {
	if n, ok := plainInteger(id.String()); ok {
		s.addInt(n)
		return
	}
	if s.other == nil {
		s.other = map[string]struct{}{}
	}
	if _, ok := s.other[id.String()]; !ok && len(s.other) >= maxIDOther {
		s.full = true
		return
	}
	s.other[id.String()] = struct{}{}
}

func (s *idSet) addInt(n int64) {
	// the run n falls in or follows (the common case: the last one)
	i, found := slices.BinarySearchFunc(s.runs, n, func(r idRun, n int64) int {
		switch {
		case r.hi < n:
			return -1
		case r.lo > n:
			return 1
		}
		return 0
	})
	if found {
		return
	}
	joinsBefore := i > 0 && s.runs[i-1].hi == n-1
	joinsAfter := i < len(s.runs) && s.runs[i].lo == n+1
	switch {
	case joinsBefore && joinsAfter:
		s.runs[i-1].hi = s.runs[i].hi
		s.runs = slices.Delete(s.runs, i, i+1)
	case joinsBefore:
		s.runs[i-1].hi = n
	case joinsAfter:
		s.runs[i].lo = n
	case len(s.runs) >= maxIDRuns:
		s.full = true
	default:
		s.runs = slices.Insert(s.runs, i, idRun{n, n})
	}
}

func (s *idSet) has(id session.ID) bool {
	if n, ok := plainInteger(id.String()); ok {
		_, found := slices.BinarySearchFunc(s.runs, n, func(r idRun, n int64) int {
			switch {
			case r.hi < n:
				return -1
			case r.lo > n:
				return 1
			}
			return 0
		})
		return found
	}
	_, ok := s.other[id.String()]
	return ok
}

// plainInteger reads an id token written as a plain decimal integer (no
// fraction, exponent, plus sign or leading zero), the one spelling for
// which a number and its token are the same id.
func plainInteger(tok string) (int64, bool) {
	if tok == "" || tok == "-0" || (len(tok) > 1 && tok[0] == '0') || (len(tok) > 2 && tok[0] == '-' && tok[1] == '0') {
		return 0, false
	}
	for i, c := range []byte(tok) {
		if !(c >= '0' && c <= '9' || (i == 0 && c == '-' && len(tok) > 1)) {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(tok, 10, 64)
	return n, err == nil
}
