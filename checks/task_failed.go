package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleTaskFailed = &Rule{
	ID:       "task-failed",
	Signal:   SignalError,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "A task ended failed, or completed with an isError result",
		Why: `A request answered with a task handle runs on after the answer; its outcome
arrives later through tasks/get, tasks/result or a task status notification.
A task whose terminal status is "failed", or whose result has "isError": true,
is a failed tool call that a plain result check would miss.`,
		Fix: `Read the task's statusMessage or result content and fix the cause as for
a failed tool call.`,
		Bad:   `{"method":"notifications/tasks/status","params":{"taskId":"t1","status":"failed"}}`,
		Good:  `{"method":"notifications/tasks/status","params":{"taskId":"t1","status":"completed"}}`,
		Since: "0.1.0",
	},
	New: func() Checker { return &taskFailed{} },
}

// taskFailed reports each task once, however often its failure is repeated.
type taskFailed struct {
	Base
	reported map[*session.Task]bool
}

func (t *taskFailed) Frame(p *Pass, f *session.Frame) {
	task := f.Task
	if task == nil || t.reported[task] || (task.Status != "failed" && !task.ResultError) {
		return
	}
	if t.reported == nil {
		t.reported = map[*session.Task]bool{}
	}
	t.reported[task] = true
	c := task.Call
	how := "ended with status \"failed\""
	if task.ResultError {
		how = "completed with an isError result: " + firstText(f.View().ResultFields().Content)
	}
	// The task id is the server's to choose (often random): the subject
	// names the call, and the occurrence tells its tasks apart.
	p.Report(f, callSubject(c)+" task", "task %s of %s %s", Quote(task.ID, 80), c.Label(), how).
		Relate(c.File, c.Line, "request sent here")
}
