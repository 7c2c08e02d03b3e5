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
	held, seen := 0, map[uint64]bool{} // two ids may share a bucket: walk each chain once
	for i := 0; i < 20; i++ {
		b := r.key(s, ClientToServer, fmt.Sprint(i)) % uint64(len(r.heads))
		for n := r.heads[b]; !seen[b] && r.held(n); n = r.ring[(n-1)%uint64(len(r.ring))].prev {
			held++
		}
		seen[b] = true
	}
	if held != recentCalls {
		t.Errorf("the chains reach %d calls, the ring holds %d", held, recentCalls)
	}
	other := &Session{}
	r.add(other, &Call{Dir: ClientToServer, ID: MakeID([]byte("3")), Conn: "x"})
	if c := r.find(other, ClientToServer, MakeID([]byte("3")), "y"); c == nil || c.Conn != "x" {
		t.Error("the only call of an id is not found on another connection")
	}
	if c := r.find(s, ClientToServer, MakeID([]byte("3")), "y"); c != nil {
		t.Errorf("one of several calls of an id is taken for another connection's: %v", c.Conn)
	}
	if c := r.find(other, ServerToClient, MakeID([]byte("3")), "x"); c != nil {
		t.Error("a call is found in the other direction")
	}
}
