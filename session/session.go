package session

import (
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"slices"
	"sort"
	"strings"
)

// Limits that keep a session's memory bounded on captures of any size.
const (
	// ReorderWindow is how many frames of a session an answer with no
	// request waits for its request, which a recorder may write after it.
	ReorderWindow = 64
	// MaxParkedOperations is how many multi round-trip operations may wait
	// for a retry at once; older ones are retired and counted.
	MaxParkedOperations = 64
	// recentCalls is how many finished calls of a capture file are
	// remembered to recognise a duplicate answer.
	recentCalls = 4096
	// maxCancelled is how many cancelled, unanswered calls are remembered to
	// recognise a late answer.
	maxCancelled = 4096
	// maxTasks is how many tasks are followed at once.
	maxTasks = 4096
	// maxHeldProbes is how many rejected version probes wait at once for
	// the client's next request; past it the oldest is decided early.
	maxHeldProbes = 8
	// MaxOpenCalls is how many requests of a session are followed while
	// unanswered; past it the oldest is dropped and counted (DroppedCalls),
	// so a stream of requests nobody answers cannot grow without bound.
	MaxOpenCalls = 10_000
)

// releaseEmptyAfter is how many open calls a session's maps may have held
// before they are released when they empty.
const releaseEmptyAfter = 64

// ModernRevision is the first revision without the initialize handshake.
const ModernRevision = "2026-07-28"

// Session is one recorded conversation between a client and a server.
type Session struct {
	File      string
	ID        string
	Label     string // the last non-empty server_label
	Transport string
	FirstLine int

	// Revision is the legacy revision negotiated by initialize ("" if none
	// was captured). Requests may declare their own, see Call.Revision.
	Revision string

	Frames            int64
	MissingFrames     int64 // frames lost to forward seq gaps
	RetiredOperations int   // parked operations dropped past MaxParkedOperations
	DroppedCalls      int   // open requests dropped past MaxOpenCalls
	FirstDropped      *Call // the oldest of them

	highestSeq int64
	initCall   *Call
	initOffer  string // protocolVersion the initialize request offered
	declared   string // revision of the last successful request that declared one
	declaredBy *Call  // that request

	open      map[callKey]*Call // requests not answered yet (cancelled ones included)
	openPeak  int               // the most calls open at once since open was made
	openByID  map[idKey][]*Call // the same calls across connections
	openOrder []*Call           // open calls oldest first; closed ones are skipped and compacted away
	unpaired  [3]int            // per request direction: dropped calls whose answer may still come
	shared    *fileState        // what the sessions of one file share
	cancelled []*Call           // cancelled calls still open, oldest first
	lastReq   map[string]*Call  // the last client request on each HTTP connection
	orphans   []orphan          // answers waiting for their request
	retries   []orphan          // multi round-trip retries waiting for the result that issued their state
	after     []pendingLink     // retries a result explained, joined and delivered right after it
	probes    []*Frame          // rejected version probes' answers, held until the next client request
	probeOn   map[string]*Call  // the unanswered server/discover probe on each HTTP connection
	parked    []*Operation
	tasks     map[string]*Task
	taskOrder []string
	batchRun  [3]struct {
		on   bool
		conn string
	} // per direction: whether the last frame was a batch element, and on which connection
	credits [3]credits // damaged, truncated or dropped frames per direction: each may explain one unmatched answer or one unanswered request

	emit func(*Frame)
}

type callKey struct {
	dir  Direction
	id   string
	conn string
}

type idKey struct {
	dir Direction
	id  string
}

// pendingLink is a held retry and the operation it continues.
type pendingLink struct {
	op *Operation
	f  *Frame
}

// orphan is a frame held back for the reorder window.
type orphan struct {
	f       *Frame
	expires int64
}

// fileState is shared by the sessions of one capture file, so that its
// bounds hold however many sessions the file interleaves.
type fileState struct {
	recent    *finishedCalls
	heldBytes int // bytes of the answers held for the reorder window
	maxHeld   int // Limits.MaxHeldBytes: past it the oldest are decided early
}

func newFileState(maxHeld int) *fileState {
	return &fileState{recent: newFinishedCalls(), maxHeld: maxHeld}
}

func newSession(file, id string, line int, shared *fileState, emit func(*Frame)) *Session {
	// The maps are made on first use: a file may interleave many sessions.
	return &Session{File: file, ID: id, FirstLine: line, shared: shared, emit: emit}
}

