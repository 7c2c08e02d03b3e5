package checks

import (
	"math"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleCacheFields = &Rule{
	ID:       "cache-fields",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Doc: Doc{
		Summary: "2026-07-28 caching hints that are missing, malformed or inconsistent across pages",
		Why: `2026-07-28 results of server/discover, tools/list, prompts/list,
resources/list, resources/templates/list and resources/read carry caching hints
when they are complete: ttlMs, a non-negative integer of milliseconds the client
may treat the result as fresh, and cacheScope, "public" (shareable across users)
or "private" (one authorization context). A missing or malformed hint leaves
clients and shared gateways to guess, and a guess of "public" can leak one
user's data to another. The pages of one paginated listing must agree on their
scope: a client caches the listing as a whole.

A result is judged by the revision of the request it answers; only the results
of those six methods are judged, interim input_required results carry no
hints, and a server that shows it speaks an earlier revision is not judged.`,
		Fix: `Return "ttlMs":<integer ≥ 0> and "cacheScope":"public"|"private" on every
complete cacheable result (ttlMs 0 and "private" are always safe), the same
scope on every page of a listing.`,
		Bad:   `{"jsonrpc":"2.0","id":2,"result":{"tools":[…],"resultType":"complete","ttlMs":-1,"cacheScope":"shared"}}`,
		Good:  `{"jsonrpc":"2.0","id":2,"result":{"tools":[…],"resultType":"complete","ttlMs":60000,"cacheScope":"public"}}`,
		Since: "0.2.0",
	},
	Revisions: Revisions{Since: session.ModernRevision},
	Facts:     []facts.Fact{facts.Negotiation},
	New: func() Checker {
		return &cacheFields{continues: newCallMemo[pageScope](maxRememberedCalls), cursors: map[string]pageScope{}}
	},
}

// cacheableMethods are the requests whose complete results carry hints.
var cacheableMethods = map[string]bool{
	"server/discover": true, "tools/list": true, "prompts/list": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
}

// maxCachePageCursors bounds the page cursors remembered; past it the oldest is
// forgotten and the page after it is not compared.
const maxCachePageCursors = 1024

type cacheFields struct {
	Base
	continues   *callMemo[pageScope] // list requests that asked for the page after a known one
	cursors     map[string]pageScope // method and nextCursor of each recent page
	cursorOrder []string
}

// pageScope is the scope a page of a listing declared.
type pageScope struct {
	scope string
	line  int
}

func (c *cacheFields) Frame(p *Pass, f *session.Frame) {
	switch {
	case clientRequest(f) && f.Call != nil && cacheableMethods[f.Msg.Method]:
		if cur, ok := jsonscan.String(mcp.Member(f.Msg.Params, "cursor")); ok {
			if prev, known := c.cursors[f.Msg.Method+"\x00"+cur]; known {
				c.continues.put(f.Call, prev)
			}
		}
	case serverResult(f):
		prev, continues := c.continues.take(f.Call)
		if cacheableMethods[f.Call.Method] && f.Msg.Res != nil && !f.Redacted && !legacyServer(p, f.Revision(p.Session)) {
			c.judge(p, f, prev, continues)
		}
	case f.Msg.Kind == session.Response && f.Call != nil:
		c.continues.take(f.Call)
	}
}

func (c *cacheFields) judge(p *Pass, f *session.Frame, prev pageScope, continues bool) {
	call := f.Call
	var rtRaw, ttl, scopeRaw, nextRaw []byte
	_ = jsonscan.EachMember(f.Msg.Result, func(name, v []byte) { // one pass over a result that may be large
		switch string(name) {
		case "resultType":
			rtRaw = v
		case "ttlMs":
			ttl = v
		case "cacheScope":
			scopeRaw = v
		case "nextCursor":
			nextRaw = v
		}
	})
	rt, _ := jsonscan.String(rtRaw)
	var problems []string
	if ttl != nil {
		if why := badTTL(ttl); why != "" {
			problems = append(problems, "ttlMs "+why)
		}
	}
	scope, _ := jsonscan.String(scopeRaw)
	validScope := scope == "public" || scope == "private"
	if scopeRaw != nil && !validScope {
		problems = append(problems, "cacheScope is "+shortJSON(scopeRaw)+", not \"public\" or \"private\"")
	}
	if rt == "complete" {
		switch {
		case ttl == nil && scopeRaw == nil:
			problems = append(problems, "it has neither ttlMs nor cacheScope")
		case ttl == nil:
			problems = append(problems, "it has no ttlMs")
		case scopeRaw == nil:
			problems = append(problems, "it has no cacheScope")
		}
	}
	subject := methodSubject(call.Method, call.Name)
	if len(problems) > 0 {
		p.Report(f, subject, "the result of %s has unusable caching hints: %s", callName(call), strings.Join(problems, "; ")).
			Relate(call.File, call.Line, "request sent here")
	}
	if !validScope {
		return
	}
	if continues && prev.scope != "" && prev.scope != scope {
		p.Report(f, subject, "a page of %s has cacheScope %q, but the page before it in the same listing had %q", call.Method, scope, prev.scope).
			Relate(call.File, prev.line, "previous page here")
	}
	if next, ok := jsonscan.String(nextRaw); ok {
		c.remember(call.Method+"\x00"+next, pageScope{scope: scope, line: f.Line})
	}
}

func (c *cacheFields) remember(key string, ps pageScope) {
	if _, ok := c.cursors[key]; !ok {
		c.cursorOrder = append(c.cursorOrder, key)
		if len(c.cursorOrder) > maxCachePageCursors {
			delete(c.cursors, c.cursorOrder[0])
			c.cursorOrder = c.cursorOrder[1:]
		}
	}
	c.cursors[key] = ps
}

// badTTL says why a ttlMs value is not a non-negative integer ("" when it
// is; 60000.0 is one).
func badTTL(v []byte) string {
	if b := jsonscan.FirstByte(v); b != '-' && (b < '0' || b > '9') {
		return "is a JSON " + jsonscan.Kind(v) + ", not an integer"
	}
	n, err := strconv.ParseFloat(string(v), 64)
	switch {
	case err != nil && !math.IsInf(n, 0):
		return "is not a number"
	case n < 0:
		return "is negative (" + string(v) + ")"
	case n != math.Trunc(n):
		return "is not an integer (" + string(v) + ")"
	}
	return ""
}
