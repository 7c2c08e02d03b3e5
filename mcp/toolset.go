package mcp

import (
	"bytes"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// A listing of 200,000 tools is one envelope of about 40 MB. Decoded into
// Tool values, with each member copied, it took five times that. A
// definition is kept instead as where it lies in the bytes it was listed
// in (20 bytes), and decoded when a rule asks for it.

// span locates bytes in one of a list's buffers; n is 0 when absent.
type span struct{ at, n uint32 }

func (s span) of(b []byte) []byte {
	if s.n == 0 {
		return nil
	}
	return b[s.at : s.at+s.n : s.at+s.n]
}

// toolRef locates one definition: its buffer, its bytes there and its
// name member's value, a JSON string (n 0 when the tool has no string
// name).
type toolRef struct {
	buf       uint32
	def, name span
}

// ToolList is the tool definitions of one page of a tools/list answer, in
// listing order, read in the bytes of the answer: like the view it comes
// from, it is valid until the frame is done.
type ToolList struct {
	bufs [][]byte
	refs []toolRef
	// owned reports that bufs belong to the list and never change, so the
	// strings of its tools may share them.
	owned bool
}

// toolList reads a tools array (validated JSON); ok is false when it is
// not an array.
func toolList(array []byte) (l ToolList, ok bool) {
	if jsonscan.FirstByte(array) != '[' {
		return ToolList{}, false
	}
	l.bufs = [][]byte{array}
	for i := jsonscan.SkipSpace(array, 1); i < len(array) && array[i] != ']'; {
		end, err := jsonscan.SkipValue(array, i, 1)
		if err != nil {
			return ToolList{}, false
		}
		l.refs = append(l.refs, toolRef{def: span{uint32(i), uint32(end - i)}, name: nameSpan(array, i, end)})
		i = jsonscan.SkipSpace(array, end)
		if i < len(array) && array[i] == ',' {
			i = jsonscan.SkipSpace(array, i+1)
		}
	}
	return l, true
}

// nameSpan finds the string name of the definition at b[start:end]; of a
// name member written twice the last counts, as decodeTool reads it.
func nameSpan(b []byte, start, end int) span {
	def := b[start:end]
	var s span
	_ = jsonscan.EachMember(object(def), func(name, v []byte) {
		if string(name) != "name" {
			return
		}
		s = span{}
		if isString(v) {
			at := uintptr(unsafe.Pointer(unsafe.SliceData(v))) - uintptr(unsafe.Pointer(unsafe.SliceData(b)))
			s = span{uint32(at), uint32(len(v))}
		}
	})
	return s
}

// isString reports whether v is a JSON string whose text can be read.
func isString(v []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return true
	}
	_, ok := jsonscan.String(v)
	return ok
}

// keepable reports whether b lies in lasting and is at least three
// quarters of it: kept, b holds its whole buffer alive.
func keepable(b, lasting []byte) bool {
	return len(b) > 0 && 4*len(b) >= 3*len(lasting) && jsonscan.Within(b, lasting)
}

// Len is the number of tools.
func (l *ToolList) Len() int { return len(l.refs) }

// Tool decodes the i-th definition. Of a list that does not own its bytes
// (a page) the strings are copies; of a ToolSet they share its bytes.
func (l *ToolList) Tool(i int) Tool {
	return decodeTool(l.Raw(i), l.owned)
}

// Raw is the i-th definition as it was listed.
func (l *ToolList) Raw(i int) []byte {
	r := l.refs[i]
	return r.def.of(l.bufs[r.buf])
}

// Name is the i-th tool's name; ok is false when it has no string name.
func (l *ToolList) Name(i int) (name string, ok bool) {
	r := l.refs[i]
	v := r.name.of(l.bufs[r.buf])
	if v == nil {
		return "", false
	}
	return l.text(v), true
}

// text reads a JSON string of the list's bytes.
func (l *ToolList) text(v []byte) string {
	if l.owned {
		return sharedString(v)
	}
	return str(v)
}

// sharedString reads a JSON string without copying it when it has no
// escapes: the bytes must never change while the string is in use.
func sharedString(v []byte) string {
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		inner := v[1 : len(v)-1]
		return unsafe.String(unsafe.SliceData(inner), len(inner))
	}
	return str(v)
}

