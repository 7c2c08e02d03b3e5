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
