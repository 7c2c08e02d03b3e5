package facts

import (
	"sort"

	"github.com/mcpcheck/mcpcheck/session"
)

// Tasks follows the tasks a session created (2025-11-25 core tasks, the
// 2026-07-28 tasks extension): each task's statuses in the order they were
// reported, so a rule can judge transitions. Correlation decides when a
// task ends (Call state, Frame.Task); this fact keeps the history.
var Tasks = define("tasks", nil, func(*session.Session, Source) *TasksTracker {
	return &TasksTracker{byID: map[string]*TaskHistory{}}
})

// Bounds that keep the history small on captures of any size.
const (
	maxTaskHistories = 4096 // as many as correlation follows
	maxStatuses      = 16   // statuses kept per task; later ones are counted
)

// TasksTracker is one session's tasks.
type TasksTracker struct {
	byID  map[string]*TaskHistory
	order []string
}

// TaskHistory is what was reported of one task.
type TaskHistory struct {
	Task     *session.Task
	Statuses []string // in report order, at most maxStatuses
	More     int      // statuses past that
}

// Task returns the history of the task with id.
func (t *TasksTracker) Task(id string) (*TaskHistory, bool) {
	h, ok := t.byID[id]
	return h, ok
}

func (t *TasksTracker) Frame(f *session.Frame) {
	if c := f.Call; c != nil && c.Task != nil && f.Pairing == session.Answered && c.Task.Call == c && t.byID[c.Task.ID] == nil {
		t.add(c.Task)
	}
	task := f.Task
	if task == nil {
		task = t.statusOf(f)
	}
	if task == nil {
		return
	}
	h := t.byID[task.ID]
	if h == nil {
		h = t.add(task)
	}
	if n := len(h.Statuses); n > 0 && h.Statuses[n-1] == task.Status {
		return
	}
	if len(h.Statuses) < maxStatuses {
		h.Statuses = append(h.Statuses, task.Status)
	} else {
		h.More++
	}
}

// statusOf finds the followed task a status notification or a tasks/*
// answer speaks of.
func (t *TasksTracker) statusOf(f *session.Frame) *session.Task {
	id := ""
	switch {
	case f.Msg.Kind == session.Notification && (f.Msg.Method == "notifications/tasks/status" || f.Msg.Method == "notifications/tasks"):
		if p := f.View().ParamFields(); p != nil {
			id = p.TaskID
		}
	case f.Call != nil && f.Call.TaskRef != "" && f.Msg.Kind == session.Response:
		id = f.Call.TaskRef
	}
	if h := t.byID[id]; h != nil {
		return h.Task
	}
	return nil
}

func (t *TasksTracker) add(task *session.Task) *TaskHistory {
	h := &TaskHistory{Task: task}
	t.byID[task.ID] = h
	t.order = append(t.order, task.ID)
	if len(t.order) > maxTaskHistories {
		delete(t.byID, t.order[0])
		t.order = t.order[1:]
	}
	return h
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
