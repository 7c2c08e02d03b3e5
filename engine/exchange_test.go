package engine

import (
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/session"
)

// A finding at the request learns at the end of the session what became
// of it.
func TestFindingExchangeFinishedLater(t *testing.T) {
	t.Parallel()
	w := &reported{}
	c := &session.Call{Dir: session.ServerToClient, Method: "sampling/createMessage", ID: session.MakeID([]byte(`"s1"`)), Line: 3,
		Start: time.Unix(100, 0)}
	w.fd.Track(w)
	w.fd.About(c)
	c.State, c.End = session.Failed, time.Unix(102, 0)
	fd := (&logDecoder{}).whole(w)
	if ex := fd.Exchange; ex.Answer != "failed" || ex.From != session.ServerToClient || ex.ID != `"s1"` {
		t.Errorf("exchange %+v", ex)
	} else if d, _ := ex.Latency(); d != 2*time.Second {
		t.Errorf("latency %v", d)
	}
}
