package session

import (
	"testing"
	"unsafe"
)

// A Call is allocated for every request a capture holds: it stays within
// the allocator's 256-byte size class, past which each one costs 288.
func TestCallStaysInItsSizeClass(t *testing.T) {
	t.Parallel()
	if n := unsafe.Sizeof(Call{}); n > 256 {
		t.Errorf("a Call is %d bytes; keep it at 256 or less (pack small members together)", n)
	}
}
