package engine

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/internal/suggest"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
)

// Assertions are the per-session expectations of §5 of the spec.
type Assertions struct {
	ExpectTools []string
	ForbidTools []string
	MaxDuration *time.Duration
	// ToolMaxDuration is the budget of the calls of one tool, by name: it
	// replaces MaxDuration for that tool.
	ToolMaxDuration   map[string]time.Duration
	MaxServerDuration *time.Duration
	MaxRoundTrips     int // 0: not asserted
}

// assertTracker follows one session's tool calls for the assertions. It
// keeps only what the assertions need: names asked about, counts and the
// worst offender of each budget.
type assertTracker struct {
	a          *Assertions
	called     map[string]int             // asserted tool name -> calls
	firstCall  map[string]checks.Location // asserted tool name -> first call
	others     []string                   // tools called that no assertion names, at most maxOtherTools
	duration   budget
	tools      map[string]*budget // ToolMaxDuration's, by tool name
	server     budget
	roundTrips budget
}

// budget counts what went over a limit and remembers the worst of it.
type budget struct {
	over      int
	worst     float64
	worstCall string
	worstAt   string
}

// observe keeps value as the worst if it is.
func (b *budget) observe(value float64, call *session.Call) {
	if b.worstCall == "" || value > b.worst {
		b.worst, b.worstCall = value, call.Label()
		b.worstAt = fmt.Sprintf("%s:%d", call.File, call.Line)
	}
}

func newAssertTracker(a *Assertions) *assertTracker {
	t := &assertTracker{a: a}
	if len(a.ExpectTools)+len(a.ForbidTools) > 0 { // nothing to remember otherwise
		t.called, t.firstCall = map[string]int{}, map[string]checks.Location{}
		for _, n := range append(append([]string(nil), a.ExpectTools...), a.ForbidTools...) {
			t.called[n] = 0
		}
	}
	return t
}

func (t *assertTracker) frame(f *session.Frame) {
	if task := f.Task; task != nil && task.Terminal && f.Line == task.Call.EndLine && task.Status != "cancelled" {
		t.finished(task.Call) // a task's request ends with the task's terminal status
	}
	if m := &f.Msg; m.Kind == session.Request && m.Method == "tools/call" && f.Direction == session.ClientToServer {
		if call, ok := f.View().CallTool(); ok {
			t.called1(call.Name, f) // any tools/call counts, even one with an unusable id
		}
	}
	c := f.Call
	if c == nil || c.Dir != session.ClientToServer {
		return
	}
	switch f.Pairing {
	case session.Opened, session.Reused:
		if op := c.Op; op != nil && t.a.MaxRoundTrips > 0 && op.Requests > t.a.MaxRoundTrips {
			if op.Requests == t.a.MaxRoundTrips+1 { // requests grow one at a time: count each operation once
				t.roundTrips.over++
			}
			t.roundTrips.observe(float64(op.Requests), op.First)
		}
	case session.Answered:
		if c.Task == nil && (c.State == session.Completed || c.State == session.Failed) {
			t.finished(c) // a task's request is measured at the task's end, above
		}
	case session.Late:
		t.finished(c) // cancelled, but answered: it did take that long
	}
}

// maxOtherTools bounds the names of tools called that no assertion names,
// kept for a did-you-mean.
const maxOtherTools = 256

// called1 counts a tools/call of an asserted tool, and remembers the
// names of others, for a slip of --expect-tool.
func (t *assertTracker) called1(name string, f *session.Frame) {
	if _, asked := t.called[name]; !asked && len(t.a.ExpectTools) > 0 && len(t.others) < maxOtherTools && !slices.Contains(t.others, name) {
		t.others = append(t.others, strings.Clone(name)) // the frame's bytes are reused
	}
	if n, asked := t.called[name]; asked {
		if n == 0 {
			t.firstCall[name] = checks.Location{File: f.File, Line: f.Line}
		}
		t.called[name] = n + 1
	}
}

