package checks

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleRequestState = &Rule{
	ID:       "request-state",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Request),
	Doc: Doc{
		Summary: "A multi round-trip retry that changed, dropped or invented the server's requestState",
		Why: `When a 2026-07-28 server answers input_required with a requestState, the
client's retry must echo that string exactly: it is the server's only memory of
the operation (servers are stateless between round trips), often signed, and a
retry without it, or with another value, restarts or breaks the operation. A
retry must not carry a requestState when the server issued none.

A retry is linked to the result it answers by correlation (its requestState,
else the one parked operation with the same method, name and input keys); an
unlinked one is not judged. The state is opaque and may hold secrets: messages
never print it. A value the recorder redacted is not compared.`,
		Fix: `Copy requestState from the input_required result into the retry unchanged,
and leave it out when the result had none.`,
		Bad:   `result {"resultType":"input_required","requestState":"eyJvcCI6MX0.sig",…} ; retry {"requestState":"eyJvcCI6Mn0.sig",…}`,
		Good:  `result {"resultType":"input_required","requestState":"eyJvcCI6MX0.sig",…} ; retry {"requestState":"eyJvcCI6MX0.sig",…}`,
		Since: "0.2.0",
	},
	Revisions: Revisions{Since: session.ModernRevision},
	Facts:     []facts.Fact{facts.Operations},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		if !clientRequest(f) || f.Call == nil || f.Call.Op == nil || f.Call.Op.First == f.Call || f.View().ParamFields() == nil {
			return
		}
		issued, ok := facts.Operations.Of(p).Issued(f.Call.Op)
		if !ok || (issued.Redacted && strings.Contains(issued.RequestState, redactedPlaceholder)) {
			return
		}
		c := f.Call
		raw := mcp.Member(f.View().Params(), "requestState")
		sent, isString := jsonscan.String(raw)
		if raw != nil && isString && redacted(f, sent) {
			return
		}
		var problem string
		switch {
		case issued.HasRequestState && raw == nil:
			problem = "dropped the requestState the server issued"
		case issued.HasRequestState && !isString:
			problem = "sent a requestState that is a JSON " + jsonscan.Kind(raw) + " instead of the string the server issued"
		case issued.HasRequestState && sent != issued.RequestState:
			problem = "changed the requestState the server issued"
		case !issued.HasRequestState && raw != nil:
			problem = "carries a requestState, but the input_required result it answers issued none"
		default:
			return
		}
		p.Report(f, methodSubject(c.Method, c.Name), "the retry of %s %s", callName(c), problem).
			Relate(c.File, issued.Line, "input_required result here")
	}),
}
