package session

import (
	"fmt"
	"testing"
)

// The finished-call ring forgets the oldest calls, and its index with them.
func TestFinishedCallsRing(t *testing.T) {
	t.Parallel()
	r := newFinishedCalls()
	s := &Session{}
	for i := 0; i < recentCalls+10; i++ {
		r.add(s, &Call{Dir: ClientToServer, ID: MakeID([]byte(fmt.Sprint(i % 20))), Conn: fmt.Sprint(i)})
	}
	newest := recentCalls + 9
	for newest%20 != 3 {
		newest--
	}
	if c := r.find(s, ClientToServer, MakeID([]byte("3")), fmt.Sprint(newest)); c == nil || c.Conn != fmt.Sprint(newest) {
		t.Error("the newest call of an id on its connection is not found")
	}
	if c := r.find(s, ClientToServer, MakeID([]byte("3")), "3"); c != nil {
		t.Error("an evicted call is still found")
	}
	total := 0
	for _, cs := range r.index {
		total += len(cs)
	}
	if total != recentCalls {
		t.Errorf("index holds %d calls, the ring %d", total, recentCalls)
	}
}
