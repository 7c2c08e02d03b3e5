// Package jsonscan is a small validating JSON scanner shared by the capture
// readers and the MCP views: values are walked in place and handed out as
// sub-slices, so large members are scanned once and decoded only on demand.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math/bits"
	"strconv"
	"unsafe"
)

// A small validating JSON scanner. Envelopes are decoded by walking their
// members and keeping each value as a sub-slice, so the bytes of a large
// tool result are scanned once per nesting level instead of being validated
// and decoded again by every json.Unmarshal on the way down (a profile put
// two thirds of an older checker's time there).

// MaxDepth bounds nesting, as encoding/json does, so hostile input cannot
// exhaust the stack.
const MaxDepth = 10000

type scanError struct {
	off int
	msg string
}

func (e *scanError) Error() string { return fmt.Sprintf("%s at byte %d", e.msg, e.off+1) }

// stringSpecial marks the bytes that end a plain run inside a string.
var stringSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

const (
	ones  = 0x0101010101010101 // 0x01 in every byte
	highs = 0x8080808080808080 // the top bit of every byte
)

// plainEnd returns the offset of the first byte at or after i that ends a
// plain run inside a string ('"', '\\' or a control character), or len(b).
// It looks at eight bytes a word: v-ones sets the top bit of each byte of v
// that is zero (x^'"' and x^'\\' are zero where x is that byte), or is
// 0x81 or more; x-0x20·ones that of each byte below 0x20, or 0xA0 or more.
// &^x drops every byte >= 0x80 of x (x, x^'"' and x^'\\' share their top
// bits), so 0xA2 ('"'|0x80) and 0xDC stay plain. A subtraction borrows into
// the next byte up only from a byte that matched, so flags above the
// lowest may be false but the lowest one is exact: TrailingZeros64 finds it.
//
// The first word is looked at alone, since most runs (member names) end in
// it; then two words a step, so the constants are made once for both and
// one branch serves sixteen bytes. The words are read through a pointer
// the loop's condition holds inside b, without bounds checks.
func plainEnd(b []byte, i int) int {
	if i < 0 || i > len(b) {
		return plainEndBytes(b, i) // no word is read outside b
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if i+8 <= len(b) {
		if m := specials(wordAt(p, i)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for ; i+16 <= len(b); i += 16 {
		lo, hi := specials(wordAt(p, i)), specials(wordAt(p, i+8))
		if lo|hi == 0 {
			continue
		}
		if lo != 0 {
			return i + bits.TrailingZeros64(lo)/8
		}
		return i + 8 + bits.TrailingZeros64(hi)/8
	}
	if i+8 <= len(b) {
		if m := specials(wordAt(p, i)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	return plainEndBytes(b, i)
}

// Within reports whether sub lies inside b: a value handed out as a
// sub-slice of b, not a copy.
func Within(sub, b []byte) bool {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(sub)))
	return at >= base && at+uintptr(len(sub)) <= base+uintptr(len(b))
}

// plainEndBytes is plainEnd a byte at a time.
func plainEndBytes(b []byte, i int) int {
	for i < len(b) && !stringSpecial[b[i]] {
		i++
	}
	return i
}

// specials flags the bytes of the word x that end a plain run, the lowest
// exactly (see plainEnd).
func specials(x uint64) uint64 {
	q := x ^ ('"' * ones)
	s := x ^ ('\\' * ones)
	return ((q - ones) | (s - ones) | (x - 0x20*ones)) &^ x & highs
}

// wordAt is the eight bytes at p+i as a little-endian word.
func wordAt(p unsafe.Pointer, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, i))[:])
}

// SkipSpace returns the offset of the first byte at or after i that is not
// JSON white space. Every white space byte is at most ' ', so one compare
// turns away the usual byte, a token's first.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipValue validates the value at b[i] and returns the offset after it.
func SkipValue(b []byte, i, depth int) (int, error) { return skipValue(b, i, depth, nil) }