// ToolSet is a server's tools as one complete listing showed them, in
// listing order. It holds one copy of each page's tools array, so it can
// be kept, compared with a baseline, or written; the strings of its tools
// share that copy, so what keeps one past the set (a name in a map that
// outlives the session) clones it. A ToolSet is not changed once complete,
// and may then be read by several sessions at once.
type ToolSet struct {
	list ToolList

	indexOnce sync.Once
	seed      maphash.Seed
	index     []int32 // open addressing by name: 1 + the tool's position, 0 for none

	// decoded keeps the tools Lookup decoded last, by position: a capture
	// calls the same few tools again and again, and several rules look
	// each call's tool up, so decoding its definition every time walked
	// it a dozen times a call. Direct-mapped and of a fixed size, so a
	// listing of many tools still costs its bytes only; made at the first
	// Lookup, so a set no call looks into (20k servers that each list
	// tools) costs a pointer.
	decodedOnce sync.Once
	decoded     *[decodedTools]atomic.Pointer[decodedTool]
	misses      atomic.Int64 // tools decode had to decode, for tests
}

const decodedTools = 64

type decodedTool struct {
	at   int
	tool Tool
}

// NewToolSet reads a tools array (a listing's "tools" member) into a set of
// its own; ok is false when it is not an array.
func NewToolSet(tools []byte) (*ToolSet, bool) {
	page, ok := toolList(tools)
	if !ok {
		return nil, false
	}
	set := &ToolSet{}
	set.AddPage(&page, nil)
	return set, true
}

// AddPage appends the tools of a page, copying its bytes once. When the
// page lies in lasting, a buffer nothing writes again (session.Frame's
// Lasting), and is most of it, the set keeps the page's bytes instead:
// a listing of 200k tools is then held once, not once in the envelope
// its rules still read and once more in the set.
func (s *ToolSet) AddPage(page *ToolList, lasting []byte) {
	s.list.owned = true
	base := uint32(len(s.list.bufs))
	for _, b := range page.bufs {
		if !keepable(b, lasting) {
			b = bytes.Clone(b)
		}
		s.list.bufs = append(s.list.bufs, b[:len(b):len(b)])
	}
	if len(s.list.refs) == 0 && base == 0 {
		s.list.refs = page.refs[:len(page.refs):len(page.refs)] // the page's refs never change: share them
		return
	}
	for _, r := range page.refs {
		r.buf += base
		s.list.refs = append(s.list.refs, r)
	}
}

// Len is the number of tools.
func (s *ToolSet) Len() int {
	if s == nil {
		return 0
	}
	return s.list.Len()
}

// Tool decodes the i-th tool.
func (s *ToolSet) Tool(i int) Tool { return s.list.Tool(i) }

// Raw is the i-th definition as it was listed.
func (s *ToolSet) Raw(i int) []byte { return s.list.Raw(i) }

// Name is the i-th tool's name; ok is false when it has no string name.
func (s *ToolSet) Name(i int) (string, bool) { return s.list.Name(i) }

// Lookup returns the tool called name; of two tools of one name, the
// first.
func (s *ToolSet) Lookup(name string) (Tool, bool) {
	if s == nil || len(s.list.refs) == 0 {
		return Tool{}, false
	}
	s.indexOnce.Do(s.buildIndex)
	mask := len(s.index) - 1
	for slot := s.slot(name); ; slot = (slot + 1) & mask {
		at := s.index[slot]
		if at == 0 {
			return Tool{}, false
		}
		if n, _ := s.Name(int(at - 1)); n == name {
			return s.decode(int(at - 1)), true
		}
	}
}

// decode is Tool(i), from the tools decoded last when it is one of them.
func (s *ToolSet) decode(i int) Tool {
	s.decodedOnce.Do(func() { s.decoded = new([decodedTools]atomic.Pointer[decodedTool]) })
	slot := &s.decoded[i%decodedTools]
	if d := slot.Load(); d != nil && d.at == i {
		return d.tool
	}
	t := s.Tool(i)
	s.misses.Add(1)
	slot.Store(&decodedTool{at: i, tool: t})
	return t
}

func (s *ToolSet) slot(name string) int {
	return int(maphash.String(s.seed, name) & uint64(len(s.index)-1))
}

// buildIndex hashes the names, in a table at most half full.
func (s *ToolSet) buildIndex() {
	size := 8
	for size < 2*len(s.list.refs) {
		size *= 2
	}
	s.seed, s.index = maphash.MakeSeed(), make([]int32, size)
	mask := size - 1
	for i := range s.list.refs {
		name, ok := s.Name(i)
		if !ok {
			continue
		}
		slot := s.slot(name)
		for s.index[slot] != 0 {
			if other, _ := s.Name(int(s.index[slot] - 1)); other == name {
				break // the first of a name is the one found
			}
			slot = (slot + 1) & mask
		}
		if s.index[slot] == 0 {
			s.index[slot] = int32(i + 1)
		}
	}
}
