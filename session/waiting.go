package session

import (
	"bytes"
	"encoding/binary"
)

// The sessions past Limits.MaxLiveSessions wait in the spill, and which
// record belongs to which of them is on disk too: a waiting session costs
// no heap at all, however many there are (a million one-request sessions
// run in the memory of ten thousand). Each record of a waiting session is
// added to the spill on its own, and its session id and offset go to
// waitingIndex, which sorts them twice in bounded memory (sortfile.go):
// by session, to find each session's first frame, then by that first
// frame, to give the sessions back in first-seen order, each with its
// records in file order. Damage naming a session that never sent a frame
// forms a group of its own, given back first ("unclaimed").

// waitingIndex is the index of the waiting sessions' records.
type waitingIndex struct {
	bySession sortFile // session id, frames before damage, offset
	byTurn    sortFile // the session's first frame (unclaimed first), offset
	rec       []byte   // reused to encode a record
}

// groupClaimed marks, in a byTurn record, a group whose session sent a frame.
const groupClaimed = 1 << 63

// add indexes the spill record at off, of kind, for the session id.
func (w *waitingIndex) add(id string, kind byte, off int64) {
	w.bySession.pattern = "mcpcheck-waiting-*"
	b := binary.AppendUvarint(w.rec[:0], uint64(len(id)))
	b = append(b, id...)
	class := byte(1)
	if kind == spillFrame {
		class = 0 // a session's frames sort first: its first frame heads its group
	}
	b = append(b, class)
	b = binary.BigEndian.AppendUint64(b, uint64(off))
	w.bySession.add(b)
	w.rec = b
}

// empty reports whether nothing was indexed.
func (w *waitingIndex) empty() bool {
	return len(w.bySession.runs) == 0 && len(w.bySession.starts) == 0
}

// turns sorts the index and returns its records in the order sessions are
// to be correlated: 16 bytes each, the group (groupClaimed and the offset
// of the session's first frame, or the offset of an unclaimed group's
// first damage) and the record's offset.
func (w *waitingIndex) turns() (*sortMerge, error) {
	m, err := w.bySession.sorted()
	if err != nil {
		return nil, err
	}
	w.byTurn.pattern = "mcpcheck-waiting-*"
	var session []byte // the id prefix of the current group
	var group uint64
	for {
		rec, ok := m.next()
		if !ok {
			break
		}
		id, class, off := splitWaiting(rec)
		if id == nil {
			return nil, errDamagedRun
		}
		if session == nil || !bytes.Equal(id, session) {
			session = append(session[:0], id...)
			group = off
			if class == 0 {
				group |= groupClaimed
			}
		}
		var b [16]byte
		binary.BigEndian.PutUint64(b[:], group)
		binary.BigEndian.PutUint64(b[8:], off)
		w.byTurn.add(b[:])
	}
	if m.err != nil {
		return nil, m.err
	}
	w.bySession.close()
	return w.byTurn.sorted()
}

// splitWaiting reads a bySession record: its id prefix, class and offset.
func splitWaiting(rec []byte) (id []byte, class byte, off uint64) {
	n := len(rec)
	if n < 9 {
		return nil, 0, 0
	}
	return rec[:n-9], rec[n-9], binary.BigEndian.Uint64(rec[n-8:])
}

// splitTurn reads a byTurn record.
func splitTurn(rec []byte) (group, off uint64) {
	if len(rec) != 16 {
		return 0, 0
	}
	return binary.BigEndian.Uint64(rec), binary.BigEndian.Uint64(rec[8:])
}

func (w *waitingIndex) close() {
	w.bySession.close()
	w.byTurn.close()
}
