package session

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"time"
)

// A file may interleave any number of sessions, and a session is only known
// to end at the end of its file, so a file of 200,000 sessions would keep
// 200,000 sessions' state to the end. The Correlator keeps Limits.MaxLiveSessions
// of them live; the frames and damage of the later ones wait in a temporary
// file, one chain of records per session, and each of those sessions is
// correlated on its own when the file has been read (defer.go). This file
// is that temporary file and the encoding of what it holds.

// sessionSpill is an append-only file of records, each linked to the next
// record of its session. Recent records stay in a buffer, where the link of
// the previous record is patched in place; older ones are patched on disk.
type sessionSpill struct {
	f       *os.File
	name    string // removed at close, where it could not be removed at once
	buf     []byte // records not written yet; they start at offset flushed
	flushed int64
	read    []byte // reused to read records back
	enc     []byte // reused to encode a record
	err     error
	maxLive int // Limits.MaxLiveSessions, for messages
}

// scratch is a buffer to encode a record into.
func (sp *sessionSpill) scratch() []byte { return sp.enc[:0] }

// spillRecordHead is a record's fixed head: the offset of its session's
// next record (0 for none: offset 0 is always a session's first record),
// then its kind. A length and the payload follow.
const spillRecordHead = 8 + 1

const (
	spillFrame byte = iota + 1
	spillDamage
	spillSession // a deferred session's first record: its id and first line
)

func encodeSessionRecord(b []byte, id string, line int) []byte {
	b = binary.AppendVarint(b, int64(line))
	return append(b, id...)
}

func decodeSessionRecord(b []byte) (id string, line int, err error) {
	n, w := binary.Varint(b)
	if w <= 0 {
		return "", 0, errors.New("sessions: a damaged session record")
	}
	return string(b[w:]), int(n), nil
}

const spillBuffer = 1 << 20

// add appends a record after the record at tail (-1: the session's first)
// and returns its offset.
func (sp *sessionSpill) add(tail int64, kind byte, payload []byte) int64 {
	if sp.err != nil {
		return 0
	}
	if sp.f == nil {
		f, err := os.CreateTemp("", "mcpcheck-sessions-*")
		if err != nil {
			sp.err = fmt.Errorf("sessions past the first %d: %w", sp.maxLive, err)
			return 0
		}
		// Gone from the directory at once where the system allows it, so
		// nothing is left behind however the process ends.
		if os.Remove(f.Name()) != nil {
			sp.name = f.Name()
		}
		sp.f = f
	}
	off := sp.flushed + int64(len(sp.buf))
	sp.buf = binary.LittleEndian.AppendUint64(sp.buf, 0)
	sp.buf = append(sp.buf, kind)
	sp.buf = binary.AppendUvarint(sp.buf, uint64(len(payload)))
	sp.buf = append(sp.buf, payload...)
	if tail >= 0 {
		sp.link(tail, off)
	}
	if len(sp.buf) >= spillBuffer {
		sp.flush()
	}
	return off
}

// link makes the record at next follow the one at at.
func (sp *sessionSpill) link(at, next int64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(next))
	if at >= sp.flushed {
		copy(sp.buf[at-sp.flushed:], b[:])
		return
	}
	if _, err := sp.f.WriteAt(b[:], at); err != nil && sp.err == nil {
		sp.err = fmt.Errorf("sessions past the first %d: %w", sp.maxLive, err)
	}
}

func (sp *sessionSpill) flush() {
	if len(sp.buf) == 0 || sp.err != nil {
		return
	}
	if _, err := sp.f.WriteAt(sp.buf, sp.flushed); err != nil {
		sp.err = fmt.Errorf("sessions past the first %d: %w", sp.maxLive, err)
		return
	}
	sp.flushed += int64(len(sp.buf))
	sp.buf = sp.buf[:0]
	if cap(sp.buf) > 2*spillBuffer {
		sp.buf = nil
	}
}

// record reads the record at off: its kind, its payload (valid until the
// next call) and the offset of its session's next record (0 for none).
func (sp *sessionSpill) record(off int64) (kind byte, payload []byte, next int64, err error) {
	sp.flush()
	if sp.err != nil {
		return 0, nil, 0, sp.err
	}
	if cap(sp.read) < 4096 {
		sp.read = make([]byte, 4096)
	}
	n, err := sp.f.ReadAt(sp.read[:cap(sp.read)][:min(int64(cap(sp.read)), sp.flushed-off)], off)
	head := sp.read[:n]
	if n < spillRecordHead+1 {
		return 0, nil, 0, fmt.Errorf("sessions past the first %d: reading back: %v", sp.maxLive, errors.Join(err, errors.New("short record")))
	}
	next = int64(binary.LittleEndian.Uint64(head))
	kind = head[8]
	size, w := binary.Uvarint(head[spillRecordHead:])
	if w <= 0 || size > uint64(sp.flushed) {
		return 0, nil, 0, fmt.Errorf("sessions past the first %d: reading back: a damaged record", sp.maxLive)
	}
	start := int64(spillRecordHead + w)
	end := start + int64(size)
	if end <= int64(n) {
		return kind, head[start:end], next, nil
	}
	if int64(cap(sp.read)) < int64(size) {
		sp.read = make([]byte, size)
	}
	payload = sp.read[:size]
	if _, err := sp.f.ReadAt(payload, off+start); err != nil {
		return 0, nil, 0, fmt.Errorf("sessions past the first %d: reading back: %w", sp.maxLive, err)
	}
	return kind, payload, next, nil
}

