package engine

import (
	"container/heap"
	"math"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
)

// callLog records what a session's requests did, for the reports that draw
// them (result.Calls), within fixed bounds: a session of a million calls
// keeps the calls in flight it has room for (maxOpenCalls), the notable
// ones and the slowest of the rest, and one histogram per tool. The calls
// it keeps are charged to the run's callBudget, shared by the open
// sessions, so that many sessions open at once hold no more between them.
type callLog struct {
	budget  *callBudget
	held    int // bytes charged to the budget
	out     result.Calls
	open    map[*session.Call]*openCall
	tokens  map[tokenRef]*openCall // progress tokens of the calls in open
	slow    slowest
	notable []int // the cost of each call in out.Drawn
	tools   map[string]*toolAgg
	other   *toolAgg // the tools past result.MaxToolRows
	opened  int64
	drawn   int64
	flagged map[*session.Call]bool // cancellations counted, while open
}

// maxOpenCalls bounds the calls in flight whose request excerpt is kept;
// past it a call is still counted, timed and tabled, not drawn.
const maxOpenCalls = 1024

// maxExcerptScan is how much of a message is masked before the excerpt is
// cut from it, so that a secret across the cut is masked whole.
const maxExcerptScan = 4 * result.MaxExcerpt

type tokenRef struct {
	dir   session.Direction
	token string
}

// openCall is a request in flight: what is kept of it until its answer.
type openCall struct {
	rec   result.Call
	cost  int
	token tokenRef
}

// callBudget is how many bytes of kept calls the open sessions of a run
// may still hold; a session returns what it held when it ends (its result
// is then the collector's to keep or spill).
type callBudget struct{ left int }

// DefaultCallBytes is the run's callBudget.
const DefaultCallBytes = 8 << 20

func (l *callLog) take(n int) bool {
	if l.budget.left < n {
		return false
	}
	l.budget.left -= n
	l.held += n
	return true
}

func (l *callLog) give(n int) {
	l.budget.left += n
	l.held -= n
}

// callCost estimates the bytes a kept call holds.
func callCost(c *result.Call) int {
	return 224 + len(c.Method) + len(c.Name) + len(c.ID) + len(c.Request) + len(c.Answer)
}

func newCallLog(b *callBudget) *callLog {
	return &callLog{budget: b, open: map[*session.Call]*openCall{}, tokens: map[tokenRef]*openCall{}, tools: map[string]*toolAgg{}, flagged: map[*session.Call]bool{}}
}

// frame sees every frame of the session after the rules; a nil log (the
// run records no calls) sees nothing.
func (l *callLog) frame(f *session.Frame) {
	if l == nil {
		return
	}
	c := f.Call
	switch {
	case c != nil && (f.Pairing == session.Opened || f.Pairing == session.Reused):
		l.request(f, c)
	case c != nil && (f.Pairing == session.Answered || f.Pairing == session.Late):
		l.answer(f, c)
	case c != nil && f.Pairing == session.Cancelling:
		if !l.flagged[c] {
			l.flagged[c] = true
			l.out.Cancelled++
		}
		if o := l.open[c]; o != nil {
			o.rec.Cancelled = true
		}
	case f.Msg.Kind == session.Notification && f.Msg.Method == "notifications/progress":
		tok := jsonscan.Member(f.Msg.Params, "progressToken")
		if tok == nil {
			return
		}
		if o := l.tokens[tokenRef{f.Direction.Opposite(), string(tok)}]; o != nil {
			o.rec.Progress++
			l.out.Progress++
		}
	}
}

func (l *callLog) request(f *session.Frame, c *session.Call) {
	l.opened++
	l.tool(c).calls++
	l.axis(c.Start)
	if len(l.open) >= maxOpenCalls {
		return
	}
	o := &openCall{rec: result.Call{
		Method: c.Method, Name: c.Name, ID: c.ID.String(), From: c.Dir.Sender(), Line: c.Line,
		Start: c.Start, Duration: -1,
	}}
	o.rec.Request, o.rec.Clipped = excerpt(f.Raw)
	if o.cost = callCost(&o.rec); !l.take(o.cost) {
		return // the run holds enough: counted, not drawn
	}
	if tok := f.View().Meta().ProgressToken; len(tok) > 0 {
		o.token = tokenRef{c.Dir, string(tok)}
		if _, taken := l.tokens[o.token]; !taken {
			l.tokens[o.token] = o
		}
	}
	l.open[c] = o
}

