package usage

import (
	"encoding/binary"
	"slices"
	"strings"
	"weak"

	"github.com/mcpcheck/mcpcheck/mcp"
)

// listedTools are the tools a server advertised that no call has given a
// record of its own: a listing of 200k tools, most of them never called,
// costs their names and declared properties (a few dozen bytes a tool)
// where a record each cost about 170 (issue 21). A tool's first call
// moves it out to a record.
type listedTools struct {
	// arena holds each tool as its name, then its declared properties,
	// sorted, each string preceded by its length as a uvarint and the
	// properties by their count.
	arena string
	order []uint32 // the tools' offsets in arena, by name
	gone  []bool   // by position in order: moved out to a record
	live  int      // tools not gone

	last weak.Pointer[mcp.ToolSet] // the listing merged last: merging it again changes nothing
}

// listedTool is one tool of a listedTools, read from its arena.
type listedTool struct {
	name  string
	props string // the properties as the arena holds them, count first
}

func (l *listedTools) at(pos int) listedTool {
	name, rest := uvarintString(l.arena[l.order[pos]:])
	return listedTool{name: name, props: rest}
}

// declared are the tool's properties; the strings share the arena.
func (t listedTool) declared() []string {
	n, w := binary.Uvarint([]byte(t.props[:min(len(t.props), binary.MaxVarintLen64)]))
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	rest := t.props[w:]
	for i := range out {
		out[i], rest = uvarintString(rest)
	}
	return out
}

// uvarintString reads a string preceded by its length.
func uvarintString(s string) (string, string) {
	n, w := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
	end := w + int(n)
	return s[w:end], s[end:]
}

// find returns the position of the tool called name, if it is listed
// and not gone.
func (l *listedTools) find(name string) (int, bool) {
	pos, ok := slices.BinarySearchFunc(l.order, name, func(off uint32, name string) int {
		n, _ := uvarintString(l.arena[off:])
		return strings.Compare(n, name)
	})
	return pos, ok && !l.gone[pos]
}

// take moves the tool called name out of the list, returning its declared
// properties (copies: a record must not hold the arena, which a later
// listing replaces).
func (l *listedTools) take(name string) (declared []string, ok bool) {
	if l == nil || l.live == 0 {
		return nil, false
	}
	pos, ok := l.find(name)
	if !ok {
		return nil, false
	}
	l.gone[pos] = true
	l.live--
	declared = l.at(pos).declared()
	for i, d := range declared {
		declared[i] = strings.Clone(d)
	}
	return declared, true
}

// each calls fn for the tools not gone, by name.
func (l *listedTools) each(fn func(listedTool)) {
	if l == nil {
		return
	}
	for pos := range l.order {
		if !l.gone[pos] {
			fn(l.at(pos))
		}
	}
}

// listingWriter writes a listing's tools into a new arena.
type listingWriter struct {
	arena   []byte
	offsets []uint32
	names   [][]byte // scratch: one tool's property names
}

func (w *listingWriter) add(name string, schema []byte) {
	w.offsets = append(w.offsets, uint32(len(w.arena)))
	w.arena = appendString(w.arena, name)
	w.names = eachDeclared(w.names[:0], schema)
	w.arena = binary.AppendUvarint(w.arena, uint64(len(w.names)))
	for _, p := range w.names {
		w.arena = appendString(w.arena, p)
	}
}

// addListed copies a tool of an earlier list as it is.
func (w *listingWriter) addListed(t listedTool) {
	w.offsets = append(w.offsets, uint32(len(w.arena)))
	w.arena = appendString(w.arena, t.name)
	w.arena = append(w.arena, t.props...)
}

func appendString[S string | []byte](b []byte, s S) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// list is what was written, by name. Unless it was written in order it
// is sorted; of two tools of one name the one written last stays, as a
// listing's later definition replaces an earlier one.
func (w *listingWriter) list(inOrder bool) *listedTools {
	l := &listedTools{arena: string(w.arena), order: w.offsets}
	if !inOrder {
		name := func(off uint32) string { n, _ := uvarintString(l.arena[off:]); return n }
		slices.SortStableFunc(l.order, func(a, b uint32) int { return strings.Compare(name(a), name(b)) })
		kept := l.order[:0]
		for i, off := range l.order {
			if i+1 < len(l.order) && name(l.order[i+1]) == name(off) {
				continue
			}
			kept = append(kept, off)
		}
		l.order = kept
	}
	l.gone = make([]bool, len(l.order))
	l.live = len(l.order)
	return l
}

// mergeListing takes a session's complete listing as what its server
// advertised: a tool with a record has it updated there, the others
// join the list (replacing what an earlier listing declared for them).
func (sv *server) mergeListing(set *mcp.ToolSet) {
	if sv.listedOnly != nil && sv.listedOnly.last == weak.Make(set) {
		return
	}
	var w listingWriter
	for i := range set.Len() {
		d := set.Tool(i)
		if !d.HasName {
			continue
		}
		if t := sv.tools[d.Name]; t != nil {
			t.advertised = true
			t.declared = declaredProperties(d.InputSchema)
			continue
		}
		w.add(d.Name, d.InputSchema)
	}
	fresh := w.list(false)
	if old := sv.listedOnly; old != nil && old.live > 0 {
		var merged listingWriter
		i := 0
		old.each(func(t listedTool) {
			for i < len(fresh.order) && fresh.at(i).name < t.name {
				merged.addListed(fresh.at(i))
				i++
			}
			if i < len(fresh.order) && fresh.at(i).name == t.name {
				return // listed again: the new listing's properties stand
			}
			merged.addListed(t)
		})
		for ; i < len(fresh.order); i++ {
			merged.addListed(fresh.at(i))
		}
		fresh = merged.list(true)
	}
	fresh.last = weak.Make(set)
	sv.listedOnly = fresh
}

// len is the number of tools not gone.
func (l *listedTools) len() int {
	if l == nil {
		return 0
	}
	return l.live
}
