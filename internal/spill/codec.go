// Package spill is the one codec for what mcpcheck keeps off the heap: the
// findings of open sessions, the results of a run of many sessions and the
// frames of deferred sessions. A record is a sequence of values appended
// by an Encoder and read back in the same order by a Decoder; nothing is
// reflected on, so what a record holds is what its encoder wrote, and each
// user's test round-trips a value with every field set.
package spill

import (
	"encoding/binary"
	"errors"
	"math"
	"time"
)

// Encoder appends values to a buffer.
type Encoder struct{ b []byte }

// NewEncoder appends to b (which may be nil).
func NewEncoder(b []byte) Encoder { return Encoder{b: b} }

// Bytes is what was appended, after the buffer given to NewEncoder.
func (e *Encoder) Bytes() []byte { return e.b }

// Reset makes e append to b.
func (e *Encoder) Reset(b []byte) { e.b = b }

// Byte appends one byte.
func (e *Encoder) Byte(v byte) { e.b = append(e.b, v) }

// Uvarint appends an unsigned varint.
func (e *Encoder) Uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }

// Varint appends a signed (zig-zag) varint.
func (e *Encoder) Varint(v int64) { e.b = binary.AppendVarint(e.b, v) }

// Int appends an int as a varint.
func (e *Encoder) Int(v int) { e.b = binary.AppendVarint(e.b, int64(v)) }

// Bool appends a bool as a byte.
func (e *Encoder) Bool(v bool) {
	if v {
		e.b = append(e.b, 1)
		return
	}
	e.b = append(e.b, 0)
}

// Float64 appends a float's bits.
func (e *Encoder) Float64(v float64) {
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v))
}

// String appends a length and the string.
func (e *Encoder) String(s string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

// Blob appends a byte slice; nil and empty read back as they were.
func (e *Encoder) Blob(v []byte) {
	if v == nil {
		e.b = append(e.b, 0)
		return
	}
	e.b = binary.AppendUvarint(e.b, uint64(len(v))+1)
	e.b = append(e.b, v...)
}

// Time appends a time in its binary form (location offset kept, monotonic
// reading dropped); the zero time takes a byte.
func (e *Encoder) Time(t time.Time) {
	if t.IsZero() {
		e.b = append(e.b, 0)
		return
	}
	at := len(e.b)
	e.b = append(e.b, 0)
	e.b, _ = t.AppendBinary(e.b) // fails only for offsets no zone has
	e.b[at] = byte(len(e.b) - at - 1)
}

// Common appends s as the index of an equal string in common (a byte for
// a few), else as a string: for a string most records repeat, such as
// their session's id.
func (e *Encoder) Common(s string, common ...string) {
	for i, c := range common {
		if s == c {
			e.b = binary.AppendUvarint(e.b, uint64(i))
			return
		}
	}
	e.b = binary.AppendUvarint(e.b, uint64(len(s)+len(common)))
	e.b = append(e.b, s...)
}

// Present appends whether an optional value (a pointer, a slice that may
// be nil) follows, and returns ok.
func (e *Encoder) Present(ok bool) bool {
	e.Bool(ok)
	return ok
}

// Len appends the length of a slice that follows element by element; a nil
// slice and an empty one both read back as nil.
func (e *Encoder) Len(n int) { e.b = binary.AppendUvarint(e.b, uint64(n)) }

// ErrDamaged says a record does not read back: a bug or a changed file,
// never input.
var ErrDamaged = errors.New("a record does not read back")

// Decoder reads the values of records back. Over a string, the strings it
// returns share it and blobs are copies; over a byte slice, blobs alias it
// and strings are copies. After the first failure every read returns the
// zero value and Err says so.
type Decoder[T string | []byte] struct {
	data T
	err  error
}

// NewDecoder reads data.
func NewDecoder[T string | []byte](data T) Decoder[T] { return Decoder[T]{data: data} }

// Err is ErrDamaged once a read failed.
func (d *Decoder[T]) Err() error { return d.err }

// More reports whether data is left.
func (d *Decoder[T]) More() bool { return d.err == nil && len(d.data) > 0 }

// Rest is what was not read.
func (d *Decoder[T]) Rest() T { return d.data }

// Fail marks the record damaged (a value out of its range).
func (d *Decoder[T]) Fail() {
	if d.err == nil {
		d.err = ErrDamaged
	}
	d.data = d.data[:0]
}

func (d *Decoder[T]) take(n uint64) T {
	if n > uint64(len(d.data)) {
		d.Fail()
		return d.data[:0]
	}
	v := d.data[:n]
	d.data = d.data[n:]
	return v
}

// Byte reads one byte.
func (d *Decoder[T]) Byte() byte {
	if len(d.data) == 0 {
		d.Fail()
		return 0
	}
	v := d.data[0]
	d.data = d.data[1:]
	return v
}

// Uvarint reads an unsigned varint.
func (d *Decoder[T]) Uvarint() uint64 {
	var x uint64
	var s uint
	for i := 0; i < len(d.data) && i < binary.MaxVarintLen64; i++ {
		c := d.data[i]
		if c < 0x80 {
			d.data = d.data[i+1:]
			return x | uint64(c)<<s
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
	d.Fail()
	return 0
}

// Varint reads a signed varint.
func (d *Decoder[T]) Varint() int64 {
	u := d.Uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// Int reads an int.
func (d *Decoder[T]) Int() int { return int(d.Varint()) }

// Bool reads a bool.
func (d *Decoder[T]) Bool() bool { return d.Byte() == 1 }

// Float64 reads a float.
func (d *Decoder[T]) Float64() float64 {
	b := d.take(8)
	if len(b) < 8 {
		return 0
	}
	var u uint64
	for i := 7; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	return math.Float64frombits(u)
}

// String reads a string.
func (d *Decoder[T]) String() string { return string(d.take(d.Uvarint())) }

// Common reads a string Encoder.Common wrote with the same common strings.
func (d *Decoder[T]) Common(common ...string) string {
	v := d.Uvarint()
	if v < uint64(len(common)) {
		return common[v]
	}
	return string(d.take(v - uint64(len(common))))
}

// Blob reads a byte slice.
func (d *Decoder[T]) Blob() []byte {
	n := d.Uvarint()
	if n == 0 {
		return nil
	}
	b := []byte(d.take(n - 1)) // over a byte slice: no copy, so cap it
	return b[:len(b):len(b)]
}

// Time reads a time.
func (d *Decoder[T]) Time() time.Time {
	var t time.Time
	n := d.Byte()
	if n == 0 {
		return t
	}
	if t.UnmarshalBinary([]byte(d.take(uint64(n)))) != nil {
		d.Fail()
	}
	return t
}

// Present reads whether an optional value follows.
func (d *Decoder[T]) Present() bool { return d.Bool() }

// Len reads a slice length; it fails a length longer than the data left,
// since every element takes a byte at least.
func (d *Decoder[T]) Len() int {
	n := d.Uvarint()
	if n > uint64(len(d.data)) {
		d.Fail()
		return 0
	}
	return int(n)
}
