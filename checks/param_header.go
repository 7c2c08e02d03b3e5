package checks

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleParamHeader = &Rule{
	ID:       "param-header",
	Signal:   SignalMismatch,
	Severity: SeverityError,
	Sees:     Kinds(session.Request),
	Doc: Doc{
		Summary: "An Mcp-Param-* header that disagrees with the argument its x-mcp-header binds",
		Why: `A 2026-07-28 tool can bind an argument to an HTTP header with "x-mcp-header":
"Name" in its inputSchema; a client calling it over Streamable HTTP then sends
Mcp-Param-Name with the argument's value (a string as is, an integer in
decimal, a boolean as true or false, a value that is not plain ASCII as
=?base64?…?=), and omits the header when the argument is absent or null.
Gateways route and authorize on the header while the server acts on the
body: a header that disagrees lets a request through that the body would not
pass, so servers reject it with -32020.

Findings: a header whose decoded value differs from the argument (integers
compare as numbers, so 42 equals 42.0), a header missing for an argument the
call has, a header for an argument the call lacks or a name the tool does
not declare, and one header sent twice with different values. Tools come from
the latest complete tools/list (silent while none is known, after
list_changed, while a listing is in flight, and for tools whose annotations
make clients reject them); "missing" needs the recorder to have written the
request's other MCP headers; redacted values are never compared.`,
		Fix: `Build Mcp-Param-* headers from the very arguments sent, after the tool's
current x-mcp-header annotations.`,
		Bad:   `Mcp-Param-Count: 41   {"method":"tools/call","params":{"name":"fetch_items","arguments":{"count":42}}}`,
		Good:  `Mcp-Param-Count: 42   {"method":"tools/call","params":{"name":"fetch_items","arguments":{"count":42}}}`,
		Since: "0.2.0",
	},
	Revisions:    Revisions{Since: session.ModernRevision},
	Facts:        []facts.Fact{facts.Catalogue},
	CountsJudged: true, // tools/call requests POSTed over HTTP
	New:          func() Checker { return &paramHeader{} },
}

type paramHeader struct {
	Base
	generation int                      // the listing the bindings were read from
	bindings   map[string]*toolBindings // by tool name, read on first use
}

// toolBindings is what a tool's x-mcp-header annotations bind.
type toolBindings struct {
	annotations []mcp.HeaderAnnotation
	rejected    bool // an annotation makes clients reject the tool
}

// paramHeaderValue is one Mcp-Param-* header of a request.
type paramHeaderValue struct {
	name, value string // name without the Mcp-Param- prefix
	redacted    bool
}

func (ph *paramHeader) Frame(p *Pass, f *session.Frame) {
	if !clientRequest(f) || f.Msg.Method != "tools/call" || !overHTTP(f) || f.Batch || f.Elements > 0 {
		return
	}
	p.Judged()
	tools := &facts.Catalogue.Of(p).Tools
	if !tools.Complete || tools.Stale || tools.Pending > 0 {
		return
	}
	call, ok := f.View().CallTool()
	if !ok || !call.HasName {
		return
	}
	b := ph.toolBindings(tools, call.Name)
	if b == nil || b.rejected || (len(b.annotations) == 0 && len(f.ParamHeaders) == 0) {
		return
	}
	headers := map[string][]paramHeaderValue{} // by lower-case name
	var order []string
	for _, h := range f.ParamHeaders {
		name := h.Name
		if len(name) > len("mcp-param-") && strings.EqualFold(name[:len("mcp-param-")], "mcp-param-") {
			name = name[len("mcp-param-"):]
		}
		key := strings.ToLower(name)
		if _, seen := headers[key]; !seen {
			order = append(order, key)
		}
		headers[key] = append(headers[key], paramHeaderValue{name: name, value: h.Value, redacted: h.Redacted || redacted(f, h.Value)})
	}
	recorded := f.MCPMethod != "" || f.MCPName != "" || f.MCPProtocolVersion != "" || len(f.ParamHeaders) > 0
	var problems []string
	declared := map[string]bool{}
	for _, a := range b.annotations {
		key := strings.ToLower(a.Header)
		declared[key] = true
		arg := argumentAt(call.Arguments, a.Path)
		hs := headers[key]
		path := strings.Join(a.Path, ".")
		switch {
		case arg == nil && f.Redacted:
			// the recorder may have redacted the arguments: absence proves nothing
		case (arg == nil || jsonscan.Kind(arg) == "null") && len(hs) > 0:
			problems = append(problems, "Mcp-Param-"+a.Header+" is sent, but the call has no argument "+quoteName(path))
		case arg == nil || jsonscan.Kind(arg) == "null":
		case len(hs) == 0:
			if recorded {
				problems = append(problems, "Mcp-Param-"+a.Header+" is missing for the argument "+quoteName(path))
			}
		default:
			if why := headerDisagrees(f, hs[0], arg); why != "" {
				problems = append(problems, why+", the argument "+quoteName(path)+" "+shortJSON(arg))
			}
		}
	}
	for _, key := range order {
		hs := headers[key]
		if !declared[key] {
			problems = append(problems, "Mcp-Param-"+hs[0].name+" is sent, but tool "+quoteName(call.Name)+" declares no such header")
		}
		for _, h := range hs[1:] {
			if differentValues(hs[0], h) {
				problems = append(problems, "Mcp-Param-"+hs[0].name+" is sent twice with different values")
				break
			}
		}
	}
	if len(problems) > 0 {
		p.Report(f, methodSubject("tools/call", call.Name), "the Mcp-Param headers of tools/call %s do not match its arguments: %s", quoteName(call.Name), strings.Join(problems, "; ")).
			Relate(f.File, tools.Line, "tools listed here")
	}
}

