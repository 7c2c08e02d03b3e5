package session

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"io"
	"slices"

	"github.com/mcpcheck/mcpcheck/internal/spill"
)

// sortFile sorts short byte records (bytes.Compare order) in bounded
// memory: records gather in a chunk of sortChunk bytes, each full chunk is
// sorted and written to a temporary file as a run, and the runs are merged
// when read back, at most sortFanIn at a time. What it holds in memory does
// not depend on how many records it is given.
type sortFile struct {
	file    spill.File
	pattern string
	chunk   []byte  // records of the current run, each a uvarint length and its bytes
	starts  []int32 // where each record of chunk starts
	runs    []sortRun
	err     error

	chunkSize, fanIn int // sortChunk and sortFanIn when zero (tests make them small)
}

// sortRun is a sorted stretch of the file.
type sortRun struct{ off, n int64 }

const (
	sortChunk   = 1 << 20
	sortFanIn   = 64
	sortReadBuf = 16 << 10

	// maxSortRecord is more than any record holds (a session id is part of
	// an envelope); a longer length is damage.
	maxSortRecord = 1 << 30
)

func (sf *sortFile) add(rec []byte) {
	if sf.err != nil {
		return
	}
	sf.defaults()
	if sf.chunk == nil {
		sf.chunk = make([]byte, 0, sf.chunkSize) // one size, whatever the input
	}
	if len(sf.chunk)+len(rec)+binary.MaxVarintLen32 > sf.chunkSize && len(sf.starts) > 0 {
		sf.writeRun()
	}
	sf.starts = append(sf.starts, int32(len(sf.chunk)))
	sf.chunk = binary.AppendUvarint(sf.chunk, uint64(len(rec)))
	sf.chunk = append(sf.chunk, rec...)
}

func (sf *sortFile) defaults() {
	if sf.chunkSize == 0 {
		sf.chunkSize = sortChunk
	}
	if sf.fanIn < 2 {
		sf.fanIn = sortFanIn
	}
}

// at is the record of chunk starting at start.
func (sf *sortFile) at(start int32) []byte {
	n, w := binary.Uvarint(sf.chunk[start:])
	b := sf.chunk[int(start)+w:]
	return b[:n]
}

// writeRun sorts the chunk and appends it to the file as a run.
func (sf *sortFile) writeRun() {
	slices.SortFunc(sf.starts, func(a, b int32) int { return bytes.Compare(sf.at(a), sf.at(b)) })
	sf.file.Pattern = sf.pattern
	w := bufio.NewWriterSize(&sf.file, sortReadBuf)
	start := sf.file.Size()
	var n int64
	for _, s := range sf.starts {
		rec := sf.at(s)
		var head [binary.MaxVarintLen64]byte
		h := binary.PutUvarint(head[:], uint64(len(rec)))
		w.Write(head[:h])
		w.Write(rec)
		n += int64(h + len(rec))
	}
	if err := w.Flush(); err != nil {
		sf.err = err
	}
	sf.runs = append(sf.runs, sortRun{start, n})
	sf.chunk, sf.starts = sf.chunk[:0], sf.starts[:0]
}

// sorted ends the input and returns the records in order, merging runs
// sortFanIn at a time first while there are more.
func (sf *sortFile) sorted() (*sortMerge, error) {
	if len(sf.starts) > 0 {
		sf.writeRun()
	}
	sf.chunk, sf.starts = nil, nil
	sf.defaults()
	for sf.err == nil && len(sf.runs) > sf.fanIn {
		sf.mergeRuns(sf.runs[:sf.fanIn])
	}
	if sf.err != nil {
		return nil, sf.err
	}
	return sf.merge(sf.runs), nil
}

// mergeRuns merges runs, the first of sf.runs, into one run at the end of
// the file, which takes their place after the others.
func (sf *sortFile) mergeRuns(runs []sortRun) {
	m := sf.merge(runs)
	w := bufio.NewWriterSize(&sf.file, sortReadBuf)
	start := sf.file.Size()
	var n int64
	for {
		rec, ok := m.next()
		if !ok {
			break
		}
		var head [binary.MaxVarintLen64]byte
		h := binary.PutUvarint(head[:], uint64(len(rec)))
		w.Write(head[:h])
		w.Write(rec)
		n += int64(h + len(rec))
	}
	if m.err != nil {
		sf.err = m.err
		return
	}
	if err := w.Flush(); err != nil {
		sf.err = err
		return
	}
	sf.runs = append(sf.runs[len(runs):], sortRun{start, n})
}

func (sf *sortFile) merge(runs []sortRun) *sortMerge {
	m := &sortMerge{}
	for _, r := range runs {
		rr := &runReader{r: bufio.NewReaderSize(sf.file.Section(r.off, r.n), sortReadBuf)}
		if rr.advance() {
			m.h = append(m.h, rr)
		} else if rr.err != nil {
			m.err = rr.err
		}
	}
	heap.Init(&m.h)
	return m
}

func (sf *sortFile) close() {
	sf.file.Close()
	sf.chunk, sf.starts, sf.runs = nil, nil, nil
}

// sortMerge yields the records of sorted runs in order.
type sortMerge struct {
	h    runHeap
	last []byte // the record yielded last
	err  error
}

// next is the next record, valid until the next call; false at the end or
// on an error (err).
func (m *sortMerge) next() ([]byte, bool) {
	if m.err != nil || len(m.h) == 0 {
		return nil, false
	}
	top := m.h[0]
	m.last = append(m.last[:0], top.rec...)
	if top.advance() {
		heap.Fix(&m.h, 0)
	} else {
		if top.err != nil {
			m.err = top.err
			return nil, false
		}
		heap.Pop(&m.h)
	}
	return m.last, true
}

// runReader reads one run's records.
type runReader struct {
	r   *bufio.Reader
	rec []byte
	err error
}

var errDamagedRun = errors.New("sessions: a damaged run in the temporary file")

func (rr *runReader) advance() bool {
	n, err := binary.ReadUvarint(rr.r)
	if err == io.EOF {
		return false
	}
	if err != nil || n > maxSortRecord {
		rr.err = errors.Join(err, errDamagedRun)
		return false
	}
	if uint64(cap(rr.rec)) < n {
		rr.rec = make([]byte, n)
	}
	rr.rec = rr.rec[:n]
	if _, err := io.ReadFull(rr.r, rr.rec); err != nil {
		rr.err = errors.Join(err, errDamagedRun)
		return false
	}
	return true
}

type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return bytes.Compare(h[i].rec, h[j].rec) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
