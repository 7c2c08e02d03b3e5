package session

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spill"
)

// A file may interleave any number of sessions, and a session is only known
// to end at the end of its file, so a file of 200,000 sessions would keep
// 200,000 sessions' state to the end. The Correlator keeps Limits.MaxLiveSessions
// of them live; the frames and damage of the later ones wait in a temporary
// file, one chain of records per session, and each of those sessions is
// correlated on its own when the file has been read (defer.go). This file
// is that temporary file and the encoding of what it holds (the run's one
// record codec, internal/spill).

// sessionSpill is an append-only file of records, each linked to the next
// record of its session. Recent records stay in a buffer, where the link of
// the previous record is patched in place; older ones are patched on disk.
type sessionSpill struct {
	file      spill.File
	buf       []byte // records not written yet; they start at offset flushed
	flushed   int64
	window    []byte // a stretch of the file read back, from windowOff
	windowOff int64
	big       []byte // reused for a record longer than the window
	enc       []byte // reused to encode a record
	err       error
	maxLive   int // Limits.MaxLiveSessions, for messages
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
)

const spillBuffer = 1 << 20

// add appends a record after the record at tail (-1: the session's first)
// and returns its offset.
func (sp *sessionSpill) add(tail int64, kind byte, payload []byte) int64 {
	if sp.err != nil {
		return 0
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

func (sp *sessionSpill) fail(err error) {
	if sp.err == nil {
		sp.err = fmt.Errorf("sessions past the first %d: %w", sp.maxLive, err)
	}
}

// link makes the record at next follow the one at at.
func (sp *sessionSpill) link(at, next int64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(next))
	if at >= sp.flushed {
		copy(sp.buf[at-sp.flushed:], b[:])
		return
	}
	sp.window = sp.window[:0] // it may hold the old link
	if err := sp.file.WriteAt(b[:], at); err != nil {
		sp.fail(err)
	}
}

func (sp *sessionSpill) flush() {
	if len(sp.buf) == 0 || sp.err != nil {
		return
	}
	sp.file.Pattern = "mcpcheck-sessions-*"
	if _, err := sp.file.Append(sp.buf); err != nil {
		sp.fail(err)
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
	head, whole := sp.fromWindow(off)
	if !whole {
		if head, err = sp.readWindow(off); err != nil {
			return 0, nil, 0, err
		}
	}
	next = int64(binary.LittleEndian.Uint64(head))
	kind = head[8]
	size, w := binary.Uvarint(head[spillRecordHead:])
	if w <= 0 || size > uint64(sp.flushed) {
		return 0, nil, 0, fmt.Errorf("sessions past the first %d: reading back: a damaged record", sp.maxLive)
	}
	start := int64(spillRecordHead + w)
	end := start + int64(size)
	if end <= int64(len(head)) {
		return kind, head[start:end], next, nil
	}
	if int64(cap(sp.big)) < int64(size) {
		sp.big = make([]byte, size)
	}
	payload = sp.big[:size]
	if _, err := sp.file.ReadAt(payload, off+start); err != nil {
		return 0, nil, 0, fmt.Errorf("sessions past the first %d: reading back: %w", sp.maxLive, err)
	}
	if cap(sp.big) > spillBuffer {
		sp.big = nil // one huge record does not keep its buffer
	}
	return kind, payload, next, nil
}

// spillWindow is how much of the file one read brings back: records are
// mostly read in the order they were written (a session's, and sessions in
// first-seen order), so the next one is often in it already.
const spillWindow = 8 << 10

// fromWindow is the file from off as far as the window holds it, and
// whether the record at off is whole in it.
func (sp *sessionSpill) fromWindow(off int64) ([]byte, bool) {
	if off < sp.windowOff || off >= sp.windowOff+int64(len(sp.window)) {
		return nil, false
	}
	b := sp.window[off-sp.windowOff:]
	if len(b) < spillRecordHead+1 {
		return nil, false
	}
	size, w := binary.Uvarint(b[spillRecordHead:])
	return b, w > 0 && uint64(len(b)-spillRecordHead-w) >= size
}

// readWindow reads the window from off.
func (sp *sessionSpill) readWindow(off int64) ([]byte, error) {
	if sp.window == nil {
		sp.window = make([]byte, spillWindow)
	}
	sp.window = sp.window[:cap(sp.window)]
	n, err := sp.file.ReadAt(sp.window[:min(int64(len(sp.window)), max(sp.flushed-off, 0))], off)
	sp.window, sp.windowOff = sp.window[:n], off
	if n < spillRecordHead+1 {
		return nil, fmt.Errorf("sessions past the first %d: reading back: %v", sp.maxLive, errors.Join(err, errors.New("short record")))
	}
	return sp.window, nil
}

func (sp *sessionSpill) close() {
	sp.file.Close()
	sp.buf, sp.window, sp.big = nil, nil, nil
}

// The records hold frames as formats make them, before correlation, and
// damage with what survived of it, field by field. Every field a format
// may set is written here; spillfields_test.go (TestSpillCarriesEveryFrameField)
// fills every exported field of Frame but spillSkip, and of a damage
// record, and fails when one does not read back, so a field added to
// Frame or Damage cannot be forgotten.

// spillSkip are the Frame fields correlation sets: a record never has them.
var spillSkip = map[string]bool{
	"Msg": true, "Element": true, "Elements": true, "BatchStart": true,
	"GapBefore": true, "Call": true, "Pairing": true, "Task": true,
}

// damageRecord is a damaged piece of a deferred session as the spill holds it.
type damageRecord struct {
	D       Damage
	Named   bool // it named this session: what survived of it is accounted here
	Dir     Direction
	Seqs    []int64
	Session string // the session it named, when Named and it may never appear
}

var errFrameRecord = errors.New("sessions: a damaged frame record")

func encodeFrame(b []byte, f *Frame) []byte {
	e := spill.NewEncoder(b)
	e.String(f.File)
	e.Int(f.Line)
	e.String(f.SessionID)
	e.String(f.Label)
	e.Varint(f.Seq)
	e.Time(f.Time)
	e.Byte(byte(f.Direction))
	e.String(f.Transport)
	e.String(f.ConnID)
	e.Blob(f.Raw)
	e.String(f.Text)
	e.Bool(f.HasText)
	e.String(f.MCPMethod)
	e.String(f.MCPName)
	e.String(f.MCPProtocolVersion)
	if e.Present(f.ParamHeaders != nil) { // nil and empty differ, as every slice here
		e.Len(len(f.ParamHeaders))
		for _, h := range f.ParamHeaders {
			e.String(h.Name)
			e.String(h.Value)
			e.Bool(h.Redacted)
		}
	}
	e.Bool(f.Batch)
	e.Bool(f.Truncated)
	e.Bool(f.Redacted)
	e.Int(f.Status)
	e.String(f.AuthChallenge)
	e.String(f.ContentType)
	e.String(f.Accept)
	e.String(f.Origin)
	if e.Present(f.EnvelopeProblems != nil) {
		e.Len(len(f.EnvelopeProblems))
		for _, p := range f.EnvelopeProblems {
			e.Byte(byte(p.Fault))
			e.String(p.Member)
			e.String(p.Problem)
		}
	}
	e.Byte(byte(f.Inferred))
	return e.Bytes()
}

// decodeFrame reads a frame back. Its Raw aliases b, as a reader's frames
// alias its buffer: correlation copies what it keeps.
func decodeFrame(b []byte) (*Frame, error) {
	d := spill.NewDecoder(b)
	f := &Frame{}
	f.File = d.String()
	f.Line = d.Int()
	f.SessionID = d.String()
	f.Label = d.String()
	f.Seq = d.Varint()
	f.Time = d.Time()
	f.Direction = Direction(d.Byte())
	f.Transport = d.String()
	f.ConnID = d.String()
	f.Raw = d.Blob()
	f.Text = d.String()
	f.HasText = d.Bool()
	f.MCPMethod = d.String()
	f.MCPName = d.String()
	f.MCPProtocolVersion = d.String()
	if d.Present() {
		f.ParamHeaders = make([]ParamHeader, d.Len())
		for i := range f.ParamHeaders {
			h := &f.ParamHeaders[i]
			h.Name = d.String()
			h.Value = d.String()
			h.Redacted = d.Bool()
		}
	}
	f.Batch = d.Bool()
	f.Truncated = d.Bool()
	f.Redacted = d.Bool()
	f.Status = d.Int()
	f.AuthChallenge = d.String()
	f.ContentType = d.String()
	f.Accept = d.String()
	f.Origin = d.String()
	if d.Present() {
		f.EnvelopeProblems = make([]EnvelopeProblem, d.Len())
		for i := range f.EnvelopeProblems {
			p := &f.EnvelopeProblems[i]
			p.Fault = EnvelopeFault(d.Byte())
			p.Member = d.String()
			p.Problem = d.String()
		}
	}
	f.Inferred = Inference(d.Byte())
	if d.Err() != nil || d.More() {
		return nil, errFrameRecord
	}
	return f, nil
}

// frameSession reads only the session id and line of a frame record, which
// lead it.
func frameSession(b []byte) (id string, line int, err error) {
	d := spill.NewDecoder(b)
	_ = d.String() // its file
	line = d.Int()
	id = d.String()
	if d.Err() != nil {
		return "", 0, errFrameRecord
	}
	return id, line, nil
}

func encodeDamage(b []byte, r *damageRecord) []byte {
	e := spill.NewEncoder(b)
	e.String(r.D.File)
	e.Int(r.D.Line)
	e.String(r.D.Reason)
	e.Int(r.D.More)
	e.Varint(r.D.Seq)
	e.Varint(r.D.GapBefore)
	e.String(r.D.Lost)
	e.Bool(r.D.ByDesign)
	e.Bool(r.Named)
	e.Byte(byte(r.Dir))
	if e.Present(r.Seqs != nil) {
		e.Len(len(r.Seqs))
		for _, s := range r.Seqs {
			e.Varint(s)
		}
	}
	e.String(r.Session)
	return e.Bytes()
}

func decodeDamage(b []byte) (*damageRecord, error) {
	d := spill.NewDecoder(b)
	r := &damageRecord{}
	r.D.File = d.String()
	r.D.Line = d.Int()
	r.D.Reason = d.String()
	r.D.More = d.Int()
	r.D.Seq = d.Varint()
	r.D.GapBefore = d.Varint()
	r.D.Lost = d.String()
	r.D.ByDesign = d.Bool()
	r.Named = d.Bool()
	r.Dir = Direction(d.Byte())
	if d.Present() {
		r.Seqs = make([]int64, d.Len())
		for i := range r.Seqs {
			r.Seqs[i] = d.Varint()
		}
	}
	r.Session = d.String()
	if d.Err() != nil || d.More() {
		return nil, errors.New("sessions: a damaged damage record")
	}
	return r, nil
}