// skipValue is SkipValue that, with d, looks for member names used twice.
func skipValue(b []byte, i, depth int, d *dups) (int, error) {
	if i >= len(b) {
		return i, &scanError{i, "unexpected end of JSON"}
	}
	switch c := b[i]; {
	case c == '"':
		return SkipString(b, i)
	case c == '{':
		return skipObject(b, i, depth+1, d)
	case c == '[':
		return skipArray(b, i, depth+1, d)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	default:
		return i, &scanError{i, fmt.Sprintf("invalid character %q looking for a value", c)}
	}
}

func SkipString(b []byte, i int) (int, error) {
	start := i
	i++
	for {
		i = plainEnd(b, i)
		if i >= len(b) {
			return i, &scanError{start, "unterminated string"}
		}
		switch b[i] {
		case '"':
			return i + 1, nil
		case '\\':
			if i+1 >= len(b) {
				return i, &scanError{i, "unterminated string"}
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex4(b[i+2:i+6]) {
					return i, &scanError{i, `invalid \u escape in string`}
				}
				i += 6
			default:
				return i, &scanError{i, fmt.Sprintf("invalid escape %q in string", b[i+1])}
			}
		default:
			return i, &scanError{i, "control character in string"}
		}
	}
}

func isHex4(h []byte) bool {
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, &scanError{i, "invalid literal"}
	}
	return i + len(lit), nil
}

func skipNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return i, &scanError{start, "invalid number"}
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return i, &scanError{start, "invalid number"}
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return i, &scanError{start, "invalid number"}
		}
	}
	return i, nil
}

func skipArray(b []byte, i, depth int, d *dups) (int, error) {
	if depth > MaxDepth {
		return i, &scanError{i, tooDeep}
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		var err error
		if i, err = skipValue(b, i, depth, d); err != nil {
			return i, err
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, &scanError{i, "unexpected end of JSON in array"}
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return i, &scanError{i, fmt.Sprintf("invalid character %q after array element", b[i])}
		}
	}
}

func skipObject(b []byte, i, depth int, d *dups) (int, error) {
	if depth > MaxDepth {
		return i, &scanError{i, tooDeep}
	}
	return walkObject(b, i, depth, d, nil, nil)
}

// walkObject validates the object at b[i]; fn, when set, sees each member's
// name (unquoted) and value. With d it looks for a member name used twice,
// in this object and, when d.deep, in those nested in it. walkVal, when
// set, reads each member's value instead of skipping it (given the name and
// the value's offset, it returns the offset after the value).
func walkObject(b []byte, i, depth int, d *dups, fn func(name, val []byte), walkVal func(name []byte, i int) (int, error)) (int, error) {
	var names objectNames
	inner := d // for the members' values
	if d != nil {
		names.base = d.n
		if !d.deep {
			inner = nil
		}
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, &scanError{i, "expected a member name"}
		}
		// A member name is short and plain: scanned here; one with an
		// escape (or broken) takes the general path.
		keyEnd := plainEnd(b, i+1)
		var name []byte
		var err error
		if keyEnd < len(b) && b[keyEnd] == '"' {
			keyEnd++
			name = b[i+1 : keyEnd-1]
		} else {
			if keyEnd, err = SkipString(b, i); err != nil {
				return keyEnd, err
			}
			name = unquote(b[i:keyEnd])
		}
		if d != nil && d.dupAt < 0 {
			// the common case inline: a name no earlier one can equal
			bit := nameBit(name)
			if names.seen&bit == 0 && names.many == nil && names.n < maxCompared && d.n < len(d.stack) {
				names.seen |= bit
				d.stack[d.n] = name
				d.n++
				names.n++
			} else if d.seenBefore(&names, name, bit) {
				d.dupAt, d.dupName = i, string(name)
			}
		}
		i = SkipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return i, &scanError{i, "expected ':' after a member name"}
		}
		i = SkipSpace(b, i+1)
		valStart := i
		if walkVal != nil {
			i, err = walkVal(name, i)
		} else {
			i, err = skipValue(b, i, depth, inner)
		}
		if err != nil {
			return i, err
		}
		if fn != nil {
			fn(name, b[valStart:i])
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, &scanError{i, "unexpected end of JSON in object"}
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case '}':
			if d != nil {
				d.n = names.base // the object's names are done with
			}
			return i + 1, nil
		default:
			return i, &scanError{i, fmt.Sprintf("invalid character %q after object member", b[i])}
		}
	}
}