// add correlates f and emits it, together with any held frame it releases.
func (s *Session) add(f *Frame) {
	s.Frames++
	if f.Label != "" {
		s.Label = f.Label
	}
	if s.Transport == "" {
		s.Transport = f.Transport
	}
	if f.Seq > s.highestSeq {
		f.GapBefore = f.Seq - s.highestSeq - 1
		s.MissingFrames += f.GapBefore
		// a dropped frame may have been the request of an answer to come,
		// or the answer of a request; a huge gap excuses no more than a window
		s.credits[ClientToServer].add(2*s.Frames-1, int(min(f.GapBefore, ReorderWindow)))
		s.credits[ServerToClient].add(2*s.Frames-1, int(min(f.GapBefore, ReorderWindow)))
		s.highestSeq = f.Seq
	} else if f.Element <= 1 && f.hasFault(BadSeq) {
		s.highestSeq++ // an unreadable seq stands for the next one, so its frame is not counted as dropped
	}
	s.markBatch(f)
	s.expireRetries(false)
	s.expireOrphans(false)
	if k := f.Msg.Shape(); f.Truncated && f.IsProtocol() && (k == NoMessage || k == Invalid) {
		s.truncated(f)
	}
	switch f.Msg.Shape() {
	case Request:
		s.request(f)
		return // request emits itself and whatever it releases
	case Notification:
		s.notification(f)
	case Response:
		if !s.response(f) {
			return // held
		}
	case Invalid:
		// A malformed answer (an error without an integer code, say) is still
		// the answer its id names: the request is not left pending as well.
		if m := &f.Msg; m.HasID && m.Method == "" && !f.HTTPErrorBody() {
			if c := s.find(f.Direction.Opposite(), m.ID, f.ConnID, false); c != nil {
				s.settle(f, c, Failed)
			}
		}
	}
	switch {
	case f.HTTPErrorBody():
		if s.pairExchange(f) {
			if s.holdProbe(f) {
				return
			}
		} else if f.Status == 405 {
			f.Pairing = Plumbing // the client's GET or DELETE: the stream is not offered
		}
	case f.Msg.Kind == NoMessage && isPlumbing(f):
		f.Pairing = Plumbing
	}
	s.out(f)
}

// out delivers f, then the held retries it explained. They join their
// operations only now, so that f is seen as in capture order: its call
// parked, the retry not linked yet.
func (s *Session) out(f *Frame) {
	s.emit(f)
	for i, l := range s.after {
		s.join(l.op, l.f.Call)
		s.emit(l.f)
		s.after[i] = pendingLink{}
	}
	s.after = s.after[:0]
}

// markBatch finds where batches start: an array's first element, or the
// first of consecutive "batch" envelopes in one direction on one connection.
func (s *Session) markBatch(f *Frame) {
	if !f.IsProtocol() {
		return
	}
	prev := &s.batchRun[f.Direction]
	switch {
	case f.Element > 0:
		f.BatchStart = f.Element == 1
	case f.Batch:
		f.BatchStart = !(prev.on && prev.conn == f.ConnID)
	}
	// an array's elements are a batch of their own: "batch" envelopes
	// after one start another
	prev.on, prev.conn = f.Batch && f.Element == 0, f.ConnID
}

// finish emits everything still held; the session has no more frames.
func (s *Session) finish() {
	s.releaseProbes(false)
	s.expireRetries(true)
	s.expireOrphans(true)
	switch {
	case s.Revision != "":
	case s.initOffer != "":
		s.Revision = s.initOffer // initialize was never answered
	default:
		s.Revision = s.declared
	}
}

