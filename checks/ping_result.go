package checks

import (
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

var rulePingResult = &Rule{
	ID:        "ping-result",
	Signal:    SignalWarn,
	Severity:  SeverityWarning,
	Sees:      Kinds(session.Response),
	Revisions: Revisions{Until: "2025-11-25"},
	Doc: Doc{
		Summary: "A ping answered with something other than an empty result",
		Why: `The receiver of ping must answer promptly with an empty result, {} (a _meta
member aside). Peers use ping as a liveness check and may validate its answer;
a result with content of its own is not the empty response the protocol
defines. (2026-07-28 removed ping, so it is judged only before that revision.)`,
		Fix:   `Answer ping with {"jsonrpc":"2.0","id":…,"result":{}}.`,
		Bad:   `{"jsonrpc":"2.0","id":9,"result":{"status":"ok"}}`,
		Good:  `{"jsonrpc":"2.0","id":9,"result":{}}`,
		Since: "0.2.0",
	},
	CountsJudged: true, // ping results
	New: EachFrame(func(p *Pass, f *session.Frame) {
		m := &f.Msg
		c := f.Call
		if m.Kind != session.Response || c == nil || c.Method != "ping" || m.Error != nil || m.Result == nil || !judgeable(f) || f.Redacted ||
			(f.Pairing != session.Answered && f.Pairing != session.Late) {
			return
		}
		p.Judged()
		if jsonscan.FirstByte(m.Result) != '{' {
			p.Report(f, "ping result", "%s answered ping with a JSON %s result instead of an empty object", f.Direction.Sender(), jsonscan.Kind(m.Result)).
				Relate(c.File, c.Line, "ping sent here")
			return
		}
		var extra string
		_ = jsonscan.EachMember(m.Result, func(name, _ []byte) {
			if extra == "" && string(name) != "_meta" {
				extra = string(name)
			}
		})
		if extra != "" {
			p.Report(f, "ping result", "%s answered ping with a result that is not empty (it has %s)", f.Direction.Sender(), quoteName(extra)).
				Relate(c.File, c.Line, "ping sent here")
		}
	}),
}