// EachMember validates that b is exactly one JSON object (surrounding space
// allowed) and calls fn with each member's unquoted name and raw value. Both
// slices alias b (or a scratch buffer): callers switch on string(name),
// which does not allocate, and copy what they keep.
func EachMember(b []byte, fn func(name, val []byte)) error {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return &scanError{i, "not a JSON object"}
	}
	end, err := walkObject(b, i, 1, nil, fn, nil)
	if err != nil {
		return err
	}
	if rest := SkipSpace(b, end); rest != len(b) {
		return &scanError{rest, "data after the JSON object"}
	}
	return nil
}

// Duplicate is a member name used twice in one JSON object.
type Duplicate struct {
	Name string // unescaped
	In   string // the member whose value holds the object ("" for the outermost)
}

// EachMemberStrict is EachMember that also finds the first member name used
// twice in one object: among b's own members, and with deep in every
// object nested in b as well. Names are compared unescaped ("id" and
// "\u0069d" are one name).
func EachMemberStrict(b []byte, deep bool, fn func(name, val []byte)) (*Duplicate, error) {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, &scanError{i, "not a JSON object"}
	}
	d := dups{deep: deep, dupAt: -1}
	end, err := walkObject(b, i, 1, &d, fn, nil)
	return wholeObject(b, i, end, err, &d)
}

// wholeObject ends the walk of the object b[i:end] that is all of b: the
// walk's error, data after the object, or the duplicate the walk found.
func wholeObject(b []byte, i, end int, err error, d *dups) (*Duplicate, error) {
	if err != nil {
		return nil, err
	}
	if rest := SkipSpace(b, end); rest != len(b) {
		return nil, &scanError{rest, "data after the JSON object"}
	}
	if d.dupAt < 0 {
		return nil, nil
	}
	return &Duplicate{Name: d.dupName, In: holder(b, i, d.dupAt, "")}, nil
}

// dups finds a member name used twice. The names of the open objects'
// members share one stack; a bit per name hash tells most new names at a
// glance, so the common small objects are checked without comparing or
// allocating. An object with many members, or past the stack, uses a map.
type dups struct {
	deep    bool
	dupAt   int // offset of the second use of the first name used twice; -1: none
	dupName string
	stack   [64][]byte
	n       int
}

// objectNames is where one object's member names are kept.
type objectNames struct {
	base, n int // on the stack: stack[base:base+n]
	seen    uint64
	// many holds the 64-bit hashes of an object's names once it has too
	// many to compare one by one: nothing is copied, and with a random seed
	// two different names share a hash with a chance of about n²/2⁶⁵.
	many map[uint64]struct{}
}

// nameSeed keys the hashes of member names, so input cannot aim collisions.
var nameSeed = maphash.MakeSeed()

// maxCompared is how many names an object compares one by one before it
// moves to a map.
const maxCompared = 12

func nameBit(name []byte) uint64 {
	if len(name) == 0 {
		return 1
	}
	return 1 << ((uint(len(name))*7 + uint(name[len(name)-1])) & 63)
}

// seenBefore records name, unless the object already has it.
func (d *dups) seenBefore(o *objectNames, name []byte, bit uint64) bool {
	if o.many == nil {
		if o.seen&bit != 0 {
			for _, seen := range d.stack[o.base : o.base+o.n] {
				if string(seen) == string(name) {
					return true
				}
			}
		}
		o.seen |= bit
		if o.n < maxCompared && d.n < len(d.stack) {
			d.stack[d.n] = name
			d.n++
			o.n++
			return false
		}
		o.many = make(map[uint64]struct{}, 2*maxCompared)
		for _, seen := range d.stack[o.base : o.base+o.n] {
			o.many[maphash.Bytes(nameSeed, seen)] = struct{}{}
		}
		d.n, o.n = o.base, 0 // its stack places go to the objects nested in it
	}
	h := maphash.Bytes(nameSeed, name)
	if _, ok := o.many[h]; ok {
		return true
	}
	o.many[h] = struct{}{}
	return false
}

