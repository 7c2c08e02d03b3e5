package checks

import (
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleInputRequired = &Rule{
	ID:       "input-required",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "An input_required result the multi round-trip rules forbid",
		Why: `In 2026-07-28 a server that needs something from the client (a user's answer,
an LLM completion, the client's roots) answers the request with an
InputRequiredResult (resultType "input_required") and the client retries the
request with the inputs. Only tools/call, prompts/get and resources/read may be
answered so; the result must carry inputRequests, requestState or both; each
input request must be elicitation/create, sampling/createMessage or roots/list;
and the server must not ask for anything the client did not declare in that
request's clientCapabilities (elicitation, its form or url mode, sampling, its
tools, roots). A client cannot fulfil any other request and the operation
stalls.

The capability part is silent when the request's clientCapabilities were not
captured.`,
		Fix: `Answer other methods with a complete result or an error; ask only for what
the request's _meta clientCapabilities declare, and fall back (or fail with
an error) when the client lacks a capability.`,
		Bad:   `request capabilities {} ; result {"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{…}}}}`,
		Good:  `request capabilities {"elicitation":{"form":{}}} ; the same result`,
		Since: "0.2.0",
	},
	Revisions: Revisions{Since: session.ModernRevision},
	New:       func() Checker { return &inputRequired{caps: newCallMemo[clientInputCaps](maxRememberedCalls)} },
}

// mrtrMethods are the requests a server may answer input_required.
var mrtrMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

type inputRequired struct {
	Base
	caps *callMemo[clientInputCaps] // what each open multi round-trip-able request declared
}

// clientInputCaps is what a request's clientCapabilities let a server ask
// for.
type clientInputCaps struct {
	elicitation, elicitForm, elicitURL bool
	sampling, samplingTools            bool
	roots                              bool
}

func readInputCaps(c mcp.Capabilities) clientInputCaps {
	var k clientInputCaps
	if k.elicitation = c.Has("elicitation"); k.elicitation {
		e := mcp.Member(c.Raw, "elicitation")
		k.elicitForm = mcp.Member(e, "form") != nil
		k.elicitURL = mcp.Member(e, "url") != nil
		if !k.elicitForm && !k.elicitURL {
			k.elicitForm = true // {} declares form mode
		}
	}
	if k.sampling = c.Has("sampling"); k.sampling {
		k.samplingTools = mcp.Member(mcp.Member(c.Raw, "sampling"), "tools") != nil
	}
	k.roots = c.Has("roots")
	return k
}

func (r *inputRequired) Frame(p *Pass, f *session.Frame) {
	switch {
	case clientRequest(f) && f.Call != nil && mrtrMethods[f.Msg.Method]:
		if caps := f.View().Meta().ClientCapabilities; caps.Known() && !f.Redacted {
			r.caps.put(f.Call, readInputCaps(caps))
		}
	case serverResult(f) && !f.Redacted:
		r.judge(p, f)
	}
}

func (r *inputRequired) judge(p *Pass, f *session.Frame) {
	c := f.Call
	caps, known := r.caps.take(c)
	if rt, _ := f.Msg.Res.ResultTypeString(); rt != "input_required" {
		return
	}
	res := mcp.InputRequired.Of(f.View())
	if res == nil {
		return
	}
	subject := methodSubject(c.Method, c.Name)
	report := func(format string, args ...any) {
		p.Report(f, subject, format, args...).Relate(c.File, c.Line, "request sent here")
	}
	if !mrtrMethods[c.Method] {
		report("%s was answered input_required, which only tools/call, prompts/get and resources/read may be", callName(c))
		return
	}
	if !res.HasInputRequests && !res.HasRequestState {
		report("the input_required result of %s has neither inputRequests nor requestState", callName(c))
	}
	for _, in := range res.InputRequests {
		need := ""
		switch in.Method {
		case "elicitation/create":
			mode, _ := jsonscan.String(mcp.Member(in.Params, "mode"))
			switch {
			case !caps.elicitation:
				need = "elicitation"
			case mode == "url" && !caps.elicitURL:
				need = "elicitation.url"
			case mode != "url" && !caps.elicitForm:
				need = "elicitation.form"
			}
		case "sampling/createMessage":
			switch {
			case !caps.sampling:
				need = "sampling"
			case (mcp.Member(in.Params, "tools") != nil || mcp.Member(in.Params, "toolChoice") != nil) && !caps.samplingTools:
				need = "sampling.tools"
			}
		case "roots/list":
			if !caps.roots {
				need = "roots"
			}
		default:
			what := "a request without a method"
			if in.Method != "" {
				what = in.Method
			}
			report("the input_required result of %s asks for %s (key %s); input requests are elicitation/create, sampling/createMessage or roots/list", callName(c), what, quoteName(in.Key))
			continue
		}
		if need != "" && known {
			report("the input_required result of %s asks for %s (key %s), but the request's clientCapabilities do not declare %s", callName(c), in.Method, quoteName(in.Key), need)
		}
	}
}