func (s *Session) request(f *Frame) {
	m := &f.Msg
	if f.Direction == ClientToServer {
		s.releaseProbes(m.Method == "initialize")
	}
	if m.ID.Kind() == IDNull {
		f.Pairing = Untracked
		s.out(f)
		return
	}
	c := &Call{
		Dir: f.Direction, ID: m.ID, Conn: f.ConnID, Method: m.Method,
		File: f.File, Line: f.Line, Seq: f.Seq, Start: f.Time,
		pos: 2 * s.Frames,
	}
	if r := m.req; r != nil {
		if strings.HasPrefix(m.Method, "resources/") {
			c.Name = r.URI
		} else {
			c.Name = r.Name
		}
		c.TaskRef = r.TaskID
	}
	if v, from := f.declaredRevision(); v != "" {
		c.Revision, c.RevisionSource = v, from
	} else if v, of := s.sessionRevision(f); v != "" {
		c.Revision, c.RevisionSource, c.RevisionOf = v, RevisionFromSession, of
	}
	f.Call, f.Pairing = c, Opened
	k := callKey{c.Dir, c.ID.tok, c.Conn}
	if old := s.open[k]; old != nil {
		s.releaseRetry(old)
		old.State = Superseded
		s.close(old)
		c.Superseded, f.Pairing = old, Reused
	}
	switch m.Method {
	case "initialize":
		if f.Direction == ClientToServer {
			s.initCall = c
			if m.req != nil && s.initOffer == "" {
				s.initOffer = m.req.ProtocolVersion
			}
		}
	case "subscriptions/listen":
		c.State = Streaming
	case "server/discover":
		c.probe = f.Direction == ClientToServer
	}
	early := s.link(c, m.req) && f.Direction == ClientToServer
	if s.open == nil {
		s.open = map[callKey]*Call{}
	}
	s.open[k] = c
	s.openPeak = max(s.openPeak, len(s.open))
	s.openOrder = append(s.openOrder, c)
	if len(s.open) > MaxOpenCalls {
		s.dropOldest()
	}
	if len(s.openOrder) > 2*len(s.open)+releaseEmptyAfter {
		// answered calls leave openOrder here, in amortised constant time
		s.openOrder = slices.DeleteFunc(s.openOrder, func(c *Call) bool { return !s.isOpen(c) })
	}
	if c.Conn != "" { // only HTTP has other connections to look on
		if s.openByID == nil {
			s.openByID, s.lastReq = map[idKey][]*Call{}, map[string]*Call{}
		}
		ik := idKey{c.Dir, c.ID.tok}
		c.byIDPos = len(s.openByID[ik])
		s.openByID[ik] = append(s.openByID[ik], c)
		if f.Direction == ClientToServer {
			s.lastReq[f.ConnID] = c
		}
		if c.probe {
			if s.probeOn == nil {
				s.probeOn = map[string]*Call{}
			}
			s.probeOn[c.Conn] = c
		}
	}
	if early {
		s.holdRetry(f)
	} else {
		s.out(f)
	}
	s.adoptOrphans(c)
}

func (s *Session) notification(f *Frame) {
	m := &f.Msg
	switch m.Method {
	case "notifications/cancelled":
		if m.req == nil || len(m.req.RequestID) == 0 {
			return
		}
		c := s.find(f.Direction, MakeID(m.req.RequestID), f.ConnID, true)
		if c == nil {
			return
		}
		s.releaseRetry(c)
		f.Call, f.Pairing = c, Cancelling
		if c.State == Pending {
			c.State = Cancelled
			c.listedCancelled = true
			s.cancelled = append(s.cancelled, c)
			if len(s.cancelled) > maxCancelled {
				s.close(s.cancelled[0])
			}
		}
	case "notifications/tasks/status", "notifications/tasks":
		if m.req == nil {
			return
		}
		id, status := m.req.TaskID, m.req.Status
		if t := mcp.DecodeTask(m.req.Task); t.TaskID != "" {
			id, status = t.TaskID, t.Status
		}
		s.taskStatus(f, id, status)
	}
}

// response correlates an answer; false means it is held for later.
func (s *Session) response(f *Frame) bool {
	m := &f.Msg
	reqDir := f.Direction.Opposite()
	if m.ID.Kind() == IDAbsent || m.ID.Kind() == IDNull {
		if reqDir == ClientToServer && s.pairExchange(f) {
			return s.answered(f)
		}
		f.Pairing = Unmatched
		if f.Status == 405 && f.isHTTP() {
			f.Pairing = Plumbing // an id-less error for the client's GET or DELETE
		}
		return true
	}
	if c := s.find(reqDir, m.ID, f.ConnID, false); c != nil {
		f.Call = c
		return s.answered(f)
	}
	// Its request may still come (recorders write fast answers first, and
	// ids may be reused once answered): a duplicate is decided when the
	// window closes.
	s.hold(f)
	return false
}

