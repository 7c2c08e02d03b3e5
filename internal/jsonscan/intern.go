package jsonscan

import (
	"bytes"
	"hash/maphash"
	"sync/atomic"
)

// Interner returns the same string for the same short JSON string value,
// so that the members every envelope repeats (session id, server label,
// transport) cost no allocation once seen. It is a table of a fixed size,
// two slots to choose from a value: memory stays bounded whatever the
// capture holds, and a value evicted by another is only allocated again. Not safe for
// concurrent use; the zero value is ready.
type Interner struct {
	seed   maphash.Seed
	seeded bool
	table  [internSlots]string
}

const (
	internSlots = 256
	internMax   = 96 // longer strings are rarely repeated and not worth a slot
)

// String is String(val), from the table when val is short and has no
// escapes.
func (in *Interner) String(val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' || len(val)-2 > internMax {
		return String(val)
	}
	inner := val[1 : len(val)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		return String(val)
	}
	if !in.seeded {
		in.seed, in.seeded = maphash.MakeSeed(), true
	}
	first, second := slotsOf(maphash.Bytes(in.seed, inner))
	a, b := &in.table[first], &in.table[second]
	switch {
	case *a == string(inner): // compares without allocating
		return *a, true
	case *b == string(inner):
		return *b, true
	case *a == "":
		*a = string(inner)
		return *a, true
	}
	*b = string(inner)
	return *b, true
}

// slotsOf is the two slots a string may take, from its hash: two strings
// that share one slot rarely share the other, so that two values a capture
// alternates between (two tool names, two session ids) are both kept,
// whatever the process's seed, instead of evicting each other every time.
func slotsOf(h uint64) (first, second uint64) {
	return h % internSlots, (h >> 32) % internSlots
}

// Names is an interner shared by every reader, safe for concurrent use, for
// the names requests repeat (tool, prompt and resource names) where no
// reader's own table is at hand. A hit costs no allocation; a miss
// allocates the string and replaces the slot.
var Names sharedInterner

type sharedInterner struct {
	seed  maphash.Seed
	table [internSlots]atomic.Pointer[string]
}

func init() { Names.seed = maphash.MakeSeed() }

// String is String(val), from the table when val is short and has no
// escapes.
func (in *sharedInterner) String(val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' || len(val)-2 > internMax {
		return String(val)
	}
	inner := val[1 : len(val)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		return String(val)
	}
	first, second := slotsOf(maphash.Bytes(in.seed, inner))
	a, b := &in.table[first], &in.table[second]
	if p := a.Load(); p != nil && *p == string(inner) {
		return *p, true
	}
	if p := b.Load(); p != nil && *p == string(inner) {
		return *p, true
	}
	s := string(inner)
	if !a.CompareAndSwap(nil, &s) {
		b.Store(&s)
	}
	return s, true
}
