package checks

import (
	"encoding/json"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// The prescan runs only when secret-leak is enabled: a run that disables
// it must not pay for the prefilter on every frame.
func TestPrescanOnlyWithSecretLeak(t *testing.T) {
	t.Parallel()
	if Prescan(All()) == nil {
		t.Error("no prescan with secret-leak enabled")
	}
	var without []*Rule
	for _, r := range All() {
		if r.ID != ruleSecretLeak.ID {
			without = append(without, r)
		}
	}
	if Prescan(without) != nil {
		t.Error("a prescan without secret-leak")
	}
}

// secretPrescan marks every part of a frame the rule reads, and only
// those: a part it skips is scanned again by the rule, on the checking
// goroutine the pipeline exists to unload.
func TestSecretPrescanLooksAtEveryPart(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"jsonrpc":"2.0"}`)
	protocol := func(m session.Message) session.Frame {
		return session.Frame{Direction: session.ServerToClient, Raw: raw, Msg: m}
	}
	for _, c := range []struct {
		name  string
		frame session.Frame
		parts []int
	}{
		{"request", protocol(session.Message{Kind: session.Request, Params: json.RawMessage(`{"a":"b"}`)}), []int{partParams}},
		{"request without params", protocol(session.Message{Kind: session.Request}), nil},
		{"result", protocol(session.Message{Kind: session.Response, Result: json.RawMessage(`{"a":"b"}`)}), []int{partResult}},
		{"error with data", protocol(session.Message{Kind: session.Response, Error: &session.RPCError{Message: "m", Data: json.RawMessage(`{"a":"b"}`)}}), []int{partErrorMessage, partErrorData}},
		{"error without data", protocol(session.Message{Kind: session.Response, Error: &session.RPCError{Message: "m"}}), []int{partErrorMessage}},
		{"stderr", session.Frame{Direction: session.Stderr, HasText: true, Text: "a line"}, []int{partText}},
		{"not JSON-RPC", session.Frame{Direction: session.Meta, Raw: raw}, []int{partRaw}},
	} {
		marks := secretPrescan(&c.frame)
		for part := range numParts {
			want := false
			for _, p := range c.parts {
				want = want || p == part
			}
			if got := marks&(1<<part) != 0; got != want {
				t.Errorf("%s: part %d looked at: %v, want %v", c.name, part, got, want)
			}
			if marks&(1<<(part+numParts)) != 0 {
				t.Errorf("%s: part %d is suspect; nothing in it is", c.name, part)
			}
		}
	}
}

// A frame's prescan excuses secret-leak from it (Quiet) only when every
// part the rule reads was looked at and none is suspect, and the frame has
// no headers, which the prescan does not read.
func TestSecretPrescanQuiet(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"jsonrpc":"2.0"}`)
	request := func(params string) session.Frame {
		return session.Frame{Direction: session.ClientToServer, Raw: raw,
			Msg: session.Message{Kind: session.Request, Method: "tools/call", Params: json.RawMessage(params)}}
	}
	withHeader := request(`{"name":"deploy"}`)
	withHeader.ParamHeaders = []session.ParamHeader{{Name: "Mcp-Param-Region", Value: "eu"}}
	withName := request(`{"name":"deploy"}`)
	withName.MCPName = "deploy"
	for _, c := range []struct {
		name  string
		frame session.Frame
		quiet bool
	}{
		{"plain request", request(`{"name":"deploy","arguments":{"env":"staging"}}`), true},
		{"a secret-named member", request(`{"name":"deploy","arguments":{"api_key":"x"}}`), false},
		{"a vendor token", request(`{"name":"deploy","arguments":{"t":"ghp_0123456789abcdefghijABCDEFGHIJ012345"}}`), false},
		{"a parameter header", withHeader, false},
		{"an Mcp-Name header", withName, false},
		{"a stderr line", session.Frame{Direction: session.Stderr, HasText: true, Text: "listening"}, true},
		{"a stderr line with a key", session.Frame{Direction: session.Stderr, HasText: true, Text: "API_KEY=Zq8vN3pL0xR7tY2mK5wB"}, false},
	} {
		if got := Quiet(secretPrescan(&c.frame)); got != c.quiet {
			t.Errorf("%s: Quiet = %v, want %v", c.name, got, c.quiet)
		}
	}
	for _, r := range All() {
		if got, want := Prescanned(r), r.ID == "secret-leak"; got != want {
			t.Errorf("Prescanned(%s) = %v", r.ID, got)
		}
	}
}