// finished measures a tool call that reached its final answer.
func (t *assertTracker) finished(c *session.Call) {
	if c.Method != "tools/call" {
		return
	}
	d, ok := c.Duration()
	if !ok {
		return
	}
	first, server := c, d
	if c.Op != nil { // a multi round-trip operation: name its first request
		first, server = c.Op.First, c.Op.ServerTime
	}
	if max, ok := t.a.ToolMaxDuration[c.Name]; ok {
		b := t.tools[c.Name]
		if b == nil {
			if t.tools == nil {
				t.tools = map[string]*budget{}
			}
			b = &budget{}
			t.tools[c.Name] = b
		}
		if d > max {
			b.over++
			b.observe(float64(d), first)
		}
	} else if max := t.a.MaxDuration; max != nil && d > *max {
		t.duration.over++
		t.duration.observe(float64(d), first)
	}
	if max := t.a.MaxServerDuration; max != nil && server > *max {
		t.server.over++
		t.server.observe(float64(server), first)
	}
}

// results are the outcomes in session (its id, for messages).
func (t *assertTracker) results(session string) []result.Assertion {
	var out []result.Assertion
	for _, name := range t.a.ExpectTools {
		a := result.Assertion{Name: "expect-tool", Arg: name, Passed: t.called[name] > 0}
		if a.Passed {
			a.Message = fmt.Sprintf("tool %q was called %d %s", name, t.called[name], plural(t.called[name], "time", "times"))
		} else {
			a.Message = fmt.Sprintf("tool %q was never called in session %s", name, session)
			if near := suggest.Closest(name, t.others); near != "" {
				a.Message += fmt.Sprintf("; did you mean %q? it was called", near)
			}
		}
		out = append(out, a)
	}
	for _, name := range t.a.ForbidTools {
		n := t.called[name]
		a := result.Assertion{Name: "forbid-tool", Arg: name, Passed: n == 0}
		if a.Passed {
			a.Message = fmt.Sprintf("tool %q was not called", name)
		} else {
			at := t.firstCall[name]
			a.Message = fmt.Sprintf("forbidden tool %q was called %d %s, first at %s:%d", name, n, plural(n, "time", "times"), at.File, at.Line)
		}
		out = append(out, a)
	}
	if max := t.a.MaxDuration; max != nil {
		out = append(out, t.duration.assertion("max-duration", max.String(), "took longer than", durationText))
	}
	tools := make([]string, 0, len(t.a.ToolMaxDuration))
	for name := range t.a.ToolMaxDuration {
		tools = append(tools, name)
	}
	sort.Strings(tools)
	for _, name := range tools {
		b := t.tools[name]
		if b == nil {
			b = &budget{}
		}
		max := t.a.ToolMaxDuration[name]
		a := b.assertion("max-duration", max.String(), "of "+strconv.Quote(name)+" took longer than", durationText)
		a.Arg = name + "=" + max.String()
		if b.over == 0 {
			a.Message = fmt.Sprintf("no tool call of %q took longer than %s", name, max)
		}
		out = append(out, a)
	}
	if max := t.a.MaxServerDuration; max != nil {
		out = append(out, t.server.assertion("max-server-duration", max.String(), "spent longer in the server than", durationText))
	}
	if n := t.a.MaxRoundTrips; n > 0 {
		out = append(out, t.roundTrips.assertion("max-round-trips", strconv.Itoa(n), "used more requests than",
			func(v float64) string { return fmt.Sprintf("used %d requests", int(v)) }))
	}
	for i := range out {
		out[i].Message = secrets.Mask(out[i].Message) // a tool name from the capture is text like any other
	}
	return out
}

func (b *budget) assertion(name, limit, verb string, show func(float64) string) result.Assertion {
	a := result.Assertion{Name: name, Arg: limit, Passed: b.over == 0}
	if a.Passed {
		a.Message = fmt.Sprintf("no tool call %s %s", verb, limit)
		return a
	}
	a.Message = fmt.Sprintf("%d tool %s %s %s; the worst, %s at %s, %s",
		b.over, plural(b.over, "call", "calls"), verb, limit, b.worstCall, b.worstAt, show(b.worst))
	return a
}

func durationText(v float64) string {
	return "took " + time.Duration(v).Round(time.Millisecond).String()
}