// holder names the member whose value holds the object with a member
// starting at off, for the object at b[i] ("" when it is that object).
// Found again only once a duplicate was found, so the walk keeps no path.
func holder(b []byte, i, off int, in string) string {
	i = SkipSpace(b, i+1)
	for i < off && i < len(b) && b[i] == '"' {
		keyEnd, err := SkipString(b, i)
		if err != nil {
			return in
		}
		name := string(unquoteKey(b[i:keyEnd]))
		i = SkipSpace(b, SkipSpace(b, keyEnd)+1)
		end, err := SkipValue(b, i, 1)
		if err != nil {
			return in
		}
		if off > i && off < end {
			return within(b, i, off, name)
		}
		i = SkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
	}
	return in
}

// within is holder for any value at b[i] that contains off.
func within(b []byte, i, off int, in string) string {
	switch b[i] {
	case '{':
		return holder(b, i, off, in)
	case '[':
		i = SkipSpace(b, i+1)
		for i < off && i < len(b) {
			end, err := SkipValue(b, i, 1)
			if err != nil {
				return in
			}
			if off > i && off < end {
				return within(b, i, off, in)
			}
			i = SkipSpace(b, end)
			if i < len(b) && b[i] == ',' {
				i = SkipSpace(b, i+1)
			}
		}
	}
	return in
}

// unquoteKey returns a member name; only names with escapes pay for a
// decode.
func unquoteKey(key []byte) []byte {
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		return unquote(key)
	}
	return inner
}

// unquote decodes a validated JSON string token.
func unquote(tok []byte) []byte {
	var s string
	_ = json.Unmarshal(tok, &s)
	return []byte(s)
}

// String returns the string a validated value holds, or "" for any
// other type (a mistyped field reads as absent, as with encoding/json).
func String(val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' {
		return "", false
	}
	inner := val[1 : len(val)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		var s string
		if json.Unmarshal(val, &s) != nil {
			return "", false
		}
		return s, true
	}
	return string(inner), true
}

func Bool(val []byte) bool { return string(val) == "true" }

func Int(val []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(val), 10, 64)
	return n, err == nil
}

// Elements returns the elements of a JSON array as sub-slices of b,
// or nil when b is not a valid array.
func Elements(b []byte) [][]byte {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil
	}
	var out [][]byte
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return [][]byte{}
	}
	for {
		start := i
		end, err := SkipValue(b, i, 1)
		if err != nil {
			return nil
		}
		out = append(out, b[start:end])
		i = SkipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = SkipSpace(b, i+1)
		case i < len(b) && b[i] == ']':
			return out
		default:
			return nil
		}
	}
}

// FirstText returns the beginning (about max bytes) of the first text item
// of a content array, without decoding the rest: a tool's error result can
// carry megabytes, and a message quotes a line of it.
func FirstText(content []byte, max int) (string, bool) {
	for _, item := range Elements(content) {
		var typ, text []byte
		_ = EachMember(item, func(name, val []byte) {
			switch string(name) {
			case "type":
				typ = val
			case "text":
				text = val
			}
		})
		if t, _ := String(typ); t == "text" && len(text) >= 2 && text[0] == '"' {
			return stringPrefix(text, max), true
		}
	}
	return "", false
}

// stringPrefix decodes about the first max bytes of a validated JSON string.
func stringPrefix(tok []byte, max int) string {
	inner := tok[1 : len(tok)-1]
	if len(inner) <= max {
		s, _ := String(tok)
		return s
	}
	// Cut before max, never inside an escape, and decode that much.
	cut := 0
	for cut < max {
		if inner[cut] == '\\' {
			n := 2
			if cut+1 < len(inner) && inner[cut+1] == 'u' {
				n = 6
			}
			if cut+n > max {
				break
			}
			cut += n
			continue
		}
		cut++
	}
	s, _ := String(append(append([]byte{'"'}, inner[:cut]...), '"'))
	return s
}