func (l *callLog) answer(f *session.Frame, c *session.Call) {
	o := l.open[c]
	if o == nil && f.Pairing == session.Late {
		return // answered already, or never kept
	}
	t := l.tool(c)
	failed := c.State == session.Failed
	if failed {
		l.out.Failed++
		t.errors++
	}
	t.answered++
	var d time.Duration = -1
	if !c.Start.IsZero() && !f.Time.IsZero() {
		d = max(f.Time.Sub(c.Start), 0)
		t.add(d)
	}
	l.axis(f.Time)
	if o == nil {
		return // past maxOpenCalls: counted, not drawn
	}
	l.close(c, o)
	o.rec.Answered, o.rec.AnswerLine, o.rec.Duration, o.rec.Failed = true, f.Line, d, failed
	o.rec.Outcome = answerText(f)
	switch {
	case c.State == session.Parked:
		o.rec.Outcome = "input_required"
	case f.Pairing == session.Late:
		o.rec.Outcome += " (after its cancellation)"
	}
	if a, clipped := excerpt(f.Raw); l.take(len(a)) {
		o.rec.Answer, o.cost = a, o.cost+len(a)
		o.rec.Clipped = o.rec.Clipped || clipped
	}
	l.keep(o.rec, o.cost)
}

func (l *callLog) close(c *session.Call, o *openCall) {
	delete(l.open, c)
	delete(l.flagged, c)
	if l.tokens[o.token] == o {
		delete(l.tokens, o.token)
	}
}

// keep draws a call whose cost is charged: a notable one while there is
// room for it, else among the slowest; a call not kept is refunded.
func (l *callLog) keep(rec result.Call, cost int) {
	if rec.Notable() {
		if len(l.out.Drawn) < result.MaxNotableCalls {
			l.out.Drawn = append(l.out.Drawn, rec)
			l.notable = append(l.notable, cost)
			return
		}
		l.give(cost)
		return
	}
	switch {
	case rec.Duration < 0:
		l.give(cost) // untimed and unremarkable: counted only
	case l.slow.Len() < result.MaxSlowCalls:
		heap.Push(&l.slow, kept{rec, cost})
	case rec.Duration > l.slow[0].rec.Duration:
		l.give(l.slow[0].cost)
		l.slow[0] = kept{rec, cost}
		heap.Fix(&l.slow, 0)
	default:
		l.give(cost)
	}
}

func (l *callLog) axis(t time.Time) {
	if t.IsZero() {
		return
	}
	if l.out.First.IsZero() || t.Before(l.out.First) {
		l.out.First = t
	}
	if t.After(l.out.Last) {
		l.out.Last = t
	}
}

// result is what the session's calls did, once it ended; nil when it made
// none.
func (l *callLog) result() *result.Calls {
	if l == nil || l.opened == 0 {
		return nil
	}
	calls := make([]*session.Call, 0, len(l.open))
	for c := range l.open {
		calls = append(calls, c)
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].Line < calls[j].Line })
	for _, c := range calls {
		o := l.open[c]
		switch {
		case o.rec.Cancelled:
			o.rec.Outcome = "cancelled before an answer"
		case c.State == session.Superseded:
			o.rec.Outcome = "its id was reused before an answer"
		case c.State == session.Streaming:
			o.rec.Outcome, o.rec.Answered = "a stream, open by design", true
		default:
			o.rec.Outcome = "never answered"
		}
		l.keep(o.rec, o.cost)
	}
	out := l.out
	out.Total = l.opened
	out.Unanswered = out.Total - l.answeredCount()
	for _, k := range l.slow {
		out.Drawn = append(out.Drawn, k.rec)
	}
	l.give(l.held) // the result holds them now, and the collector counts them
	sort.SliceStable(out.Drawn, func(i, j int) bool { return out.Drawn[i].Line < out.Drawn[j].Line })
	out.NotDrawn = out.Total - int64(len(out.Drawn))
	names := make([]string, 0, len(l.tools))
	for n := range l.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out.Tools = append(out.Tools, l.tools[n].stats(n))
	}
	if l.other != nil {
		out.Tools = append(out.Tools, l.other.stats(result.OtherTools))
	}
	return &out
}

