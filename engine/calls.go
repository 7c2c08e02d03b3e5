package engine

import "github.com/mcpcheck/mcpcheck/session"

// settled reports a call that nothing recorded later can change. It is the
// one place the engine asks; the toolkit branch turns checks' settled and
// finished into methods of session.Call, and this becomes c.Settled().
func settled(c *session.Call) bool {
	return finished(c) && c.Op == nil && c.Task == nil
}

// finished is checks' finished (progress.go), until it is a method of
// session.Call: a call whose final result was recorded.
func finished(c *session.Call) bool {
	switch {
	case c.Answers == 0, c.State == session.Parked, c.State == session.TaskRunning:
		return false
	case c.Task != nil && !c.Task.Terminal:
		return false
	case c.Op != nil && c != c.Op.Last:
		return false // an input_required hop: the operation went on
	}
	return true
}