// Top reads what survives of a JSON object that may be cut short: fn
// sees each top-level member whose value is complete, a scalar's bytes or
// nil for an object or array. Nested members are never mistaken for top
// ones (a cut tool result may hold ids of its own).
func Top(b []byte, fn func(name string, val []byte)) {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i++
	for {
		i = SkipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return
		}
		end, err := SkipString(b, i)
		if err != nil {
			return
		}
		name := string(unquoteKey(b[i:end]))
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = SkipSpace(b, i+1)
		vend, err := SkipValue(b, i, 1)
		if err != nil {
			return // cut inside this value
		}
		if c := b[i]; c == '{' || c == '[' {
			fn(name, nil)
		} else {
			fn(name, b[i:vend])
		}
		i = SkipSpace(b, vend)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i++
	}
}

// FirstByte is the first byte of b after white space, 0 when there is none.
func FirstByte(b []byte) byte {
	// SkipSpace, not bytes.TrimLeft: a cutset is made into a set at each call
	if i := SkipSpace(b, 0); i < len(b) {
		return b[i]
	}
	return 0
}

// Kind names the type of a JSON value for messages.
func Kind(raw []byte) string {
	switch FirstByte(raw) {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case 0:
		return "nothing"
	}
	return "number"
}

// PathStep is one step down from a JSON value to a nested one: a member
// name (unquoted, escapes decoded) or an array index.
type PathStep struct {
	Key   []byte // nil for an array element
	Index int
}

// Strings walks the JSON value b once and calls fn with every string in it
// (quoted and still escaped, as written) and the path that leads there.
// Both alias b and a scratch slice: they are valid only during the call.
// Member names are not reported, only values.
func Strings(b []byte, fn func(path []PathStep, str []byte)) error {
	w := &stringWalker{b: b, fn: fn}
	w.memberFn = w.member // one method value for the whole walk
	i, err := w.value(SkipSpace(b, 0), 0)
	if err != nil {
		return err
	}
	if rest := SkipSpace(b, i); rest != len(b) {
		return &scanError{rest, "data after the JSON value"}
	}
	return nil
}

type stringWalker struct {
	b        []byte
	path     []PathStep
	fn       func([]PathStep, []byte)
	depth    int // of the object whose members memberFn walks
	memberFn func(key []byte, i int) (int, error)
}

func (w *stringWalker) value(i, depth int) (int, error) {
	b := w.b
	if i >= len(b) {
		return i, &scanError{i, "unexpected end of JSON"}
	}
	switch b[i] {
	case '"':
		end, err := SkipString(b, i)
		if err == nil {
			w.fn(w.path, b[i:end])
		}
		return end, err
	case '{':
		if depth+1 > MaxDepth {
			return i, &scanError{i, tooDeep}
		}
		outer := w.depth
		w.depth = depth + 1
		end, err := walkObject(b, i, depth+1, nil, nil, w.memberFn)
		w.depth = outer
		return end, err
	case '[':
		if depth+1 > MaxDepth {
			return i, &scanError{i, tooDeep}
		}
		return w.array(i, depth+1)
	}
	return SkipValue(b, i, depth)
}

// member walks one member's value with the member's name on the path.
func (w *stringWalker) member(name []byte, i int) (int, error) {
	w.path = append(w.path, PathStep{Key: name})
	depth := w.depth
	end, err := w.value(i, depth)
	w.depth = depth
	w.path = w.path[:len(w.path)-1]
	return end, err
}

func (w *stringWalker) array(i, depth int) (int, error) {
	b := w.b
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for n := 0; ; n++ {
		w.path = append(w.path, PathStep{Index: n})
		var err error
		i, err = w.value(i, depth)
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return i, err
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, &scanError{i, "unexpected end of JSON in array"}
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return i, &scanError{i, fmt.Sprintf("invalid character %q after array element", b[i])}
		}
	}
}