// answered records f as the answer to f.Call; false means it is held.
func (s *Session) answered(f *Frame) bool {
	c := f.Call
	s.releaseRetry(c)
	c.Answers++
	c.End, c.EndLine = f.Time, f.Line
	wasCancelled := c.State == Cancelled
	s.close(c)
	s.remember(c)
	f.Pairing = Answered
	if wasCancelled {
		f.Pairing = Late
		return true
	}
	if c.Op != nil && !c.Start.IsZero() && !f.Time.IsZero() {
		c.Op.ServerTime += f.Time.Sub(c.Start)
	}
	m := &f.Msg
	failed := m.Error != nil || (m.res != nil && m.res.IsError) || (m.Kind == NoMessage && f.Status >= 400)
	c.State = Completed
	if failed {
		c.State = Failed
	} else if c.Revision != "" && s.initCall == nil && c.RevisionSource != RevisionFromSession {
		s.declared, s.declaredBy = c.Revision, c // a handshake-less (2026-07-28) session's revision
	}
	if m.res != nil {
		s.result(f, c)
	}
	return !s.holdProbe(f)
}

// result follows what a result starts or ends: the negotiated revision, a
// parked operation, a task (an isError tasks/result ends its task too).
func (s *Session) result(f *Frame, c *Call) {
	r := f.Msg.res
	if c == s.initCall && r.ProtocolVersion != "" {
		s.Revision = NormalizeRevision(r.ProtocolVersion)
	}
	if !r.IsError {
		s.learnFromDiscover(f, c)
	}
	rt, _ := r.ResultTypeString()
	switch {
	case rt == "input_required":
		s.park(c, r)
	case c.Op != nil:
		c.Op.Parked = false
	}
	if r.Task != nil && r.Task.TaskID != "" && (rt == "" || rt == "task") && !strings.HasPrefix(c.Method, "tasks/") {
		s.startTask(f, c, r.Task)
		return
	}
	if strings.HasPrefix(c.Method, "tasks/") && c.TaskRef != "" {
		status := r.Status
		if r.Task != nil && r.Task.Status != "" {
			status = r.Task.Status
		}
		if c.Method == "tasks/result" {
			if t := s.tasks[c.TaskRef]; t != nil && r.IsError {
				t.ResultError = true
				f.Task = t
			}
			if status == "" {
				status = "completed"
			}
		}
		s.taskStatus(f, c.TaskRef, status)
	}
}

// pairExchange pairs an answer that carries no usable id (an HTTP error
// status, an error reply with a null or missing id) with the request of the
// same HTTP exchange: the last client request on that connection, while it
// is still unanswered. An unanswered server/discover probe there takes
// precedence over an initialize recorded after it (the recorder may write
// the fallback before the probe's rejection).
func (s *Session) pairExchange(f *Frame) bool {
	if f.ConnID == "" {
		return false
	}
	c := s.lastReq[f.ConnID]
	if c == nil || c.State != Pending {
		return false
	}
	if p := s.probeOn[f.ConnID]; p != nil && p.State == Pending && c.Method == "initialize" && c.Line > p.Line {
		c = p
	}
	f.Call = c
	if f.Msg.Shape() != Response {
		s.settle(f, c, Failed)
	}
	return true
}

// settle closes c with an answer that carries no JSON-RPC result or error
// to judge (an HTTP error, a malformed or truncated answer): the state is
// decided by the caller.
func (s *Session) settle(f *Frame, c *Call, state CallState) {
	s.releaseRetry(c)
	f.Call, f.Pairing = c, Answered
	c.Answers++
	c.State, c.End, c.EndLine = state, f.Time, f.Line
	s.close(c)
	s.remember(c)
}

// find returns the open call of dir with id: on conn first, then on any
// connection of the session when exactly one candidate exists. With
// includeRecent, finished calls are searched too (a cancellation may race
// the answer).
func (s *Session) find(dir Direction, id ID, conn string, includeRecent bool) *Call {
	if c := s.open[callKey{dir, id.tok, conn}]; c != nil {
		return c
	}
	if cs := s.openByID[idKey{dir, id.tok}]; len(cs) == 1 {
		return cs[0]
	}
	if includeRecent {
		return s.findRecent(dir, id, conn)
	}
	return nil
}

func (s *Session) findRecent(dir Direction, id ID, conn string) *Call {
	return s.shared.recent.find(s, dir, id, conn)
}

