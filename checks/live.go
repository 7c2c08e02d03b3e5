package checks

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/session"
)

// A session stays open until its capture ends (an mcpsnoop session has no
// end marker), and its findings wait for it: they are sorted, fingerprinted
// and suppressed only once the session is whole. Fifty sessions of a long
// capture may hold tens of thousands of findings between them, and a
// finding as Go objects (the struct, its exchange, its strings, each from
// a different size class among the frames' garbage) costs several times
// its bytes. So once the rule that reported a finding is done with it, the
// finding is encoded into its session's findingLog; while the logs of all
// open sessions are past liveBudget, a session's log goes on to the run's
// temporary file (spec §2.4: memory follows what must be remembered, never
// the number of findings).

// liveBudget is roughly how many bytes of encoded findings the open
// sessions of a run hold in memory before they write them to the
// temporary file (SetResultBudgetForTesting sets it too).
var liveBudget = 256 << 10

// minLiveChunk is the least a session writes to the temporary file at a
// time, so that many small sessions do not write a finding at a time.
const minLiveChunk = 4 << 10

// findingLog is one open session's findings, in the order they were
// reported.
type findingLog struct {
	buf    []byte       // encoded findings not written to the file
	chunks []liveChunk  // the earlier ones, in the file, in order
	pinned []*Finding   // findings kept whole, in order (a placeholder in buf stands for each)
	calls  []loggedCall // calls whose outcome is learnt when the session ends, by index in buf
	// unsettled are the calls that may still change, by index in calls,
	// oldest first: each seal looks at two of them.
	unsettled []int
	n         int // findings logged, pinned ones included
	ex        int // exchanges of the encoded findings
}

// liveChunk is a stretch of the temporary file.
type liveChunk struct{ off, n int64 }

// liveSpill is the run's temporary file of open sessions' findings, and
// the bytes their logs hold in memory.
type liveSpill struct {
	f    *os.File
	name string
	size int64
	mem  int // capacity of every open session's buf
	err  error

	scratch []byte // for reading chunks back
}

// pin keeps a finding whole in its session's log: a rule holds it to count
// more occurrences on it (repeats).
func (fd *Finding) pin() { fd.pinned = true }

// keepsWhole reports a finding the log does not encode: one a rule may
// still change, and fields only the end of a session sets or that are too
// rare to be worth encoding (a tool change).
func (fd *Finding) keepsWhole() bool {
	return fd.pinned || fd.folded || fd.Drift != nil || fd.Label != "" || fd.Fingerprint != "" ||
		fd.Gated || fd.Suppressed != nil
}

// seal moves the findings rules reported since the last seal into the
// session's log; rules are done with them (but for pinned ones).
func (sr *sessionRun) seal(sp *liveSpill) {
	log := &sr.log
	before := cap(log.buf)
	for _, fd := range sr.findings {
		log.n++
		if fd.keepsWhole() {
			log.pinned = append(log.pinned, fd)
			log.buf = append(log.buf, recPinned)
			continue
		}
		log.buf = log.encode(log.buf, fd, sr.s)
	}
	clear(sr.findings)
	sr.findings = sr.findings[:0]
	log.settle()
	sp.mem += cap(log.buf) - before
	if sp.mem > liveBudget && len(log.buf) >= min(minLiveChunk, liveBudget) {
		sp.write(log)
	}
}

// loggedCall is the call of a finding reported before its answer, whose
// exchange learns what became of it when the session ends (finish). Once
// nothing can change the call (settled), what finish reads of it is kept
// instead: a session that reports at a thousand requests does not keep a
// thousand calls to its end.
type loggedCall struct {
	c     *session.Call
	state session.CallState
	end   time.Time
}

// call is the call finish reads: the call, or what it left.
func (lc *loggedCall) call() *session.Call {
	if lc.c != nil {
		return lc.c
	}
	return &session.Call{State: lc.state, End: lc.end}
}

// settle looks at the two oldest calls that may still change: a settled
// one is let go, the other waits its turn again.
func (log *findingLog) settle() {
	for range 2 {
		if len(log.unsettled) == 0 {
			return
		}
		i := log.unsettled[0]
		log.unsettled = log.unsettled[1:]
		lc := &log.calls[i]
		if !settled(lc.c) {
			log.unsettled = append(log.unsettled, i)
			continue
		}
		lc.state, lc.end, lc.c = lc.c.State, lc.c.End, nil
	}
}

