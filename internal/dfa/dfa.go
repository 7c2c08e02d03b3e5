// Package dfa scans a text once for several regular expressions together
// and says, at each position, which of them have a match ending there. It
// is a lazy DFA over the programs regexp/syntax compiles: a state is the
// set of threads of every expression at one position, made when the text
// first needs it and kept in a bounded cache, so a scan costs a table
// lookup a byte once the states it needs exist. The regexp package runs
// an NFA over long texts, about a megabyte a second for the patterns
// tool-poisoning needs; this answers the question that decides whether
// the NFA must run at all, and where.
//
// It answers as regexp does: the same syntax (Perl flags), runes decoded
// as regexp decodes them (an invalid byte is U+FFFD, one byte wide), the
// same case folding and the same ASCII word boundary.
package dfa

import (
	"encoding/binary"
	"fmt"
	"regexp/syntax"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// MaxExpressions is how many expressions one Set scans for: a state's
// matches are a 16-bit mask.
const MaxExpressions = 16

// maxStates bounds the states one cache keeps; past it the cache starts
// again, so memory stays bounded whatever the text (at worst a scan makes
// a state a rune, as slow as an NFA). A variable for tests.
var maxStates = 8192

// Counters count the work of every scan, for budget tests: bytes read,
// and states made (each costs what an NFA step costs; a byte of a state
// already made costs a table lookup).
var Counters counters

type counters struct{ scanned, made atomic.Int64 }

// Snapshot returns the bytes scanned and the states made, so far.
func (c *counters) Snapshot() (scanned, made int64) { return c.scanned.Load(), c.made.Load() }

// A Set is a list of regular expressions scanned for together. It is safe
// for concurrent use: each scan takes a cache of states from a pool.
type Set struct {
	progs []*syntax.Prog
	gate  *Gate
	// classOf sorts ASCII bytes into the classes the expressions cannot
	// tell apart, so that a state's table has a column a class.
	classOf [utf8.RuneSelf]uint8
	classes int
	pool    sync.Pool // *cache
}

// A Gate lets some expressions start a match only a little after another
// has matched: what `opener gap{0,n}? rest` asks, scanned as opener, then
// rest where the gap allows it. Written as one expression, the automaton
// would follow every opener of the last n runes at once, a state for each
// set of them, and dense text makes a new state every byte; the gate
// follows only the latest opener, which is enough when any gap that is
// allowed after an earlier opener is allowed after a later one (a suffix
// of an allowed gap is allowed), as "no newline" and "at most n runes"
// are.
type Gate struct {
	Opener int    // the expression whose match opens the gate where it ends
	Gated  uint16 // the expressions that start only while it is open
	// Next moves the gate over one rune of the gap: from 1, just opened,
	// to what it is after r; 0 is closed. At most 255 states.
	Next func(state uint8, r rune) uint8
	// Admits reports whether a gated expression may start at a position
	// the gate is in state (never 0).
	Admits func(state uint8) bool
}

// Compile parses each expression as regexp.Compile does.
func Compile(exprs ...string) (*Set, error) {
	return CompileGated(nil, exprs...)
}

// CompileGated is Compile with a gate over the expressions.
func CompileGated(gate *Gate, exprs ...string) (*Set, error) {
	if len(exprs) > MaxExpressions {
		return nil, fmt.Errorf("dfa: %d expressions, at most %d", len(exprs), MaxExpressions)
	}
	s := &Set{gate: gate}
	if gate != nil && (gate.Opener >= len(exprs) || gate.Gated&(1<<gate.Opener) != 0) {
		return nil, fmt.Errorf("dfa: a gate opened by expression %d of %d, which it gates", gate.Opener, len(exprs))
	}
	for _, expr := range exprs {
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			return nil, err
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			return nil, err
		}
		if len(prog.Inst) >= 1<<24 {
			return nil, fmt.Errorf("dfa: %q compiles to too many instructions", expr)
		}
		s.progs = append(s.progs, prog)
	}
	s.sortBytes()
	s.pool.New = func() any { return s.newCache() }
	return s, nil
}

// MustCompile is Compile for expressions known to be valid.
func MustCompile(exprs ...string) *Set { return MustCompileGated(nil, exprs...) }

// MustCompileGated is CompileGated for expressions known to be valid.
func MustCompileGated(gate *Gate, exprs ...string) *Set {
	s, err := CompileGated(gate, exprs...)
	if err != nil {
		panic(err)
	}
	return s
}

