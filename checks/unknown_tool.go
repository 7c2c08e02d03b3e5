package checks

import (
	"github.com/mcpcheck/mcpcheck/mcp"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleUnknownTool = &Rule{
	ID:       "unknown-tool",
	Signal:   SignalWarn,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "A tools/call naming a tool the latest complete tools/list does not list",
		Why: `A client can only call the tools a server lists. A call for a tool that is not
in the latest complete listing of the session is a client calling from a stale or
invented list (a model hallucinating a tool name, a cached catalogue from an older
server version), and the server answers it with an error.

The rule is silent when the session recorded no complete listing (all pages, the
last without nextCursor), after notifications/tools/list_changed until the next
complete listing, and while a tools/list request is still unanswered: a recorder
may write the listing's answer after the call it made possible.`,
		Fix: `Call only tools from the server's current tools/list; list again after
notifications/tools/list_changed.`,
		Bad:   `tools/list lists "read_file"; then {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"delete_file"}}`,
		Good:  `tools/list lists "read_file"; then {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file"}}`,
		Since: "0.2.0",
	},
	Facts: []facts.Fact{facts.Catalogue},
	New:   func() Checker { return &unknownTool{} },
}

// maxUnknownToolSuspects bounds the calls held while a listing is in
// flight; past it the oldest is judged by the listing before it.
const maxUnknownToolSuspects = 1024

type unknownTool struct {
	Base
	suspects   []toolCall // calls made while a listing was in flight
	generation int        // the listing generation the suspects wait to be judged by
}

// toolCall is what a finding needs of a call, copied out of the frame.
type toolCall struct {
	name string
	at   Location
	seq  int64
}

func (u *unknownTool) Frame(p *Pass, f *session.Frame) {
	tools := &facts.Catalogue.Of(p).Tools
	if tools.Generation != u.generation {
		u.judgeSuspects(p, tools) // the listing they waited for arrived
	}
	if f.Msg.Kind != session.Request || f.Msg.Method != "tools/call" || f.Direction != session.ClientToServer || f.Truncated || f.Redacted {
		return
	}
	call, ok := f.View().CallTool()
	if !ok || !call.HasName || !tools.Complete || tools.Stale {
		return
	}
	if _, listed := tools.Current.Lookup(call.Name); listed {
		return
	}
	tc := toolCall{name: call.Name, at: Location{File: f.File, Line: f.Line}, seq: f.Seq}
	if tools.Pending == 0 {
		u.report(p, tc, tools)
		return
	}
	if len(u.suspects) == maxUnknownToolSuspects {
		u.report(p, u.suspects[0], tools)
		u.suspects = u.suspects[1:]
	}
	u.suspects = append(u.suspects, tc)
	u.generation = tools.Generation
}

// judgeSuspects decides the held calls by the listing that completed after
// them; a stale catalogue decides nothing.
func (u *unknownTool) judgeSuspects(p *Pass, tools *facts.Listing[*mcp.ToolSet]) {
	u.generation = tools.Generation
	held := u.suspects
	u.suspects = nil
	if tools.Stale {
		return
	}
	for _, tc := range held {
		if _, listed := tools.Current.Lookup(tc.name); !listed {
			u.report(p, tc, tools)
		}
	}
}

func (u *unknownTool) report(p *Pass, tc toolCall, tools *facts.Listing[*mcp.ToolSet]) {
	fd := p.ReportAt(tc.at, tc.seq, "tools/call "+tc.name,
		"tools/call names tool %s, which the latest complete tools/list (%d %s) does not list",
		quoteName(tc.name), tools.Current.Len(), plural(tools.Current.Len(), "tool", "tools")).
		Relate(tc.at.File, tools.Line, "tools listed here")
	p.Explains(fd, "unknown tool "+quoteName(tc.name))
}
