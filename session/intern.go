package session

import (
	"bytes"
	"hash/maphash"
	"strconv"
	"sync/atomic"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// knownStrings are the strings nearly every message repeats: the JSON-RPC
// version and the protocol's method names (from the MCP schemas of every
// revision). Reading them from this table instead of allocating each time
// keeps the per-frame cost of decoding a message down; a method not in it
// is allocated as before.
var knownStrings = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		"2.0",
		"initialize", "ping", "completion/complete", "elicitation/create", "logging/setLevel",
		"prompts/get", "prompts/list", "resources/list", "resources/read", "resources/subscribe",
		"resources/templates/list", "resources/unsubscribe", "roots/list", "sampling/createMessage",
		"server/discover", "subscriptions/listen", "tasks/cancel", "tasks/get", "tasks/list",
		"tasks/result", "tools/call", "tools/list",
		"notifications/cancelled", "notifications/elicitation/complete", "notifications/initialized",
		"notifications/message", "notifications/progress", "notifications/prompts/list_changed",
		"notifications/resources/list_changed", "notifications/resources/updated",
		"notifications/roots/list_changed", "notifications/subscriptions/acknowledged",
		"notifications/tasks/status", "notifications/tools/list_changed",
	} {
		m[s] = s
	}
	return m
}()

// knownString is jsonscan.String(val), without an allocation when val is
// one of knownStrings written without escapes.
func knownString(val []byte) (string, bool) {
	if len(val) >= 2 && val[0] == '"' {
		if s, ok := knownStrings[string(val[1:len(val)-1])]; ok {
			return s, true
		}
	}
	return jsonscan.String(val)
}

// idCache remembers the ids of the last messages, so that an answer, which
// names the id its request was sent with a moment before, reuses that
// request's string instead of allocating its own. Direct-mapped and of a
// fixed size: memory stays bounded, and an id evicted is only allocated
// again.
type idCache struct {
	seed   maphash.Seed
	seeded bool
	table  [256]string
}

// make is MakeID(raw).
func (c *idCache) make(raw []byte) ID {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || len(raw) > 64 || raw[0] == '{' || raw[0] == '[' || (raw[0] == '"' && bytes.IndexByte(raw, '\\') >= 0) {
		return MakeID(raw) // absent, long, or rewritten to its exact token
	}
	if s, ok := smallIDs.token(raw); ok {
		return ID{s}
	}
	if !c.seeded {
		c.seed, c.seeded = maphash.MakeSeed(), true
	}
	slot := &c.table[maphash.Bytes(c.seed, raw)%uint64(len(c.table))]
	if *slot != string(raw) {
		*slot = string(raw)
	}
	return ID{*slot}
}

// smallIDs are the tokens of the integer ids below smallIDCount, made once
// for the process: clients number their requests from 0 or 1 in every
// session, so a capture of many sessions repeats the same few thousand ids,
// and each new request's id would otherwise be allocated.
var smallIDs smallIDTable

const smallIDCount = 1 << 16

type smallIDTable struct {
	table [smallIDCount]atomic.Pointer[string] // filled on first use; safe for concurrent readers
}

// token is the interned token of raw when raw is an integer below
// smallIDCount written plainly (no sign, fraction, exponent or leading 0).
func (t *smallIDTable) token(raw []byte) (string, bool) {
	if len(raw) == 0 || len(raw) > 5 || (raw[0] == '0' && len(raw) > 1) {
		return "", false
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			return "", false
		}
		n = n*10 + int(c-'0')
	}
	if n >= smallIDCount {
		return "", false
	}
	slot := &t.table[n]
	if p := slot.Load(); p != nil {
		return *p, true
	}
	s := strconv.Itoa(n)
	slot.Store(&s)
	return s, true
}