// sortBytes makes the byte classes: two bytes are of one class when every
// rune instruction takes both or neither and they give a position the same
// context.
func (s *Set) sortBytes() {
	class := map[string]uint8{}
	var sig []byte
	for b := rune(0); b < utf8.RuneSelf; b++ {
		sig = append(sig[:0], byte(contextOf(b)))
		for _, p := range s.progs {
			for i := range p.Inst {
				in := &p.Inst[i]
				switch in.Op {
				case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
					sig = append(sig, "01"[boolInt(consumes(in, b))])
				}
			}
		}
		c, ok := class[string(sig)]
		if !ok {
			c = uint8(len(class))
			class[string(sig)] = c
		}
		s.classOf[b] = c
	}
	s.classes = len(class)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Len is the number of expressions.
func (s *Set) Len() int { return len(s.progs) }

// Scan reads text once and calls found for each expression i that live
// holds with a match ending at end (a byte offset; len(text) for a match at
// the end), in the order of end and then of i. A match ending at end may
// start anywhere before it. found returns the expressions still wanted: a
// scan with none left stops.
func (s *Set) Scan(text string, live uint16, found func(i, end int) uint16) {
	if live == 0 {
		return
	}
	c := s.pool.Get().(*cache)
	defer s.pool.Put(c)
	Counters.scanned.Add(int64(len(text)))
	id := c.start
	classes, classOf := uint32(c.set.classes), &c.set.classOf
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		var t uint32
		if r < utf8.RuneSelf {
			t = c.ascii[uint32(id)*classes+uint32(classOf[r])]
			if t == 0 {
				t = c.step(id, r)
			}
		} else {
			r, size = utf8.DecodeRuneInString(text[i:])
			t = c.states[id].others[r]
			if t == 0 {
				t = c.step(id, r)
			}
		}
		if m := uint16(t>>16) & live; m != 0 {
			if live = report(m, i, live, found); live == 0 {
				return
			}
		}
		id = c.resolve(t)
		i += size
	}
	if m := c.endMatches(id) & live; m != 0 {
		report(m, len(text), live, found)
	}
}

func report(m uint16, end int, live uint16, found func(i, end int) uint16) uint16 {
	for i := 0; m != 0; i++ {
		if m&1 != 0 && live&(1<<i) != 0 {
			live = found(i, end)
		}
		m >>= 1
	}
	return live
}

// A thread is one expression's program counter: the expression in the top
// 8 bits, the instruction in the low 24.
type thread uint32

func (t thread) expr() int { return int(t >> 24) }
func (t thread) pc() int   { return int(t & (1<<24 - 1)) }

// context is what an empty-width assertion needs of the rune before a
// position: none (the text's start), a newline, a word character, other.
type context uint8

const (
	atStart context = iota
	afterNewline
	afterWord
	afterOther
)

func contextOf(r rune) context {
	switch {
	case r == '\n':
		return afterNewline
	case syntax.IsWordChar(r):
		return afterWord
	}
	return afterOther
}

// before is a rune that stands for the context, for syntax.EmptyOpContext.
func (c context) before() rune {
	return [...]rune{-1, '\n', 'a', ' '}[c]
}

// state is the threads waiting at one position, before the rune there is
// known (empty-width assertions are decided with it), and what followed
// from each rune: ascii[its class] and others[r] hold the next state's index plus
// one in the low 16 bits and the expressions with a match ending before r
// in the high 16; zero is not yet known.
type state struct {
	threads []thread
	ctx     context
	gate    uint8    // the gate's state here, before the rune (0: closed, or no gate)
	ascii   []uint32 // by byte class
	others  map[rune]uint32
	atEnd   int32 // matches at the end of the text, plus one; zero is not yet known
}

// cache is one scan's states. A transition holds the next state's index
// plus one in its low 16 bits and the expressions with a match ending
// before the rune in its high 16; zero is not yet known. Those on ASCII
// are in one table, a row a state and a column a byte class, so that a
// byte costs one load.
type cache struct {
	set    *Set
	ascii  []uint32
	states []*state
	index  map[string]uint16
	start  uint16
	key    []byte
	seen   [][]uint32 // per expression, per instruction: the step that last visited it
	stamp  uint32
	stack  []thread
	next   []thread
}

func (s *Set) newCache() *cache {
	c := &cache{set: s, index: map[string]uint16{}}
	for _, p := range s.progs {
		c.seen = append(c.seen, make([]uint32, len(p.Inst)))
	}
	c.reset()
	return c
}

// reset empties the cache but for the start state.
func (c *cache) reset() {
	clear(c.index)
	c.states = c.states[:0]
	c.ascii = c.ascii[:0]
	c.start = c.add(c.startThreads(nil, false), atStart, 0)
}

// startThreads appends the start of every expression, or of the gated
// ones only.
func (c *cache) startThreads(ts []thread, gated bool) []thread {
	var mask uint16
	if c.set.gate != nil {
		mask = c.set.gate.Gated
	}
	for i, p := range c.set.progs {
		if (mask&(1<<i) != 0) == gated {
			ts = append(ts, thread(i<<24|p.Start))
		}
	}
	return ts
}

