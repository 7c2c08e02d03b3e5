package session

import "time"

// CallState is where a request stands.
type CallState uint8

const (
	Pending     CallState = iota // sent, not answered
	Completed                    // answered with a result
	Failed                       // answered with a JSON-RPC error, an isError result or an HTTP error
	Cancelled                    // the requester cancelled it while it was pending
	Superseded                   // its id was reused while it was in flight
	Streaming                    // subscriptions/listen: open by design, never pending
	Parked                       // answered input_required; its operation waits for a retry
	TaskRunning                  // answered with a task handle; the task has not ended
)

var stateNames = [...]string{"pending", "completed", "failed", "cancelled", "superseded", "streaming", "parked", "task-running"}

func (s CallState) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "state?"
}

// Call is one request and what became of it.
type Call struct {
	Dir    Direction // the direction the request travelled
	ID     ID
	Conn   string
	Method string
	Name   string // tool or prompt name, or resource URI; "" when the method has none

	File  string
	Line  int
	Seq   int64
	Start time.Time

	Revision   string // the protocol revision the request is judged by ("" when unknown)
	RevisionOf *Call  // RevisionFromSession: the request whose answer taught the session its revision (nil when unknown)
	Answers    int    // answers seen, late and duplicate ones included

	End     time.Time // time of the final answer (or the task's terminal status)
	EndLine int

	Superseded *Call      // the in-flight call whose id this one reused
	Op         *Operation // the multi round-trip operation this request belongs to, if any
	Task       *Task      // the task this request created, if it was answered with a task handle
	TaskRef    string     // the task a tasks/* request is about

	// The small members share one word: a Call is allocated per request.
	State          CallState
	RevisionSource RevisionSource // where Revision was read

	probe           bool  // server/discover, a possible dual-era version probe
	held            bool  // an early multi round-trip retry whose request frame is held back
	listedCancelled bool  // in Session.cancelled
	byIDPos         int   // position in Session.openByID
	pos             int64 // where it was sent among the session's frames (credits.go)
}

// Label renders the call for messages: `tools/call "echo" (id 3)`.
func (c *Call) Label() string {
	s := c.Method
	if c.Name != "" {
		s += " " + quoteJSON(c.Name)
	}
	return s + " (id " + c.ID.String() + ")"
}

// Duration is the time from the request (or the start of its operation) to
// its final answer; ok is false when either end has no timestamp or the call
// has not finished.
func (c *Call) Duration() (d time.Duration, ok bool) {
	start := c.Start
	if c.Op != nil {
		start = c.Op.Start
	}
	if start.IsZero() || c.End.IsZero() {
		return 0, false
	}
	return c.End.Sub(start), true
}

// Finished reports a call whose final result was recorded: answered (a late
// answer after a cancellation included), not a task still running, not a
// multi round-trip hop waiting for (or followed by) a retry.
func (c *Call) Finished() bool {
	switch {
	case c.Answers == 0, c.State == Parked, c.State == TaskRunning:
		return false
	case c.Task != nil && !c.Task.Terminal:
		return false
	case c.Op != nil && c != c.Op.Last:
		return false // an input_required hop: the operation went on
	}
	return true
}

// Settled reports a call that nothing recorded later can change: finished,
// and neither a hop of a multi round-trip operation nor a task (the
// session only changes an open call, or an operation's or task's).
func (c *Call) Settled() bool {
	return c.Finished() && c.Op == nil && c.Task == nil
}

// Operation is a multi round-trip request (2026-07-28): the first request and
// every retry that carried requestState or inputResponses back.
type Operation struct {
	First      *Call
	Last       *Call
	Start      time.Time
	Requests   int           // round trips so far
	ServerTime time.Duration // each hop's request-to-answer time, summed
	Parked     bool          // the last hop answered input_required

	requestState *string
	inputKeys    string // sorted inputRequests keys, joined
}

// Task is a task a request created (2025-11-25 core tasks or the 2026-07-28
// tasks extension).
type Task struct {
	ID          string
	Call        *Call  // the request answered with the task handle
	Status      string // last status seen
	Terminal    bool   // completed, failed or cancelled
	ResultError bool   // its result (tasks/result) had isError: true
	End         time.Time
}

// IsTerminalTaskStatus reports the task statuses no task leaves.
func IsTerminalTaskStatus(s string) bool {
	return s == "completed" || s == "failed" || s == "cancelled"
}
