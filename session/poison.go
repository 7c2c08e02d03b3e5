package session

import "encoding/json"

// poisoned is what a reused frame holds between envelopes in tests.
var poisoned = Frame{File: "poisoned", Line: -1, SessionID: "poisoned: a frame kept without detach",
	Direction: Direction(99), Raw: json.RawMessage(`{"poisoned":true}`), Msg: Message{Kind: Invalid, Problem: "poisoned"}}

var poisonedStore = msgStore{req: RequestParams{Name: "poisoned", URI: "poisoned:"}, res: ResultFields{IsError: true, ProtocolVersion: "poisoned"}}

// Poison overwrites a reused frame and its message store (keeping the
// store's id cache) once it has been added, under a test buffer size: a
// handler that kept either without detaching sees garbage.
func Poison(f *Frame, st *MessageStore) {
	*f = poisoned
	ids := st.ids
	*st = poisonedStore
	st.ids = ids
}
