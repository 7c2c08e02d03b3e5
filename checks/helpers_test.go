package checks

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// A memo of open calls forgets the oldest past its bound, so requests that
// are never answered cannot grow it.
func TestCallMemoIsBounded(t *testing.T) {
	t.Parallel()
	m := newCallMemo[int](3)
	calls := make([]*session.Call, 10)
	for i := range calls {
		calls[i] = &session.Call{}
		m.put(calls[i], i)
		if i%2 == 1 {
			m.take(calls[i])
		}
	}
	if len(m.byKey) > 3 || len(m.order) > 6 {
		t.Errorf("memo holds %d calls in an order of %d", len(m.byKey), len(m.order))
	}
	if v, ok := m.byKey[calls[8]]; !ok || v != 8 {
		t.Errorf("the newest call is forgotten: %v %v", v, ok)
	}
	if _, ok := m.byKey[calls[0]]; ok {
		t.Error("the oldest call is still remembered")
	}
}

// cut keeps text of exactly max bytes whole and cuts longer text on a rune
// boundary (a survivor of the mutation sample: <= against <).
func TestCutAtTheBoundary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"abcd", 4, "abcd"},
		{"abcde", 4, "abcd…"},
		{"abé", 3, "ab…"}, // é is two bytes: not split
		{"", 0, ""},
	} {
		if got := cut(c.in, c.max); got != c.want {
			t.Errorf("cut(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