func (sp *sessionSpill) close() {
	if sp.f != nil {
		sp.f.Close()
		sp.f = nil
	}
	if sp.name != "" {
		os.Remove(sp.name)
		sp.name = ""
	}
	sp.buf, sp.read = nil, nil
}

// The records hold frames as formats make them, before correlation, and
// damage with what survived of it. They are encoded field by field, by
// reflection over the exported fields, so that a field added to Frame is
// carried without anyone remembering to (spill_test.go fills every one).

// spillSkip are the Frame fields correlation sets: a record never has them.
var spillSkip = map[string]bool{
	"Msg": true, "Element": true, "Elements": true, "BatchStart": true,
	"GapBefore": true, "Call": true, "Pairing": true, "Task": true,
}

// damageRecord is a damaged piece of a deferred session as the spill holds it.
type damageRecord struct {
	D     Damage
	Named bool // it named this session: what survived of it is accounted here
	Dir   Direction
	Seqs  []int64
}

var timeType = reflect.TypeOf(time.Time{})

func encodeFrame(b []byte, f *Frame) []byte {
	return encodeValue(b, reflect.ValueOf(f).Elem(), true)
}

func decodeFrame(b []byte) (*Frame, error) {
	f := &Frame{}
	d := decoder{b: b}
	d.value(reflect.ValueOf(f).Elem(), true)
	if d.err != nil || len(d.b) != 0 {
		return nil, errors.New("sessions: a damaged frame record")
	}
	return f, nil
}

func encodeDamage(b []byte, d *damageRecord) []byte {
	return encodeValue(b, reflect.ValueOf(d).Elem(), false)
}

func decodeDamage(b []byte) (*damageRecord, error) {
	r := &damageRecord{}
	d := decoder{b: b}
	d.value(reflect.ValueOf(r).Elem(), false)
	if d.err != nil || len(d.b) != 0 {
		return nil, errors.New("sessions: a damaged damage record")
	}
	return r, nil
}

// encodeValue appends v; top marks the Frame itself, whose correlation
// fields are skipped.
func encodeValue(b []byte, v reflect.Value, top bool) []byte {
	switch v.Kind() {
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...)
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint())
	case reflect.Float32, reflect.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0)
		}
		return encodeValue(append(b, 1), v.Elem(), false)
	case reflect.Slice:
		if v.IsNil() { // nil and empty differ: a frame without raw has nil Raw
			return append(b, 0)
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(v.Len()))
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return append(b, v.Bytes()...)
		}
		for i := 0; i < v.Len(); i++ {
			b = encodeValue(b, v.Index(i), false)
		}
		return b
	case reflect.Struct:
		if v.Type() == timeType {
			t, _ := v.Interface().(time.Time).MarshalBinary()
			b = binary.AppendUvarint(b, uint64(len(t)))
			return append(b, t...)
		}
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() || (top && spillSkip[sf.Name]) {
				continue
			}
			b = encodeValue(b, v.Field(i), false)
		}
		return b
	}
	panic("session: cannot spill a field of kind " + v.Kind().String())
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	n, w := binary.Uvarint(d.b)
	if w <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[w:]
	return n
}

func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errors.New("damaged")
	}
	d.b = nil
}

func (d *decoder) value(v reflect.Value, top bool) {
	if d.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(string(d.bytes(d.uvarint())))
	case reflect.Bool:
		b := d.bytes(1)
		v.SetBool(len(b) == 1 && b[0] == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, w := binary.Varint(d.b)
		if w <= 0 {
			d.fail()
			return
		}
		d.b = d.b[w:]
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(d.uvarint())
	case reflect.Float32, reflect.Float64:
		b := d.bytes(8)
		if len(b) == 8 {
			v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}
	case reflect.Pointer:
		if b := d.bytes(1); len(b) == 1 && b[0] == 1 {
			v.Set(reflect.New(v.Type().Elem()))
			d.value(v.Elem(), false)
		}
	case reflect.Slice:
		if b := d.bytes(1); len(b) != 1 || b[0] == 0 {
			return
		}
		n := d.uvarint()
		if v.Type().Elem().Kind() == reflect.Uint8 {
			// The bytes alias the record, as a reader's frames alias its
			// buffer: correlation copies what it keeps.
			v.SetBytes(d.bytes(n))
			return
		}
		if n > uint64(len(d.b)) { // every element takes a byte at least
			d.fail()
			return
		}
		s := reflect.MakeSlice(v.Type(), int(n), int(n))
		for i := 0; i < int(n); i++ {
			d.value(s.Index(i), false)
		}
		v.Set(s)
	case reflect.Struct:
		if v.Type() == timeType {
			var t time.Time
			if err := t.UnmarshalBinary(d.bytes(d.uvarint())); err != nil {
				d.fail()
				return
			}
			v.Set(reflect.ValueOf(t))
			return
		}
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() || (top && spillSkip[sf.Name]) {
				continue
			}
			d.value(v.Field(i), false)
		}
	default:
		panic("session: cannot read back a field of kind " + v.Kind().String())
	}
}
