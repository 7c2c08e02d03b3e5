package checks

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleDeprecatedFeature = &Rule{
	ID:       "deprecated-feature",
	Signal:   SignalDeprecated,
	Severity: SeverityNote,
	Sees:     Kinds(session.Request, session.Notification, session.Response),
	Doc: Doc{
		Summary: "Use of Roots, Sampling or Logging, or a retired error code, which revision 2026-07-28 deprecates",
		Why: `Revision 2026-07-28 deprecates three features, to be removed in a revision
released on or after 2027-07-28: Roots (roots/list,
notifications/roots/list_changed), Sampling (sampling/createMessage) and
Logging (logging/setLevel, notifications/message, the logLevel _meta field of a
2026-07-28 request). They remain valid on the
wire, but new implementations should not adopt them and existing ones should
plan to migrate. It also retires the error codes -32002 (resource not found)
and -32042 (URL elicitation required, which only 2025-11-25 defined).

Reported on any revision, as a migration aid: each kind of use once per
session where it first appears (its repeats are counted on that finding), also
when a 2026-07-28 server asks for roots or sampling inside an input_required
result. A capability that is only declared is not a use: a client may keep
offering roots to servers that still ask. The message names the replacement,
the revision that deprecated the feature and the revision the use was judged
under.`,
		Fix: `Roots: pass directories or files as tool parameters, resource URIs or server
configuration. Sampling: integrate with an LLM provider directly. Logging: write
to stderr (stdio) or use OpenTelemetry. Answer -32602 for a resource that does
not exist; ask for a URL through an input_required result.`,
		Bad:   `{"jsonrpc":"2.0","id":0,"method":"roots/list"} (server to client)`,
		Good:  `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"index","arguments":{"dir":"/srv/repo"}}}`,
		Since: "0.2.0",
	},
	Facts: []facts.Fact{facts.Negotiation},
	New:   func() Checker { return &deprecatedFeature{} },
}

// deprecation is a deprecated feature and what replaces it.
type deprecation struct {
	name, instead string
}

var (
	depRoots    = deprecation{"Roots", "pass directories or files as tool parameters, resource URIs or server configuration"}
	depSampling = deprecation{"Sampling", "integrate with an LLM provider's API directly"}
	depLogging  = deprecation{"Logging", "write logs to stderr (stdio) or use OpenTelemetry"}
)

// deprecatedBy is the revision that deprecated the features and retired
// the codes.
const deprecatedBy = session.ModernRevision

// featureOf is the deprecated feature a method belongs to.
func featureOf(method string) (deprecation, bool) {
	switch {
	case strings.HasPrefix(method, "roots/"), strings.HasPrefix(method, "notifications/roots/"):
		return depRoots, true
	case strings.HasPrefix(method, "sampling/"):
		return depSampling, true
	case strings.HasPrefix(method, "logging/"), method == "notifications/message":
		return depLogging, true
	}
	return deprecation{}, false
}

type deprecatedFeature struct {
	Base
	once repeats
}

func (d *deprecatedFeature) Frame(p *Pass, f *session.Frame) {
	if !judgeable(f) || f.Redacted {
		return
	}
	m := &f.Msg
	rev := f.Revision(p.Session)
	if rev == "" {
		// a notification of a 2026-07-28 session, or a message before the
		// handshake settled: the revision the session declares or offers
		n := facts.Negotiation.Of(p)
		if n.Modern() {
			rev = n.Declared
		} else {
			rev = session.NormalizeRevision(n.Offered)
		}
	}
	switch m.Kind {
	case session.Request, session.Notification:
		if own := f.Revision(p.Session); own >= deprecatedBy && modernRemoves(f) && f.IsProtocol() && !f.Truncated {
			return // modern-removed reports it: removed, not merely deprecated
		}
		if dep, ok := featureOf(m.Method); ok {
			d.report(p, f, dep, sent(f), rev)
		}
		if m.Kind == session.Request && f.Direction == session.ClientToServer {
			d.clientRequest(p, f, rev)
		}
	case session.Response:
		if e := m.Error; e != nil {
			d.errorCode(p, f, e.Code, rev)
		}
		if f.Call != nil && (f.Pairing == session.Answered || f.Pairing == session.Late) && f.View().ResultFields() != nil {
			d.result(p, f, rev)
		}
	}
}

func (d *deprecatedFeature) clientRequest(p *Pass, f *session.Frame, rev string) {
	if f.View().Meta().Has("io.modelcontextprotocol/logLevel") {
		d.report(p, f, depLogging, "client asked for log messages with the logLevel _meta field of "+f.Msg.Method, rev)
	}
}

// result finds what a 2026-07-28 input_required result asks the client for.
func (d *deprecatedFeature) result(p *Pass, f *session.Frame, rev string) {
	r := f.View().ResultFields()
	if rt, _ := r.ResultTypeString(); rt != "input_required" {
		return
	}
	for _, key := range slices.Sorted(maps.Keys(r.InputRequests)) {
		method, _ := jsonscan.String(mcp.Member(r.InputRequests[key], "method"))
		if dep, ok := featureOf(method); ok {
			d.report(p, f, dep, "server asked for "+method+" in the inputRequests of an input_required result", rev)
		}
	}
}

// retiredCodes are the error codes 2026-07-28 retired, and what replaces
// them.
var retiredCodes = map[int64]deprecation{
	-32002: {"Error code -32002 (resource not found)", "answer -32602 for a resource that does not exist"},
	-32042: {"Error code -32042 (URL elicitation required)", "ask for the URL with a URL-mode elicitation in an input_required result"},
}

func (d *deprecatedFeature) errorCode(p *Pass, f *session.Frame, code int64, rev string) {
	dep, ok := retiredCodes[code]
	if !ok || (code == -32042 && rev == "2025-11-25") {
		return // -32042 is that revision's own code
	}
	d.once.report(fmt.Sprintf("error %d %s", code, rev), func() *Finding {
		return p.Report(f, fmt.Sprintf("error %d", code), "%s answered with error code %d: %s is retired by revision %s (used here under %s); %s",
			f.Direction.Sender(), code, dep.name, deprecatedBy, underRevision(rev), dep.instead)
	})
}

// report tells of a use of dep, once per kind of use and revision.
func (d *deprecatedFeature) report(p *Pass, f *session.Frame, dep deprecation, what, rev string) {
	d.once.report(what+" "+rev, func() *Finding {
		return p.Report(f, what, "%s", deprecationMessage(what, dep, rev))
	})
}

func deprecationMessage(what string, dep deprecation, rev string) string {
	return fmt.Sprintf("%s: %s is deprecated by revision %s (used here under %s); %s instead",
		what, dep.name, deprecatedBy, underRevision(rev), dep.instead)
}
