package result

import "time"

// Calls is what a session's requests did, for reports that draw them (the
// HTML report's timeline and per-tool table). It is bounded whatever the
// capture's size: every call is counted, and only the notable ones (failed,
// unanswered or cancelled, up to MaxNotableCalls) and the slowest of the
// rest (up to MaxSlowCalls) are kept, each with short excerpts.
type Calls struct {
	Total      int64 // requests seen
	Failed     int64 // answered with an error, an isError result or an HTTP error
	Unanswered int64 // never answered (pending, superseded, never retried)
	Cancelled  int64 // cancelled by their requester
	Progress   int64 // progress notifications that named a request's token

	// First and Last are the earliest request and the latest answer with
	// a timestamp: the time axis. Both are zero in a capture without times.
	First, Last time.Time

	// Drawn are the calls kept, in the order they were sent; NotDrawn is
	// how many calls were counted but not kept.
	Drawn    []Call
	NotDrawn int64

	// Tools has one row per tool (tools/call NAME) or other method, sorted
	// by name; past MaxToolRows the rest are summed in one row named
	// OtherTools.
	Tools []ToolStats
}

// Bounds of Calls.
const (
	MaxNotableCalls = 200
	MaxSlowCalls    = 100
	MaxToolRows     = 200
	// MaxExcerpt is the most bytes of a request or an answer kept.
	MaxExcerpt = 600
)

// OtherTools names the row that sums the tools past MaxToolRows.
const OtherTools = "(other tools)"

// Call is one request and what became of it.
type Call struct {
	Method string
	Name   string // tool or prompt name, or resource URI; "" when none
	ID     string // the request id as written: for people, never for subjects
	From   string // "client" or "server": who sent the request
	Line   int    // the request's line
	Start  time.Time
	// Duration is the time to the final answer; -1 when unknown (no
	// answer, or no timestamps).
	Duration time.Duration

	// Outcome says what came back ("result", "error -32603", "isError
	// result", "HTTP 502", "never answered", "cancelled", …).
	Outcome    string
	Failed     bool // an error answer
	Cancelled  bool // its requester cancelled it
	Answered   bool
	AnswerLine int
	Progress   int // progress notifications for its token

	// Request and Answer are excerpts of the messages, secrets masked,
	// clipped to MaxExcerpt bytes (Clipped says one was).
	Request, Answer string
	Clipped         bool
}

// Notable reports a call a reader must see: failed, unanswered or cancelled.
func (c *Call) Notable() bool { return c.Failed || c.Cancelled || !c.Answered }

// ToolStats is one tool's or method's calls.
type ToolStats struct {
	Name     string // "tools/call NAME" or the method
	Calls    int64
	Errors   int64
	Timed    int64         // calls with a known duration, which the percentiles read
	P50, P95 time.Duration // latency percentiles of the timed calls (bucketed, within 5%)
	Max      time.Duration
}
