package engine

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/internal/spill"
	"github.com/mcpcheck/mcpcheck/result"
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
// open sessions are past Limits.LiveBytes, a session's log goes on to the
// run's temporary file (spec §2.4: memory follows what must be remembered,
// never the number of findings).

// minLiveChunk is the least a session writes to the temporary file at a
// time, so that many small sessions do not write a finding at a time.
const minLiveChunk = 4 << 10

// findingLog is one open session's findings, in the order they were
// reported.
type findingLog struct {
	buf    []byte       // encoded findings not written to the file
	chunks []liveChunk  // the earlier ones, in the file, in order
	pinned []*reported  // findings kept whole, in order (a placeholder in buf stands for each)
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
	budget int // Limits.LiveBytes
	file   spill.File
	mem    int // capacity of every open session's buf
	err    error

	scratch []byte // for reading chunks back
}

// keepsWhole reports a finding the log does not encode: one a rule may
// still change, or with a field too rare to be worth encoding (a tool
// change). A cause is encoded: a server that answers every bad call with
// -32602 links thousands of findings to their causes.
func (w *reported) keepsWhole() bool {
	return w.pinned || w.folded || w.fd.Drift != nil
}

// seal moves the findings rules reported since the last seal into the
// session's log; rules are done with them (but for pinned ones).
func (sr *sessionRun) seal(sp *liveSpill) {
	log := &sr.log
	before := cap(log.buf)
	for _, w := range sr.findings {
		log.n++
		if w.keepsWhole() {
			log.pinned = append(log.pinned, w)
			log.buf = append(log.buf, recPinned)
			continue
		}
		log.buf = log.encode(log.buf, w, sr.s)
	}
	clear(sr.findings)
	sr.findings = sr.findings[:0]
	log.settle()
	sp.mem += cap(log.buf) - before
	if sp.mem > sp.budget && len(log.buf) >= min(minLiveChunk, sp.budget) {
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
		if !lc.c.Settled() {
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
	sp.file.Pattern = "mcpcheck-findings-*"
	off, err := sp.file.Append(buf)
	if err != nil {
		sp.err = fmt.Errorf("findings of open sessions: %w", err)
		return
	}
	log.chunks = append(log.chunks, liveChunk{off, int64(len(buf))})
}

// close removes the file; the spill is not used afterwards.
func (sp *liveSpill) close() { sp.file.Close() }

// loggedFindings decodes the session's findings, in the order they were
// reported, each with what became of its call, and empties the log.
func (sr *sessionRun) loggedFindings(sp *liveSpill) []*result.Finding {
	log := &sr.log
	out := make([]*result.Finding, 0, log.n+len(sr.findings))
	dec := logDecoder{s: sr.s, log: log}
	dec.findings = make([]result.Finding, log.n+len(sr.findings))
	dec.ex = make([]result.Exchange, log.ex)
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
		if _, err := io.CopyBuffer(&chunk, sp.file.Section(c.off, c.n), sp.scratch); err != nil || int64(chunk.Len()) != c.n {
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
	for _, w := range sr.findings {
		out = append(out, dec.whole(w))
	}
	return out
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
	hasCause
)

// encode appends w. Strings equal to the session's id or file, which most
// findings carry, take a byte.
func (log *findingLog) encode(b []byte, w *reported, s *session.Session) []byte {
	fd := &w.fd
	flags := byte(0)
	if w.ex != nil {
		flags |= hasExchange
	}
	if w.call != nil {
		flags |= hasCall
	}
	if fd.CausedBy != nil {
		flags |= hasCause
	}
	e := spill.NewEncoder(append(b, recFinding, flags, byte(fd.Signal), byte(fd.Severity)))
	str := func(v string) { e.Common(v, s.ID, s.File) }
	str(fd.Rule)
	str(fd.Message)
	str(fd.File)
	e.Int(fd.Line)
	str(fd.Session)
	e.Varint(fd.Seq)
	str(fd.Subject)
	e.Int(fd.Also)
	e.Len(len(fd.Related))
	for _, l := range fd.Related {
		str(l.File)
		e.Int(l.Line)
		str(l.Message)
	}
	if ex := w.ex; ex != nil {
		log.ex++
		e.Byte(byte(ex.From))
		str(ex.Method)
		str(ex.Name)
		str(ex.ID)
		e.Int(ex.Line)
		e.Time(ex.Sent)
		str(ex.Answer)
		e.Time(ex.Answered)
		str(ex.Note)
	}
	if c := fd.CausedBy; c != nil {
		str(c.Rule)
		str(c.What)
		str(c.File)
		e.Int(c.Line)
	}
	if w.call != nil {
		e.Int(len(log.calls))
		log.unsettled = append(log.unsettled, len(log.calls))
		log.calls = append(log.calls, loggedCall{c: w.call})
	}
	return e.Bytes()
}

// logDecoder reads a session's encoded findings back.
type logDecoder struct {
	s        *session.Session
	log      *findingLog
	findings []result.Finding  // backing store of the findings, not yet taken
	ex       []result.Exchange // backing store of their exchanges, not yet taken
	pinned   int               // pinned findings placed so far
	err      error
}

// errLog reports an encoded log that does not decode: a bug, never input.
var errLog = errors.New("findings of open sessions: a finding does not read back")

// next is the backing store of the next finding.
func (d *logDecoder) next() *result.Finding {
	if len(d.findings) == 0 {
		return &result.Finding{}
	}
	fd := &d.findings[0]
	d.findings = d.findings[1:]
	return fd
}

// whole makes a finding kept whole (pinned, or not sealed) plain.
func (d *logDecoder) whole(w *reported) *result.Finding {
	fd := d.next()
	*fd = result.Finding{
		Rule: w.fd.Rule, Signal: w.fd.Signal, Severity: w.fd.Severity, Message: w.fd.Message,
		File: w.fd.File, Line: w.fd.Line, Session: w.fd.Session, Seq: w.fd.Seq, Subject: w.fd.Subject,
		Related: w.fd.Related, Also: w.fd.Also, Drift: w.fd.Drift, CausedBy: w.fd.CausedBy,
		Exchange: w.ex,
	}
	finish(w.ex, w.call)
	return fd
}

// decode appends the findings in data, whose strings the findings share.
func (d *logDecoder) decode(out []*result.Finding, data string) []*result.Finding {
	dec := spill.NewDecoder(data)
	str := func() string { return dec.Common(d.s.ID, d.s.File) }
	for dec.More() {
		if dec.Byte() == recPinned {
			if d.pinned >= len(d.log.pinned) {
				dec.Fail()
				break
			}
			out = append(out, d.whole(d.log.pinned[d.pinned]))
			d.pinned++
			continue
		}
		fd := d.next()
		flags := dec.Byte()
		fd.Signal, fd.Severity = checks.Signal(dec.Byte()), checks.Severity(dec.Byte())
		fd.Rule = str()
		fd.Message = str()
		fd.File = str()
		fd.Line = dec.Int()
		fd.Session = str()
		fd.Seq = dec.Varint()
		fd.Subject = str()
		fd.Also = dec.Int()
		if n := dec.Len(); n > 0 {
			fd.Related = make([]checks.Location, n)
			for j := range fd.Related {
				l := &fd.Related[j]
				l.File = str()
				l.Line = dec.Int()
				l.Message = str()
			}
		}
		if flags&hasExchange != 0 {
			if len(d.ex) == 0 {
				dec.Fail()
				break
			}
			ex := &d.ex[0]
			d.ex = d.ex[1:]
			ex.From = session.Direction(dec.Byte())
			ex.Method = str()
			ex.Name = str()
			ex.ID = str()
			ex.Line = dec.Int()
			ex.Sent = dec.Time()
			ex.Answer = str()
			ex.Answered = dec.Time()
			ex.Note = str()
			fd.Exchange = ex
		}
		if flags&hasCause != 0 {
			c := &checks.Cause{}
			c.Rule, c.What, c.File = str(), str(), str()
			c.Line = dec.Int()
			fd.CausedBy = c
		}
		if flags&hasCall != 0 {
			if k := dec.Int(); k >= 0 && k < len(d.log.calls) {
				finish(fd.Exchange, d.log.calls[k].call())
			} else {
				dec.Fail()
			}
		}
		out = append(out, fd)
	}
	if dec.Err() != nil {
		d.err = errLog
	}
	return out
}
