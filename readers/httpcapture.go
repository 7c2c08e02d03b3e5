package readers

import (
	"bytes"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

// What the formats that record HTTP exchanges (HAR, mcp-rewind, LogRocket)
// share besides headers (headers.go), endpoints and labels: the frames of
// an answer's body, and what to say about the notifications a recorder
// does not keep.

// validJSON reports whether b is exactly one JSON value, white space
// around it allowed.
func validJSON(b []byte) bool {
	i := jsonscan.SkipSpace(b, 0)
	if i == len(b) {
		return false
	}
	end, err := jsonscan.SkipValue(b, i, 0)
	return err == nil && jsonscan.SkipSpace(b, end) == len(b)
}

// jsonRPCBody reports a body that is JSON-RPC: an object with one of the
// JSON-RPC members, or an array whose first element is one.
func jsonRPCBody(b []byte) bool {
	if !validJSON(b) {
		return false
	}
	if jsonscan.FirstByte(b) == '[' {
		els := jsonscan.Elements(b)
		if len(els) == 0 {
			return false
		}
		b = els[0]
	}
	found := false
	jsonscan.Top(b, func(name string, _ []byte) {
		switch name {
		case "jsonrpc", "method", "id", "result", "error":
			found = true
		}
	})
	return found
}

// answer is what a format knows of an HTTP answer's body.
type answer struct {
	base  session.Frame // what every frame of the answer carries (session, time, status, headers)
	body  []byte        // the body as received (decoded when the recorder encoded it)
	isSSE bool          // the body is an event stream
	// line gives the line of the frame of an event that starts at line ev
	// (0-based) of the body.
	line func(ev int) int
	// cut is set for a body cut at the size limit (spec §2.1): the event
	// the stream breaks off in is read as far as its data goes.
	cut bool
}

// frames feeds the server frames of an answer to c: a JSON body is one
// frame (the correlator splits a batch), an event stream one frame per
// event that carries data, other text one text frame, an empty body one
// status-only frame. An event the stream broke off in is still read when
// its data is complete JSON, and reported as damage when it is not. The
// frames alias the body.
func (a *answer) frames(add func(*session.Frame), damage func(session.Damage)) {
	body := bytes.TrimSpace(a.body)
	switch {
	case len(body) == 0:
		f := a.base
		add(&f)
	case a.isSSE:
		eachSSEEvent(a.body, func(ev sseEvent) {
			f := a.base
			f.Line = a.line(ev.Line)
			data := bytes.TrimSpace(ev.Data)
			if a.cut && !ev.Complete && !validJSON(data) {
				data = clipJSON(data)
			}
			switch {
			case validJSON(data):
				f.Raw = data
			case !ev.Complete:
				damage(session.Damage{File: f.File, Line: f.Line, Reason: "the event stream breaks off inside an event"})
				return
			default:
				f.Text, f.HasText = string(ev.Data), true // the legacy endpoint event, or junk
			}
			add(&f)
		})
	case validJSON(body):
		f := a.base
		f.Raw = body
		add(&f)
	default:
		f := a.base
		f.Text, f.HasText = string(a.body), true
		add(&f)
	}
}

// noteGap says, once per session, that the recorder keeps no
// notifications where a rule would otherwise conclude one was never sent:
// the notifications/initialized a client owes after a successful
// initialize. The damage keeps the lifecycle rule from reporting a
// notification the capture cannot show.
type noteGap struct {
	recorder string          // how messages name the recorder
	armed    map[string]bool // sessions whose initialize succeeded, no notification seen since
	said     map[string]bool // sessions already told
}

// answered notes the answer to a client request of session.
func (g *noteGap) answered(sid, method string, ok bool) {
	if method != "initialize" || !ok || g.said[sid] {
		return
	}
	if g.armed == nil {
		g.armed = map[string]bool{}
	}
	g.armed[sid] = true
}

// notified notes a client notification the capture does show.
func (g *noteGap) notified(sid string) { delete(g.armed, sid) }

// request reports the gap before the first client request after a
// successful initialize that no recorded notification preceded.
func (g *noteGap) request(c *session.Correlator, sid, method, file string, line int) {
	if !g.armed[sid] || method == "initialize" || method == "ping" {
		return
	}
	delete(g.armed, sid)
	if g.said == nil {
		g.said = map[string]bool{}
	}
	if len(g.said) < maxGapSessions {
		g.said[sid] = true
	}
	c.Damage(session.Damage{File: file, Line: line, ByDesign: true,
		Reason: "the client's notifications after initialize are not in the capture (" + g.recorder + " records no notifications)"},
		session.Survived{SessionID: sid, Direction: session.Meta})
}

// maxGapSessions bounds the sessions noteGap remembers.
const maxGapSessions = 4096

// clipJSON closes a JSON body cut at the size limit as far as its last
// complete value (jsonscan.ClipPrefix, in place); other text is kept as
// it is.
func clipJSON(body []byte) []byte {
	if k := jsonscan.FirstByte(body); k == '{' || k == '[' {
		return jsonscan.ClipPrefix(bytes.TrimLeft(body, " \t\r\n"))
	}
	return body
}