// write moves a session's buffered findings to the file.
func (sp *liveSpill) write(log *findingLog) {
	sp.mem -= cap(log.buf)
	buf := log.buf
	log.buf = nil
	if sp.err != nil {
		return
	}
	if sp.f == nil {
		f, err := os.CreateTemp("", "mcpcheck-findings-*")
		if err != nil {
			sp.err = fmt.Errorf("findings of open sessions: %w", err)
			return
		}
		sp.f, sp.name = f, f.Name()
		if os.Remove(sp.name) == nil { // gone however the process ends; lives while open
			sp.name = ""
		}
	}
	if _, err := sp.f.Write(buf); err != nil {
		sp.err = fmt.Errorf("findings of open sessions: %w", err)
		return
	}
	log.chunks = append(log.chunks, liveChunk{sp.size, int64(len(buf))})
	sp.size += int64(len(buf))
}

// close removes the file; the spill is not used afterwards.
func (sp *liveSpill) close() {
	if sp.f == nil {
		return
	}
	sp.f.Close()
	if sp.name != "" {
		os.Remove(sp.name)
	}
	sp.f = nil
}

// loggedFindings decodes the session's findings, in the order they were
// reported, and empties the log.
func (sr *sessionRun) loggedFindings(sp *liveSpill) []*Finding {
	log := &sr.log
	out := make([]*Finding, 0, log.n+len(sr.findings))
	var dec logDecoder
	dec.findings = make([]Finding, log.n-len(log.pinned))
	dec.ex = make([]Exchange, log.ex)
	dec.s, dec.log = sr.s, log
	for _, c := range log.chunks {
		if sp.err != nil {
			break
		}
		// Read straight into the string the findings will share.
		var chunk strings.Builder
		chunk.Grow(int(c.n))
		if sp.scratch == nil {
			sp.scratch = make([]byte, 32<<10)
		}
		if _, err := io.CopyBuffer(&chunk, io.NewSectionReader(sp.f, c.off, c.n), sp.scratch); err != nil || int64(chunk.Len()) != c.n {
			sp.err = fmt.Errorf("findings of open sessions: reading back: %w", cmp.Or(err, io.ErrUnexpectedEOF))
			break
		}
		out = dec.decode(out, chunk.String())
	}
	sp.mem -= cap(log.buf)
	if sp.err == nil {
		out = dec.decode(out, string(log.buf))
	}
	if dec.err != nil && sp.err == nil {
		sp.err = dec.err
	}
	*log = findingLog{}
	return append(out, sr.findings...)
}

// Record kinds.
const (
	recFinding = iota
	recPinned
)

// Flags of an encoded finding.
const (
	hasExchange = 1 << iota
	hasCall
)

// encode appends fd. Strings equal to the session's id or file, which most
// findings carry, take a byte.
func (log *findingLog) encode(b []byte, fd *Finding, s *session.Session) []byte {
	str := func(v string) {
		switch v {
		case s.ID:
			b = append(b, 0)
		case s.File:
			b = append(b, 1)
		default:
			b = binary.AppendUvarint(b, uint64(len(v))+2)
			b = append(b, v...)
		}
	}
	num := func(v int64) { b = binary.AppendVarint(b, v) }
	tm := func(t time.Time) {
		if t.IsZero() {
			b = append(b, 0)
			return
		}
		at := len(b)
		b = append(b, 0)
		b, _ = t.AppendBinary(b) // the form a spilled result keeps (gob)
		b[at] = byte(len(b) - at - 1)
	}
	flags := byte(0)
	if fd.Exchange != nil {
		flags |= hasExchange
	}
	if fd.call != nil {
		flags |= hasCall
	}
	b = append(b, recFinding, flags, byte(fd.Signal), byte(fd.Severity))
	str(fd.Rule)
	str(fd.Message)
	str(fd.File)
	num(int64(fd.Line))
	str(fd.Session)
	num(fd.Seq)
	str(fd.Subject)
	num(int64(fd.Also))
	num(int64(len(fd.Related)))
	for _, l := range fd.Related {
		str(l.File)
		num(int64(l.Line))
		str(l.Message)
	}
	if ex := fd.Exchange; ex != nil {
		log.ex++
		b = append(b, byte(ex.From))
		str(ex.Method)
		str(ex.Name)
		str(ex.ID)
		num(int64(ex.Line))
		tm(ex.Sent)
		str(ex.Answer)
		tm(ex.Answered)
		str(ex.Note)
	}
	if fd.call != nil {
		num(int64(len(log.calls)))
		log.unsettled = append(log.unsettled, len(log.calls))
		log.calls = append(log.calls, loggedCall{c: fd.call})
	}
	return b
}