// toolBindings returns the annotations of tool name in the current
// listing, read once per listing; nil when the listing lacks the tool.
func (ph *paramHeader) toolBindings(tools *facts.Listing[*mcp.ToolSet], name string) *toolBindings {
	if ph.bindings == nil || ph.generation != tools.Generation {
		ph.bindings, ph.generation = map[string]*toolBindings{}, tools.Generation
	}
	if b, ok := ph.bindings[name]; ok {
		return b
	}
	t, ok := tools.Current.Lookup(name)
	if !ok {
		return nil
	}
	b := &toolBindings{annotations: mcp.HeaderAnnotations(t.InputSchema)}
	for _, a := range b.annotations {
		b.rejected = b.rejected || a.Problem != ""
	}
	ph.bindings[name] = b // at most one per tool of the listing
	return b
}

// argumentAt is the raw argument at path in a call's arguments; nil when
// absent.
func argumentAt(args []byte, path []string) []byte {
	v := args
	for _, name := range path {
		if v = mcp.Member(v, name); v == nil {
			return nil
		}
	}
	return v
}

// headerDisagrees says how a header differs from the argument it carries,
// "" when it agrees or cannot be compared (a redacted value, an argument
// that is not a primitive).
func headerDisagrees(f *session.Frame, h paramHeaderValue, arg []byte) string {
	if h.redacted {
		return ""
	}
	got, ok := mcp.DecodeHeaderValue(h.value)
	if !ok {
		return "Mcp-Param-" + h.name + " " + Quote(h.value, 60) + " is not a decodable base64 sentinel"
	}
	shown := "Mcp-Param-" + h.name + " is " + Quote(got, 60)
	switch jsonscan.Kind(arg) {
	case "string":
		want, _ := jsonscan.String(arg)
		if got != want && !redacted(f, want) {
			return shown
		}
	case "number":
		if !sameNumber(got, string(arg)) {
			return shown
		}
	case "boolean":
		if got != strings.TrimSpace(string(arg)) {
			return shown
		}
	}
	return ""
}

// sameNumber compares a header's decimal text with a JSON number exactly:
// 42, 42.0 and 4.2e1 are one number.
func sameNumber(header, arg string) bool {
	header, arg = strings.TrimSpace(header), strings.TrimSpace(arg)
	if len(header) > 64 || len(arg) > 64 || strings.ContainsAny(header+arg, "eE") {
		// past any integer a header binds (|n| < 2^53), or an exponent that
		// would make an exact decimal huge: compare as float64
		a, err1 := strconv.ParseFloat(header, 64)
		b, err2 := strconv.ParseFloat(arg, 64)
		return err1 == nil && err2 == nil && a == b
	}
	a, ok1 := new(big.Rat).SetString(header)
	b, ok2 := new(big.Rat).SetString(arg)
	return ok1 && ok2 && a.Cmp(b) == 0
}

func differentValues(a, b paramHeaderValue) bool {
	if a.redacted || b.redacted {
		return false
	}
	av, _ := mcp.DecodeHeaderValue(a.value)
	bv, _ := mcp.DecodeHeaderValue(b.value)
	return av != bv
}