// answeredCount is the calls that got a final answer or are streams.
func (l *callLog) answeredCount() int64 {
	var n int64
	for _, t := range l.tools {
		n += t.answered
	}
	if l.other != nil {
		n += l.other.answered
	}
	for c, o := range l.open {
		if c.State == session.Streaming && o != nil {
			n++
		}
	}
	return n
}

// tool is the row of c: its tool for tools/call, else its method.
func (l *callLog) tool(c *session.Call) *toolAgg {
	name := c.Method
	if c.Method == "tools/call" && c.Name != "" {
		name = "tools/call " + c.Name
	}
	if t := l.tools[name]; t != nil {
		return t
	}
	if len(l.tools) >= result.MaxToolRows {
		if l.other == nil {
			l.other = &toolAgg{}
		}
		return l.other
	}
	t := &toolAgg{}
	l.tools[name] = t
	return t
}

// excerpt is the start of a message, secrets masked, cut at a character
// boundary; clipped says it was cut.
func excerpt(raw []byte) (string, bool) {
	scan := raw[:min(len(raw), maxExcerptScan)]
	s := secrets.Mask(string(scan))
	clipped := len(raw) > len(scan)
	if len(s) > result.MaxExcerpt {
		cut := result.MaxExcerpt
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s, clipped = s[:cut], true
	}
	return s, clipped
}

// kept is a call drawn and what it costs.
type kept struct {
	rec  result.Call
	cost int
}

// slowest is a min-heap of calls by duration: its top is the fastest of
// the slowest kept.
type slowest []kept

func (h slowest) Len() int           { return len(h) }
func (h slowest) Less(i, j int) bool { return h[i].rec.Duration < h[j].rec.Duration }
func (h slowest) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slowest) Push(x any)        { *h = append(*h, x.(kept)) }
func (h *slowest) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// The latency histogram: bucket 0 holds durations under histBase, bucket i
// those in [histBase·g^(i-1), histBase·g^i), g = 1.1, so a percentile read
// from a bucket's geometric middle is within 5% of the true one; the last
// bucket (past about 10 hours) holds everything longer.
const (
	histBase    = 10 * time.Microsecond
	histGrowth  = 1.1
	histBuckets = 224
)

type toolAgg struct {
	calls, errors, answered, timed int64
	min, max                       time.Duration
	hist                           [histBuckets]uint32
}

func (t *toolAgg) add(d time.Duration) {
	if t.timed == 0 || d < t.min {
		t.min = d
	}
	t.timed++
	t.max = max(t.max, d)
	t.hist[bucket(d)]++
}

func bucket(d time.Duration) int {
	if d < histBase {
		return 0
	}
	i := 1 + int(math.Log(float64(d)/float64(histBase))/math.Log(histGrowth))
	return min(i, histBuckets-1)
}

// percentile is the p-th percentile (0 < p ≤ 1) of the timed calls.
func (t *toolAgg) percentile(p float64) time.Duration {
	if t.timed == 0 {
		return 0
	}
	rank := int64(math.Ceil(p * float64(t.timed)))
	var seen int64
	for i, n := range t.hist {
		seen += int64(n)
		if seen < rank {
			continue
		}
		if i == 0 {
			return t.min // under histBase: the fastest is close enough
		}
		lo := float64(histBase) * math.Pow(histGrowth, float64(i-1))
		return min(max(time.Duration(lo*math.Sqrt(histGrowth)), t.min), t.max)
	}
	return t.max
}

func (t *toolAgg) stats(name string) result.ToolStats {
	return result.ToolStats{Name: name, Calls: t.calls, Errors: t.errors, Timed: t.timed,
		P50: t.percentile(0.50), P95: t.percentile(0.95), Max: t.max}
}
