package session

import (
	"sync/atomic"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/internal/wipe"
)

// With two cores a capture is read by two goroutines: the format's reader
// (reading, decompressing, splitting, decoding envelopes and their
// messages) runs ahead of correlation and the rules, which take its frames
// in batches. The batches are few and bounded, so memory does not grow with
// a fast reader, and correlation takes frames and damage in exactly the
// order the reader gave them: the results are the sequential path's.

const pipelineBatches = 3 // one filled, one correlated, one waiting

// batchSize bounds a batch: items (frames and damage) and bytes of messages
// copied. A message of more than borrow bytes is not copied: the reader
// waits until correlation is done with it before it reads on.
type batchSize struct{ items, arena, borrow int }

var (
	realBatches = batchSize{items: 128, arena: 128 << 10, borrow: 32 << 10}
	// tinyBatches cross from one goroutine to the other every two items,
	// and borrow all but small messages (tests only).
	tinyBatches = batchSize{items: 2, arena: 512, borrow: 200}
)

// livePipelines counts pipelines whose goroutine has not ended (tests).
var livePipelines atomic.Int32

// pipeline carries a Correlator's input from the reader's goroutine to the
// one that correlates it.
type pipeline struct {
	c      *Correlator
	full   chan *batch // to correlation, in order
	free   chan *batch // back to the reader
	done   chan struct{}
	cur    *batch // being filled; nil when none is
	staged []byte // the copy stage made for the next item of cur, until it is taken
	size   batchSize
	ids    idCache
	// prescan is the handler's per-frame work that needs no session state
	// (Prescanner), done here, on the reader's goroutine; nil when none.
	prescan func(*Frame) Marks
	poison  bool // overwrite what correlation has finished with (a test buffer size)
}

// batch is a run of frames and damage, with the message bytes of the frames
// copied into its arena (or borrowed from the reader, which then waits).
type batch struct {
	items []pipeItem
	arena []byte
}

type pipeItem struct {
	frame  Frame
	store  msgStore
	damage Damage
	sv     Survived
	isDmg  bool
}

func newPipeline(c *Correlator) *pipeline {
	p := &pipeline{
		c:      c,
		full:   make(chan *batch, pipelineBatches),
		free:   make(chan *batch, pipelineBatches),
		done:   make(chan struct{}),
		poison: c.limits.Poison || c.limits.Pipeline == PipelineTiny,
		size:   realBatches,
	}
	if c.limits.Pipeline == PipelineTiny {
		p.size = tinyBatches
	}
	if ps, ok := c.h.(Prescanner); ok {
		p.prescan = ps.Prescan
	}
	for range pipelineBatches {
		p.free <- &batch{items: make([]pipeItem, 0, p.size.items), arena: make([]byte, 0, p.size.arena)}
	}
	livePipelines.Add(1)
	go p.correlate()
	return p
}

// correlate is the second goroutine: it correlates each batch in order and
// hands it back.
func (p *pipeline) correlate() {
	defer close(p.done)
	for b := range p.full {
		for i := range b.items {
			it := &b.items[i]
			if it.isDmg {
				p.c.addDamage(it.damage, it.sv)
			} else {
				p.c.addFrame(&it.frame)
			}
		}
		if p.poison {
			for i := range b.items {
				b.items[i].frame = poisoned
				b.items[i].store = poisonedStore
			}
			wipe.Bytes(b.arena[:cap(b.arena)])
		} else {
			clear(b.items) // nothing of a finished frame is held through the batch
		}
		b.items, b.arena = b.items[:0], b.arena[:0]
		p.free <- b
	}
}

// batch returns the batch being filled, with room for an item and n bytes.
func (p *pipeline) batch(n int) *batch {
	if b := p.cur; b != nil && len(b.items) < cap(b.items) && len(b.arena)+n <= cap(b.arena) {
		return b
	}
	p.send()
	p.cur = <-p.free
	return p.cur
}

// send hands the batch being filled to correlation.
func (p *pipeline) send() {
	if p.cur == nil {
		return
	}
	p.full <- p.cur
	p.cur = nil
}

// wait returns once correlation has finished with every batch sent.
func (p *pipeline) wait() {
	p.send()
	var all [pipelineBatches]*batch // with none being filled, each is free or sent
	for i := range all {
		all[i] = <-p.free
	}
	for _, b := range all {
		p.free <- b
	}
}

