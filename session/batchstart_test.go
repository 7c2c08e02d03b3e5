package session_test

import "testing"

// "batch" envelopes right after an array batch in the same direction are a
// new batch, not the array's continuation.
func TestSplitBatchAfterAnArrayStartsABatch(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		env(1, "c2s", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`),
		env(2, "c2s", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, `"batch":true`),
		env(3, "c2s", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, `"batch":true`),
	))
	var starts []bool
	for _, f := range rec.frames {
		starts = append(starts, f.BatchStart)
	}
	if len(starts) != 4 || !starts[0] || starts[1] || !starts[2] || starts[3] {
		t.Errorf("batch starts %v, want [true false true false]", starts)
	}
}
