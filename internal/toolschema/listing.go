package toolschema

import (
	"sync"
	"unsafe"
	"weak"
)

// Several rules judge every schema of a listing (tool-schema-invalid,
// schema-construct), one after the other on the frame that completed it.
// A listing larger than the Shared cache would be compiled once per rule,
// each rule evicting what the one before compiled; a Listing remembers
// each schema's verdict for the listing instead, so it is compiled once.
//
// A verdict is a Schema without its validator: what the listing's rules
// read. A schema with nothing to say (it compiles, uses no construct,
// declares no $schema) shares one verdict per dialect, so a clean listing
// costs a byte a schema. Other verdicts are kept while they cost no
// more than the schemas judged so far (plus listingFloor): past that a
// schema is compiled again by the next rule rather than held.

// listingFloor is what a listing's verdicts may cost beyond the bytes of
// its schemas, so that a small listing is always judged once.
const listingFloor = 1 << 20

// Listing is the verdicts of one listing's schemas under one dialect, by
// slot (the caller's numbering of the listing's schemas).
type Listing struct {
	owner   any // a weak.Pointer to the listing: the verdicts never keep it alive
	dialect Dialect

	mu     sync.Mutex
	states []slotState
	kept   map[int]*Schema // the verdicts of slots in keptVerdict
	budget int             // bytes the verdicts may still take
	cost   int             // bytes they take, beyond a byte a slot
}

// slotState is what a Listing knows of a slot.
type slotState uint8

const (
	unjudged    slotState = iota
	cleanSlot             // the clean verdict of the listing's dialect
	keptVerdict           // in kept
	unkept                // judged, not kept: judging it again adds nothing to the budget
)

// current is the latest listing asked for: rules judge a listing on its
// frame, one after the other, so one is enough. The next listing lets it go.
var current struct {
	mu      sync.Mutex
	listing *Listing
}

// ListingOf returns the verdicts of owner's schemas (slots of them) under
// def: the ones asked for before if owner and def are the latest listing
// asked for, else new ones. owner is the listing's identity; its schemas
// must not change while it lives.
func ListingOf[T any](owner *T, slots int, def Dialect) *Listing {
	id := any(weak.Make(owner))
	current.mu.Lock()
	defer current.mu.Unlock()
	if l := current.listing; l != nil && l.owner == id && l.dialect == def && len(l.states) == slots {
		return l
	}
	l := &Listing{owner: id, dialect: def, states: make([]slotState, slots), kept: map[int]*Schema{}, budget: listingFloor}
	current.listing = l
	return l
}

// Get returns the verdict of raw, the schema in slot: the first time, from
// its bytes when it is plain, else compiled through the Shared cache. The
// result has no validator.
func (l *Listing) Get(slot int, raw []byte) *Schema {
	l.mu.Lock()
	state := l.states[slot]
	switch state {
	case cleanSlot:
		l.mu.Unlock()
		return cleanVerdict(l.dialect)
	case keptVerdict:
		v := l.kept[slot]
		l.mu.Unlock()
		return v
	}
	l.mu.Unlock()
	v := cleanVerdict(l.dialect)
	if v == nil || !plain(raw) {
		v = verdictOf(Shared.Get(raw, l.dialect), l.dialect)
	}
	if state == unjudged {
		l.keep(slot, v, len(raw))
	}
	return v
}

// keep remembers v in slot when the listing's budget allows it; raw is
// what the schema's own bytes add to the budget.
func (l *Listing) keep(slot int, v *Schema, raw int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.states[slot] != unjudged {
		return // judged meanwhile by another caller
	}
	l.budget += raw
	if v == cleanVerdict(l.dialect) {
		l.states[slot] = cleanSlot
		return
	}
	cost := verdictCost(v)
	if cost > l.budget {
		l.states[slot] = unkept
		return
	}
	l.budget -= cost
	l.cost += cost
	l.states[slot], l.kept[slot] = keptVerdict, v
}

// Kept is the bytes the listing's verdicts hold beyond a byte a slot.
func (l *Listing) Kept() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cost
}

// clean holds the verdict of a schema with nothing to say, by dialect.
var clean = func() (c [len(dialectNames)]Schema) {
	for d := range c {
		c[d].Dialect = Dialect(d)
	}
	return c
}()

// cleanVerdict is the shared verdict of a schema with nothing to say under
// d; nil for a dialect with none.
func cleanVerdict(d Dialect) *Schema {
	if int(d) < len(clean) {
		return &clean[d]
	}
	return nil
}

// verdictOf is s without what validates values: the shared clean verdict
// when s has nothing to say under def.
func verdictOf(s *Schema, def Dialect) *Schema {
	if c := cleanVerdict(def); c != nil && s.Err == nil && s.Unjudged == "" && s.Declared == "" && s.Dialect == def && isZero(&s.Constructs) {
		return c
	}
	return &Schema{Dialect: s.Dialect, Declared: s.Declared, Err: s.Err, Unjudged: s.Unjudged, Constructs: s.Constructs, size: s.size}
}

func isZero(c *Constructs) bool {
	return c.Kinds == 0 && c.ExternalRefs == nil && c.Untyped == nil && c.Patterns == nil
}

// verdictCost estimates the bytes a kept verdict holds.
func verdictCost(v *Schema) int {
	n := int(unsafe.Sizeof(*v)) + 48 + len(v.Declared) + len(v.Unjudged) // 48: its entry in kept
	for _, list := range [][]string{v.Constructs.ExternalRefs, v.Constructs.Untyped, v.Constructs.Patterns} {
		for _, s := range list {
			n += int(unsafe.Sizeof(s)) + len(s)
		}
	}
	if v.Err != nil {
		n += 64 + len(v.Err.Error())
	}
	return n
}