// close removes c from the open indexes.
func (s *Session) close(c *Call) {
	k := callKey{c.Dir, c.ID.tok, c.Conn}
	if s.open[k] == c {
		delete(s.open, k)
		if len(s.open) == 0 {
			clear(s.openOrder)
			s.openOrder = s.openOrder[:0]
		}
		if len(s.open) == 0 && s.openPeak > releaseEmptyAfter {
			// a Go map keeps its largest size: a burst of concurrent calls
			// would hold its memory for the rest of the session
			s.open, s.openByID, s.openPeak, s.openOrder = nil, nil, 0, nil
		}
	}
	ik := idKey{c.Dir, c.ID.tok}
	if cs := s.openByID[ik]; c.byIDPos < len(cs) && cs[c.byIDPos] == c {
		// swap the last one into c's place: many concurrent calls may share
		// an id across connections, and this must not be quadratic
		last := cs[len(cs)-1]
		cs[c.byIDPos], last.byIDPos = last, c.byIDPos
		if cs = cs[:len(cs)-1]; len(cs) == 0 {
			delete(s.openByID, ik)
		} else {
			s.openByID[ik] = cs
		}
	}
	if c.listedCancelled {
		c.listedCancelled = false
		if i := slices.Index(s.cancelled, c); i >= 0 {
			s.cancelled = slices.Delete(s.cancelled, i, i+1)
		}
	}
	if s.lastReq[c.Conn] == c {
		delete(s.lastReq, c.Conn) // only a pending request pairs with its exchange
	}
	if c.probe && s.probeOn[c.Conn] == c {
		delete(s.probeOn, c.Conn)
	}
}

func (s *Session) remember(c *Call) { s.shared.recent.add(s, c) }

// isOpen reports whether c is still among the open calls.
func (s *Session) isOpen(c *Call) bool { return s.open[callKey{c.Dir, c.ID.tok, c.Conn}] == c }

// dropOldest stops following the oldest open call: past MaxOpenCalls a
// session would otherwise hold every request nobody answers. It is
// counted, and an answer that comes for it later is not unmatched.
func (s *Session) dropOldest() {
	i := 0
	for i < len(s.openOrder) && !s.isOpen(s.openOrder[i]) {
		i++
	}
	if i == len(s.openOrder) {
		return
	}
	c := s.openOrder[i]
	s.releaseRetry(c)
	s.close(c)
	s.DroppedCalls++
	if s.FirstDropped == nil {
		s.FirstDropped = c
	}
	s.unpaired[c.Dir]++
	clear(s.openOrder[:i+1])
	s.openOrder = s.openOrder[i+1:]
}

// truncated makes what it can of a frame the recorder cut short. An answer
// whose own id survived closes its call. A frame that shows it was a
// notification explains nothing. Any other may have been the request of an
// answer without one, or the answer of a request without one: it excuses
// one of either in its direction (credits).
func (s *Session) truncated(f *Frame) {
	text := []byte(f.Text)
	if f.Raw != nil {
		text = f.Raw
	}
	var id []byte
	method, notification := false, false
	jsonscan.Top(text, func(name string, val []byte) {
		switch name {
		case "id":
			id = val
		case "method":
			method = true
			m, _ := jsonscan.String(val)
			notification = strings.HasPrefix(m, "notifications/")
		}
	})
	switch {
	case notification && id == nil:
		return // a notification (a request may have lost its id: SDKs write it last)
	case id != nil && !method:
		if c := s.find(f.Direction.Opposite(), MakeID(id), f.ConnID, false); c != nil {
			s.settle(f, c, Completed) // its outcome was cut off
			return
		}
	}
	s.credits[f.Direction].add(2*s.Frames, 1)
}

// Unfinished lists what has no answer at the end of the capture: pending
// requests, parked operations and running tasks, in capture order. A
// request whose answer may be a frame the capture damaged, truncated or
// dropped is not listed (credits.go).
func (s *Session) Unfinished() []*Call {
	var out []*Call
	for _, c := range s.open {
		if c.State == Pending {
			out = append(out, c)
		}
	}
	excused := [3]map[*Call]bool{}
	for _, d := range []Direction{ClientToServer, ServerToClient} {
		var sent []*Call
		for _, c := range out {
			if c.Dir == d {
				sent = append(sent, c)
			}
		}
		excused[d] = s.credits[d.Opposite()].excused(sent)
	}
	out = slices.DeleteFunc(out, func(c *Call) bool { return excused[c.Dir][c] })
	for _, op := range s.parked {
		out = append(out, op.Last)
	}
	for _, t := range s.tasks {
		if !t.Terminal && t.Call.State == TaskRunning {
			out = append(out, t.Call)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].ID.tok < out[j].ID.tok
	})
	return out
}
