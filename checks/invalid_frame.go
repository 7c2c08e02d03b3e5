package checks

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/session"
)

var ruleInvalidFrame = &Rule{
	ID:       "invalid-frame",
	Signal:   SignalInvalid,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "Something on the protocol channel is not a JSON-RPC message",
		Why: `Over stdio the server's stdout is the protocol channel: every line must be one
JSON-RPC message. A log line, a banner or a usage text printed to stdout
("stdout pollution") breaks the client's parser, and clients drop or abort on
it. The same holds for an object with none of the JSON-RPC members, members of
the wrong type (a method that is not a string, params that are not an object,
an error without an integer code), and a JSON array (a batch) in any revision
but 2025-03-26, the only one that defines batches. The messages inside a batch
are still correlated and checked one by one. A member name used twice in one
object, at any depth ({"id":1,…,"id":2}), is reported too: receivers disagree
about which value wins.

The legacy HTTP+SSE transport (2024-11-05) opens its stream with an endpoint
event whose data is a URL or path, not JSON-RPC: on an HTTP session that text is
transport plumbing and not reported. The same text on stdio is.`,
		Fix:   `send logs to stderr (console.error, log to os.Stderr), never to stdout.`,
		Bad:   `Server listening on stdio          (written to stdout)`,
		Good:  `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"listening"}}`,
		Since: "0.1.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if !f.IsProtocol() || f.Truncated || f.HTTPErrorBody() || f.TransportPlumbing() {
			return // HTTP error bodies are http-error's
		}
		if f.HasText && f.Raw == nil {
			if strings.TrimSpace(f.Text) == "" {
				return // blank lines are tolerated
			}
			if !p.Listed() {
				p.Report(f, "", "") // a chatty server's millionth line: only counted
				return
			}
			p.Report(f, f.Direction.String()+" text "+Quote(f.Text, 80), "%s wrote a line that is not JSON on the protocol channel: %s",
				f.Direction.Sender(), Quote(f.Text, 120))
			return
		}
		if f.BatchStart && !batchesAllowed(p.Session.Revision) {
			what := "a JSON-RPC batch (the recorder split it into envelopes)"
			if f.Elements > 0 {
				what = fmt.Sprintf("a JSON array of %d %s (a batch)", f.Elements, plural(f.Elements, "message", "messages"))
			}
			p.Report(f, f.Direction.String()+" batch", "%s sent %s, which %s does not allow", f.Direction.Sender(), what, revisionText(p.Session.Revision))
		}
		if f.Msg.Kind == session.Invalid {
			p.Report(f, f.Direction.String()+" "+f.Msg.Problem, "%s sent %s", f.Direction.Sender(), f.Msg.Problem)
		}
	}),
}

// batchesAllowed: only 2025-03-26 defines JSON-RPC batches; 2024-11-05 never
// mentions them and 2025-06-18 removed them.
func batchesAllowed(revision string) bool { return revision == "2025-03-26" }

func revisionText(revision string) string {
	if revision == "" {
		return "MCP (but for revision 2025-03-26)"
	}
	return "revision " + revision
}
