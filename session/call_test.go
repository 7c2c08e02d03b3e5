package session

import "testing"

func TestCallFinishedAndSettled(t *testing.T) {
	op := &Operation{}
	hop, last := &Call{State: Completed, Answers: 1, Op: op}, &Call{State: Completed, Answers: 1, Op: op}
	op.First, op.Last = hop, last
	cases := []struct {
		name              string
		c                 *Call
		finished, settled bool
	}{
		{"pending", &Call{State: Pending}, false, false},
		{"answered", &Call{State: Completed, Answers: 1}, true, true},
		{"failed", &Call{State: Failed, Answers: 1}, true, true},
		{"cancelled, never answered", &Call{State: Cancelled}, false, false},
		{"cancelled, answered late", &Call{State: Cancelled, Answers: 1}, true, true},
		{"parked", &Call{State: Parked, Answers: 1}, false, false},
		{"task running", &Call{State: TaskRunning, Answers: 1, Task: &Task{}}, false, false},
		{"task ended", &Call{State: Completed, Answers: 1, Task: &Task{Terminal: true}}, true, false},
		{"a hop the operation went on from", hop, false, false},
		{"the operation's last hop", last, true, false},
	}
	for _, c := range cases {
		if got := c.c.Finished(); got != c.finished {
			t.Errorf("%s: Finished() = %v, want %v", c.name, got, c.finished)
		}
		if got := c.c.Settled(); got != c.settled {
			t.Errorf("%s: Settled() = %v, want %v", c.name, got, c.settled)
		}
	}
}
