package session

import "github.com/mcpcheck/mcpcheck/mcp"

// Tasks: a request answered with a task handle stays open until a tasks/*
// answer or a status notification reports a terminal status.

func (s *Session) startTask(f *Frame, c *Call, t *mcp.TaskRef) {
	c.State = TaskRunning
	task := &Task{ID: t.TaskID, Call: c, Status: t.Status}
	c.Task = task
	if s.tasks == nil {
		s.tasks = map[string]*Task{}
	}
	if _, seen := s.tasks[t.TaskID]; !seen {
		s.taskOrder = append(s.taskOrder, t.TaskID)
	}
	s.tasks[t.TaskID] = task
	if len(s.taskOrder) > maxTasks {
		delete(s.tasks, s.taskOrder[0])
		s.taskOrder = s.taskOrder[1:]
	}
	s.taskStatus(f, t.TaskID, t.Status)
}

// taskStatus records a task's status; a first terminal status ends it.
func (s *Session) taskStatus(f *Frame, id, status string) {
	t := s.tasks[id]
	if t == nil || status == "" {
		return
	}
	t.Status = status
	if t.Terminal || !IsTerminalTaskStatus(status) {
		return
	}
	t.Terminal, t.End = true, f.Time
	c := t.Call
	c.End, c.EndLine = f.Time, f.Line
	switch status {
	case "completed":
		c.State = Completed
	case "failed":
		c.State = Failed
	default:
		c.State = Cancelled
	}
	f.Task = t
}