// logDecoder reads a session's encoded findings back.
type logDecoder struct {
	s        *session.Session
	log      *findingLog
	findings []Finding  // backing store of the decoded findings
	next     int        // of findings
	ex       []Exchange // backing store of their exchanges, not yet taken
	pinned   int        // pinned findings placed so far
	err      error
}

// errLog reports an encoded log that does not decode: a bug, never input.
var errLog = errors.New("findings of open sessions: a finding does not read back")

// decode appends the findings in data, whose strings the findings share.
func (d *logDecoder) decode(out []*Finding, data string) []*Finding {
	i := 0
	fail := func() { d.err, i = errLog, len(data) }
	uvarint := func() uint64 {
		v, n := uvarintString(data[i:])
		if n <= 0 {
			fail()
			return 0
		}
		i += n
		return v
	}
	num := func() int64 {
		u := uvarint()
		return int64(u>>1) ^ -int64(u&1) // zig-zag, as binary.AppendVarint
	}
	str := func() string {
		switch v := uvarint(); v {
		case 0:
			return d.s.ID
		case 1:
			return d.s.File
		default:
			n := int(v - 2)
			if n < 0 || n > len(data)-i {
				fail()
				return ""
			}
			i += n
			return data[i-n : i]
		}
	}
	b := func() byte {
		if i >= len(data) {
			fail()
			return 0
		}
		i++
		return data[i-1]
	}
	tm := func() time.Time {
		var t time.Time
		n := int(b())
		if n == 0 {
			return t
		}
		if n > len(data)-i || t.UnmarshalBinary([]byte(data[i:i+n])) != nil {
			fail()
			return t
		}
		i += n
		return t
	}
	for i < len(data) && d.err == nil {
		if b() == recPinned {
			if d.pinned >= len(d.log.pinned) {
				fail()
				break
			}
			out = append(out, d.log.pinned[d.pinned])
			d.pinned++
			continue
		}
		if d.next >= len(d.findings) {
			fail()
			break
		}
		fd := &d.findings[d.next]
		d.next++
		flags := b()
		fd.Signal, fd.Severity = Signal(b()), Severity(b())
		fd.Rule = str()
		fd.Message = str()
		fd.File = str()
		fd.Line = int(num())
		fd.Session = str()
		fd.Seq = num()
		fd.Subject = str()
		fd.Also = int(num())
		if n := num(); n < 0 || n > int64(len(data)-i) {
			fail()
		} else if n > 0 {
			fd.Related = make([]Location, n)
			for j := range fd.Related {
				l := &fd.Related[j]
				l.File = str()
				l.Line = int(num())
				l.Message = str()
			}
		}
		if flags&hasExchange != 0 {
			if len(d.ex) == 0 {
				fail()
				break
			}
			ex := &d.ex[0]
			d.ex = d.ex[1:]
			ex.From = session.Direction(b())
			ex.Method = str()
			ex.Name = str()
			ex.ID = str()
			ex.Line = int(num())
			ex.Sent = tm()
			ex.Answer = str()
			ex.Answered = tm()
			ex.Note = str()
			fd.Exchange = ex
		}
		if flags&hasCall != 0 {
			if k := num(); k >= 0 && k < int64(len(d.log.calls)) {
				fd.call = d.log.calls[k].call()
			} else {
				fail()
			}
		}
		out = append(out, fd)
	}
	return out
}

// uvarintString is binary.Uvarint over a string.
func uvarintString(s string) (uint64, int) {
	var x uint64
	var sh uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<sh, i + 1
		}
		x |= uint64(c&0x7f) << sh
		sh += 7
	}
	return 0, 0
}