// add returns the index of the state of threads (sorted, unique), ctx and
// gate, making it when it is new.
func (c *cache) add(threads []thread, ctx context, gate uint8) uint16 {
	c.key = c.key[:0]
	c.key = append(c.key, byte(ctx), gate)
	for _, t := range threads {
		c.key = binary.LittleEndian.AppendUint32(c.key, uint32(t))
	}
	if id, ok := c.index[string(c.key)]; ok {
		return id
	}
	Counters.made.Add(1)
	id := uint16(len(c.states))
	c.states = append(c.states, &state{threads: slices.Clone(threads), ctx: ctx, gate: gate})
	c.ascii = append(c.ascii, make([]uint32, c.set.classes)...)
	c.index[string(c.key)] = id
	return id
}

// resolve is the next state's index from a transition; a cache that was
// started again while the transition was made puts it last.
func (c *cache) resolve(t uint32) uint16 { return uint16(t&0xffff) - 1 }

// step makes the transition of state id on rune r.
func (c *cache) step(id uint16, r rune) uint32 {
	st := c.states[id]
	matches, gate := c.follow(st, r)
	slices.Sort(c.next)
	c.next = slices.Compact(c.next)
	if len(c.states) >= maxStates {
		// Start again; the transition is not kept, since the state it
		// leaves from is gone.
		c.reset()
		next := c.add(c.next, contextOf(r), gate)
		return uint32(matches)<<16 | uint32(next) + 1
	}
	next := c.add(c.next, contextOf(r), gate)
	t := uint32(matches)<<16 | uint32(next) + 1
	if r < utf8.RuneSelf {
		c.ascii[int(id)*c.set.classes+int(c.set.classOf[r])] = t
	} else {
		if st.others == nil {
			st.others = map[rune]uint32{}
		}
		st.others[r] = t
	}
	return t
}

// endMatches is the expressions with a match at the end of the text, from
// state id.
func (c *cache) endMatches(id uint16) uint16 {
	st := c.states[id]
	if st.atEnd == 0 {
		m, _ := c.follow(st, -1)
		st.atEnd = int32(m) + 1
	}
	return uint16(st.atEnd - 1)
}

// follow runs st's threads up to rune r (-1: the end of the text): it
// returns the expressions that reach a match first and the gate's state
// after r, and leaves in c.next the threads that consume r, followed by
// every ungated expression's start (the scan looks for matches starting
// anywhere). Gated expressions start here, and take r, when the gate
// admits them: it opens when the opener's match ends here.
func (c *cache) follow(st *state, r rune) (uint16, uint8) {
	flags := syntax.EmptyOpContext(st.ctx.before(), r)
	c.stamp++
	if c.stamp == 0 { // wrapped: forget every visit
		for _, s := range c.seen {
			clear(s)
		}
		c.stamp = 1
	}
	c.next = c.next[:0]
	matches := c.run(st.threads, flags, r)
	gate := st.gate
	if g := c.set.gate; g != nil {
		if matches&(1<<g.Opener) != 0 {
			gate = 1
		}
		if gate != 0 && g.Admits(gate) {
			matches |= c.run(c.startThreads(nil, true), flags, r)
		}
		if gate != 0 && r >= 0 {
			gate = g.Next(gate, r)
		}
	}
	c.next = c.startThreads(c.next, false)
	return matches, gate
}

// run follows threads through the instructions that consume nothing,
// under the empty-width flags of this position, adds to c.next those that
// consume r, and returns the expressions that reach a match.
func (c *cache) run(threads []thread, flags syntax.EmptyOp, r rune) uint16 {
	c.stack = append(c.stack[:0], threads...)
	var matches uint16
	for len(c.stack) > 0 {
		t := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		e, pc := t.expr(), t.pc()
		if c.seen[e][pc] == c.stamp {
			continue
		}
		c.seen[e][pc] = c.stamp
		in := &c.set.progs[e].Inst[pc]
		at := func(pc uint32) thread { return thread(e<<24 | int(pc)) }
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			c.stack = append(c.stack, at(in.Arg), at(in.Out))
		case syntax.InstCapture, syntax.InstNop:
			c.stack = append(c.stack, at(in.Out))
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^flags == 0 {
				c.stack = append(c.stack, at(in.Out))
			}
		case syntax.InstMatch:
			matches |= 1 << e
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			if r >= 0 && consumes(in, r) {
				c.next = append(c.next, at(in.Out))
			}
		}
	}
	return matches
}

// consumes reports whether a rune instruction takes r, as regexp's machines
// decide it.
func consumes(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRune1:
		return r == in.Rune[0]
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return in.MatchRune(r)
}

// LineGate is the gate of `opener[^\n]{0,n}?rest`: open for n runes after
// the opener's match, none of them a newline. n is at most 253.
func LineGate(opener int, gated uint16, n int) *Gate {
	return &Gate{
		Opener: opener,
		Gated:  gated,
		// state k is k-1 runes since the opener
		Next: func(k uint8, r rune) uint8 {
			if r == '\n' || int(k) > n {
				return 0
			}
			return k + 1
		},
		Admits: func(k uint8) bool { return int(k) <= n+1 },
	}
}
