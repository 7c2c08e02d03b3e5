package facts

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"weak"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/mcp"
)

// The sessions of one server list the same tools, and a capture keeps its
// sessions open to its end: fifty sessions held fifty copies of every
// definition, and of the form a baseline compares, until the last frame.
// A complete listing never changes, so every session that listed the same
// definitions shares one. The pool holds listings weakly: one lives while a
// session uses it, and the pool keeps nothing of its own.
var listings = &listingPool{}

type listingPool struct {
	mu    sync.Mutex
	sets  map[[sha256.Size]byte]weak.Pointer[mcp.ToolSet]
	defs  map[defsKey]baseline.Definitions
	swept int // entries left by the last sweep
}

// defsKey is a listing under a revision: its definitions as a baseline
// compares them.
type defsKey struct {
	set      weak.Pointer[mcp.ToolSet]
	revision string
}

// share returns the pool's listing with the same tools as set, or set,
// which the pool then shares.
func (p *listingPool) share(set *mcp.ToolSet) *mcp.ToolSet {
	if set == nil {
		return nil
	}
	key := listingHash(set)
	p.mu.Lock()
	defer p.mu.Unlock()
	if old := p.sets[key].Value(); old != nil && sameTools(old, set) {
		return old
	}
	if p.sets == nil {
		p.sets = map[[sha256.Size]byte]weak.Pointer[mcp.ToolSet]{}
	}
	p.sets[key] = weak.Make(set)
	p.sweep()
	return set
}

// definitions is baseline.FromToolSet of a listing the pool shares, made
// once per listing and revision.
func (p *listingPool) definitions(set *mcp.ToolSet, revision string) baseline.Definitions {
	if set == nil {
		return baseline.FromToolSet(nil, revision)
	}
	key := defsKey{weak.Make(set), revision}
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.defs[key]; ok {
		return d
	}
	d := baseline.FromToolSet(set, revision)
	if p.defs == nil {
		p.defs = map[defsKey]baseline.Definitions{}
	}
	p.defs[key] = d
	p.sweep()
	return d
}

// sweep forgets the listings no session uses any more, once the entries
// have doubled since the last sweep: the pool's size follows the listings
// in use.
func (p *listingPool) sweep() {
	if n := len(p.sets) + len(p.defs); n < 2*p.swept+64 {
		return
	}
	for k, w := range p.sets {
		if w.Value() == nil {
			delete(p.sets, k)
		}
	}
	for k := range p.defs {
		if k.set.Value() == nil {
			delete(p.defs, k)
		}
	}
	p.swept = len(p.sets) + len(p.defs)
}

// listingHash identifies a listing by its tools' definitions, in order.
func listingHash(set *mcp.ToolSet) [sha256.Size]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for i := range set.Len() {
		raw := set.Raw(i)
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(raw)))])
		h.Write(raw)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// sameTools reports whether two listings hold the same tools: the same
// definitions, byte for byte, from which every field of a tool is read.
func sameTools(a, b *mcp.ToolSet) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if !bytes.Equal(a.Raw(i), b.Raw(i)) {
			return false
		}
	}
	return true
}