// stage copies data (a format's envelope) into the batch being filled,
// where the next item's frame can refer to it, and returns the copy with
// that item's message store; nil and nil when data is too large to copy.
// The next add of a frame whose bytes are in the copy takes it as it is.
func (p *pipeline) stage(data []byte) ([]byte, *msgStore) {
	p.unstage()
	if len(data) > p.size.borrow {
		return nil, nil
	}
	b := p.batch(len(data))
	start := len(b.arena)
	b.arena = append(b.arena, data...)
	p.staged = b.arena[start:len(b.arena):len(b.arena)]
	st := &b.items[:len(b.items)+1][len(b.items)].store
	st.ids = &p.ids // until takeStaged: the cache is the reader's goroutine's alone
	return p.staged, st
}

// unstage gives up the staged copy: the item it was made for takes no
// frame of it, and its store no longer uses the reader's id cache.
func (p *pipeline) unstage() {
	if p.staged != nil {
		b := p.cur
		b.items[:len(b.items)+1][len(b.items)].store.ids = nil
	}
	p.staged = nil
}

// takeStaged adds f as the item stage made room for, when f's message
// bytes are in the staged copy (its message decoded into that item's
// store): nothing is copied or decoded again.
func (p *pipeline) takeStaged(f *Frame) bool {
	staged := p.staged
	p.unstage()
	if len(f.Raw) == 0 || len(staged) == 0 || !jsonscan.Within(f.Raw, staged) {
		return false
	}
	b := p.cur
	b.items = b.items[:len(b.items)+1]
	it := &b.items[len(b.items)-1]
	it.frame, it.isDmg = *f, false
	it.frame.store, it.frame.lasting = &it.store, nil // the batch's arena is reused
	p.mark(&it.frame)
	return true
}

// mark runs the handler's Prescan on a queued frame whose message is
// decoded (or that has none to decode), so that correlation finds its
// answer in the frame; a frame whose message correlation must decode
// (a batch array) is left unmarked.
func (p *pipeline) mark(g *Frame) {
	g.marks, g.marked = 0, false
	if p.prescan == nil || g.Raw != nil && g.Msg.Kind == NoMessage && g.IsProtocol() {
		return
	}
	g.marks, g.marked = p.prescan(g), true
}

// add queues f. Its message bytes are copied, and its message decoded here,
// on the reader's side; correlation decodes what only correlation can (a
// frame whose direction it infers, the elements of a batch array).
func (p *pipeline) add(f *Frame) {
	if p.takeStaged(f) {
		return
	}
	n := len(f.Raw)
	borrow := n > p.size.borrow
	if borrow {
		n = 0
	}
	b := p.batch(n)
	b.items = append(b.items, pipeItem{frame: *f})
	it := &b.items[len(b.items)-1]
	g := &it.frame
	g.store = &it.store
	if f.Raw != nil && !borrow {
		start := len(b.arena)
		b.arena = append(b.arena, f.Raw...)
		g.Raw = b.arena[start:len(b.arena):len(b.arena)]
		g.lasting = nil // the batch's arena is reused
	}
	switch {
	case borrow && g.Msg.Kind != NoMessage:
		// decoded by the format, in its bytes and store: they stay as they
		// are until correlation is done with them (wait, below)
		g.store = f.store
	case g.Raw != nil && g.Msg.Kind != NoMessage:
		g.Msg = Message{} // decoded from the reader's bytes: decoded again from the copy
	}
	if g.IsProtocol() && g.Raw != nil && g.Msg.Kind == NoMessage && jsonscan.FirstByte(g.Raw) != '[' {
		it.store.ids = &p.ids
		g.Msg = decodeMessageIn(g.Raw, &it.store)
		it.store.ids = nil // the cache is the reader's goroutine's alone
	}
	p.mark(g)
	if borrow {
		p.wait() // the reader's buffer holds the message until correlation is done
	}
}

// damage queues a damaged piece.
func (p *pipeline) damage(d Damage, sv Survived) {
	p.unstage()
	b := p.batch(0)
	b.items = append(b.items, pipeItem{damage: d, sv: sv, isDmg: true})
}

// stop waits for correlation to finish everything queued and ends its
// goroutine.
func (p *pipeline) stop() {
	p.send()
	close(p.full)
	<-p.done
	livePipelines.Add(-1)
}
