package checks

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/session"
)

var ruleErrorCode = &Rule{
	ID:       "error-code",
	Signal:   SignalWarn,
	Severity: SeverityWarning,
	Sees:     Kinds(session.Response),
	Doc: Doc{
		Summary: "An error code from a reserved range that no specification defines",
		Why: `JSON-RPC 2.0 reserves the codes -32768 to -32000 for itself: -32700, -32600,
-32601, -32602 and -32603 are defined, -32099 to -32000 are left to
implementations, and every other code of the range is reserved for future
use. A peer that reads such a code cannot know what it means. 2026-07-28
further reserves -32099 to -32020 for the MCP specification, which defines
-32020, -32021 and -32022 there; an implementation must not use the others.
(The retired -32002 and -32042 are deprecated-feature's.)`,
		Fix: `Use -32602 for bad params, -32601 for unknown methods, -32603 for internal
failures; for application errors choose a code outside -32768…-32000 (or,
before 2026-07-28, inside -32099…-32000).`,
		Bad:   `{"jsonrpc":"2.0","id":3,"error":{"code":-32650,"message":"quota exceeded"}}`,
		Good:  `{"jsonrpc":"2.0","id":3,"error":{"code":-31001,"message":"quota exceeded"}}`,
		Since: "0.2.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		e := f.Msg.Error
		if e == nil || !judgeable(f) || f.Msg.Kind != session.Response {
			return
		}
		code := e.Code
		switch {
		case code < -32768 || code > -32000:
			return
		case code == -32700 || (code >= -32603 && code <= -32600):
			return
		case code >= -32099:
			rev := f.Revision(p.Session)
			if !modernFrame(rev) || code > -32020 || code >= -32022 || code == -32042 {
				return // implementation-defined, or defined by 2026-07-28, or retired
			}
			p.Report(f, fmt.Sprintf("error %d", code), "%s answered with error code %d, which %s reserves for the MCP specification and does not define",
				f.Direction.Sender(), code, underRevision(rev))
			return
		}
		p.Report(f, fmt.Sprintf("error %d", code), "%s answered with error code %d, which JSON-RPC reserves for predefined errors and does not define",
			f.Direction.Sender(), code)
	}),
}
