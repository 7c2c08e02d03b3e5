package checks

import (
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleRequestParams = &Rule{
	ID:       "request-params",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Request, session.Notification),
	Doc: Doc{
		Summary: "Params that are an array, or a request without a parameter its method requires",
		Why: `MCP passes parameters by name: params is an object in every revision (JSON-RPC's
positional array form is not MCP). And each method has parameters it cannot do
without, in every revision: initialize its protocolVersion, capabilities and
clientInfo; tools/call and prompts/get the name; resources/read, subscribe and
unsubscribe the uri; completion/complete its ref and argument;
sampling/createMessage its messages and maxTokens; tasks/get, tasks/result and
tasks/cancel the taskId; notifications/progress its progressToken and progress.
A receiver can only reject such a message (or, as real servers do, fail on it
with an internal error). The log level and the requestId of a cancellation are
judged by log-level and cancel.`,
		Fix:   `Send params as an object with the members the method requires.`,
		Bad:   `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{"path":"/srv"}}}`,
		Good:  `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_directory","arguments":{"path":"/srv"}}}`,
		Since: "0.2.0",
	},
	New: EachFrame(func(p *Pass, f *session.Frame) {
		m := &f.Msg
		if (m.Kind != session.Request && m.Kind != session.Notification) || !judgeable(f) || f.Redacted {
			return
		}
		if jsonscan.FirstByte(f.View().Params()) == '[' {
			p.Report(f, m.Method+" params", "%s with params as a JSON array; MCP params are an object of named members", sent(f))
			return
		}
		for _, r := range requiredParams[m.Method] {
			v := mcp.Member(f.View().Params(), r.name)
			switch {
			case v == nil:
				p.Explains(p.Report(f, m.Method+" params", "%s without %s, which the method requires", sent(f), r.name), m.Method+" without "+r.name)
			case !r.kind(v):
				p.Explains(p.Report(f, m.Method+" params", "%s whose %s is a JSON %s, not %s", sent(f), r.name, jsonscan.Kind(v), r.want), m.Method+" with a wrong "+r.name)
			default:
				continue
			}
			return // one finding per message
		}
	}),
}

// param is a parameter a method requires, and the JSON type it has.
type param struct {
	name string
	want string // the type, for messages
	kind func(v []byte) bool
}

func jsonType(first byte) func(v []byte) bool {
	return func(v []byte) bool { return jsonscan.FirstByte(v) == first }
}

func isNumber(v []byte) bool {
	c := jsonscan.FirstByte(v)
	return c == '-' || (c >= '0' && c <= '9')
}

var (
	stringParam = func(name string) param { return param{name, "a string", jsonType('"')} }
	objectParam = func(name string) param { return param{name, "an object", jsonType('{')} }
)

// requiredParams are the parameters each method requires in every revision.
var requiredParams = map[string][]param{
	"initialize":             {stringParam("protocolVersion"), objectParam("capabilities"), objectParam("clientInfo")},
	"tools/call":             {stringParam("name")},
	"prompts/get":            {stringParam("name")},
	"resources/read":         {stringParam("uri")},
	"resources/subscribe":    {stringParam("uri")},
	"resources/unsubscribe":  {stringParam("uri")},
	"completion/complete":    {objectParam("ref"), objectParam("argument")},
	"sampling/createMessage": {param{"messages", "an array", jsonType('[')}, param{"maxTokens", "a number", isNumber}},
	"tasks/get":              {stringParam("taskId")},
	"tasks/result":           {stringParam("taskId")},
	"tasks/cancel":           {stringParam("taskId")},
	// the type of a progress token is progress-token's: one finding per token
	"notifications/progress": {param{"progressToken", "present", func([]byte) bool { return true }},
		param{"progress", "a number", isNumber}},
}
