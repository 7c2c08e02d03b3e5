package mcp

import "github.com/mcpcheck/mcpcheck/internal/jsonscan"

// Views of 2026-07-28 payloads: multi round-trip results and
// subscriptions/listen streams.

// InputRequest is one entry of an InputRequiredResult's inputRequests: a
// request the server asks the client to fulfil before it retries.
type InputRequest struct {
	Key    string
	Method string // "" when missing or not a string
	Params []byte // raw; nil when absent
}

// InputRequiredResult is a result whose resultType is input_required.
type InputRequiredResult struct {
	HasInputRequests bool           // the member is present, of any type
	InputRequests    []InputRequest // its entries when it is an object, in document order
	HasRequestState  bool           // the member is present, of any type
}

// InputRequired is the result of a request answered input_required; nil
// for any other result.
var InputRequired = &Lazy[*InputRequiredResult]{Decode: func(v *View) *InputRequiredResult {
	if rt, _ := v.ResultType(); rt != "input_required" {
		return nil
	}
	r := &InputRequiredResult{}
	_ = jsonscan.EachMember(v.Result(), func(name, val []byte) {
		switch string(name) {
		case "inputRequests":
			r.HasInputRequests = true
			_ = jsonscan.EachMember(object(val), func(key, req []byte) {
				in := InputRequest{Key: string(key), Params: Member(req, "params")}
				in.Method, _ = jsonscan.String(Member(req, "method"))
				r.InputRequests = append(r.InputRequests, in)
			})
		case "requestState":
			r.HasRequestState = true
		}
	})
	return r
}}

// SubscriptionFilter is the notifications a subscriptions/listen request
// opts in to.
type SubscriptionFilter struct {
	ToolsListChanged, PromptsListChanged, ResourcesListChanged bool
	ResourceSubscriptions                                      []string // copies
}

// ListenFilter is the filter of a subscriptions/listen request; nil when
// its params carry no notifications object.
var ListenFilter = &Lazy[*SubscriptionFilter]{Decode: func(v *View) *SubscriptionFilter {
	if v.Method() != "subscriptions/listen" {
		return nil
	}
	raw := object(Member(v.Params(), "notifications"))
	if raw == nil {
		return nil
	}
	f := &SubscriptionFilter{}
	_ = jsonscan.EachMember(raw, func(name, val []byte) {
		switch string(name) {
		case "toolsListChanged":
			f.ToolsListChanged = jsonscan.Bool(val)
		case "promptsListChanged":
			f.PromptsListChanged = jsonscan.Bool(val)
		case "resourcesListChanged":
			f.ResourcesListChanged = jsonscan.Bool(val)
		case "resourceSubscriptions":
			for _, el := range jsonscan.Elements(val) {
				if s, ok := jsonscan.String(el); ok {
					f.ResourceSubscriptions = append(f.ResourceSubscriptions, s)
				}
			}
		}
	})
	return f
}}

// SubscriptionID is the raw io.modelcontextprotocol/subscriptionId of a
// notification's _meta: the id of the subscriptions/listen request whose
// stream carried it. nil when absent.
func SubscriptionID(v *View) []byte {
	if p := v.ParamFields(); p != nil {
		return Member(p.Meta.Raw, "io.modelcontextprotocol/subscriptionId")
	}
	return nil
}
