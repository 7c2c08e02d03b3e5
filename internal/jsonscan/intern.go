package jsonscan

import (
	"bytes"
	"hash/maphash"
	"sync/atomic"
)

// Interner returns the same string for the same short JSON string value,
// so that the members every envelope repeats (session id, server label,
// transport) cost no allocation once seen. It is a direct-mapped table of
// a fixed size: memory stays bounded whatever the capture holds, and a
// value evicted by another is only allocated again. Not safe for
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
	slot := &in.table[maphash.Bytes(in.seed, inner)%internSlots]
	if *slot != string(inner) { // compares without allocating
		*slot = string(inner)
	}
	return *slot, true
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
	slot := &in.table[maphash.Bytes(in.seed, inner)%internSlots]
	if p := slot.Load(); p != nil && *p == string(inner) {
		return *p, true
	}
	s := string(inner)
	slot.Store(&s)
	return s, true
}
