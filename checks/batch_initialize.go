package checks

import (
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleBatchInitialize = &Rule{
	ID:       "batch-initialize",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Request),
	Doc: Doc{
		Summary: "initialize sent inside a JSON-RPC batch",
		Why: `The initialize request must not be part of a JSON-RPC batch: nothing else can
be sent before the handshake settles the protocol version, and 2025-03-26, the
only revision that allows batches, says so explicitly. (Every other revision
forbids batches altogether, which invalid-frame reports.)`,
		Fix:   `Send initialize on its own and wait for its result before batching requests.`,
		Bad:   `[{"jsonrpc":"2.0","id":0,"method":"initialize",…},{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`,
		Good:  `{"jsonrpc":"2.0","id":0,"method":"initialize",…}`,
		Since: "0.2.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if f.Msg.Method != "initialize" || f.Msg.Kind != session.Request || !judgeable(f) || (f.Element == 0 && !f.Batch) {
			return
		}
		p.Report(f, "initialize", "client sent initialize inside a JSON-RPC batch; it must be sent alone")
	}),
}
