package session_test

import (
	"fmt"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
	"strings"
	"testing"
)

// pairings renders each delivered frame as "line:pairing", in delivery order.
func pairings(rec *recorder) string {
	var out []string
	for _, f := range rec.frames {
		if f.Pairing != session.Unpaired {
			out = append(out, fmt.Sprintf("%d:%s", f.Line, f.Pairing))
		}
	}
	return strings.Join(out, " ")
}

func byLine(rec *recorder, line int) *session.Frame {
	for _, f := range rec.frames {
		if f.Line == line {
			return f
		}
	}
	return &session.Frame{}
}

func httpEnv(seq int, dir, conn, raw string, extra ...string) string {
	return env(seq, dir, raw, append([]string{fmt.Sprintf(`"conn_id":%q`, conn)}, extra...)...)
}

func TestIDsAreExactTokens(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`),
		env(2, "c2s", `{"jsonrpc":"2.0","id":"1","method":"ping"}`),
		env(3, "c2s", `{"jsonrpc":"2.0","id":1.0,"method":"ping"}`),
		env(4, "s2c", `{"jsonrpc":"2.0","id":"\u0031","result":{}}`),
		env(5, "s2c", `{"jsonrpc":"2.0","id":1.0,"result":{}}`),
		env(6, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`),
	))
	if got, want := pairings(rec), "1:opened 2:opened 3:opened 4:answered 5:answered 6:answered"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	for i, want := range []int{2, 3, 1} {
		if rec.frames[3+i].Call.Line != want {
			t.Errorf("answer at line %d paired with line %d, want %d", rec.frames[3+i].Line, rec.frames[3+i].Call.Line, want)
		}
	}
}

func TestAnswerRecordedBeforeItsRequest(t *testing.T) {
	t.Parallel()
	var ls []string
	ls = append(ls, env(1, "s2c", `{"jsonrpc":"2.0","id":2,"result":{}}`))
	ls = append(ls, env(2, "c2s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	rec := readString(t, lines(ls...))
	if got := pairings(rec); got != "2:opened 1:answered" {
		t.Errorf("within the window: %s", got)
	}
	// the request is the 64th frame after the answer: still inside
	ls = ls[:1]
	for i := 0; i < session.ReorderWindow-1; i++ {
		ls = append(ls, env(2+i, "stderr", "", `"text":"log line"`))
	}
	rec = readString(t, lines(append(ls, env(1+session.ReorderWindow, "c2s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`))...))
	if got := pairings(rec); got != "65:opened 1:answered" {
		t.Errorf("at the edge of the window: %s", got)
	}
	// one frame later the answer is unmatched, and the request pending
	ls = append(ls, env(1+session.ReorderWindow, "stderr", "", `"text":"log line"`))
	ls = append(ls, env(2+session.ReorderWindow, "c2s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	rec = readString(t, lines(ls...))
	if got := pairings(rec); got != "1:unmatched 66:opened" {
		t.Errorf("beyond the window: %s", got)
	}
	if u := rec.sessions[0].Unfinished(); len(u) != 1 {
		t.Errorf("unfinished %v", u)
	}
}

func TestHTTPConnections(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		httpEnv(1, "c2s", "a", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`),
		httpEnv(2, "s2c", "a", `{"jsonrpc":"2.0","id":7,"method":"roots/list"}`),
		httpEnv(3, "c2s", "b", `{"jsonrpc":"2.0","id":7,"result":{"roots":[]}}`),
		httpEnv(4, "c2s", "c", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`),
		// two candidates on other connections: ambiguous, not guessed
		httpEnv(5, "c2s", "d", `{"jsonrpc":"2.0","id":9,"method":"ping"}`),
		httpEnv(6, "c2s", "e", `{"jsonrpc":"2.0","id":9,"method":"ping"}`),
		httpEnv(7, "s2c", "f", `{"jsonrpc":"2.0","id":9,"result":{}}`),
		httpEnv(8, "s2c", "d", `{"jsonrpc":"2.0","id":9,"result":{}}`),
		httpEnv(9, "s2c", "e", `{"jsonrpc":"2.0","id":9,"result":{}}`),
	))
	got := pairings(rec)
	for _, want := range []string{"3:answered", "4:cancelling", "8:answered", "9:answered", "7:unmatched"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
	if rec.frames[3].Call == nil || rec.frames[3].Call.State != session.Cancelled {
		t.Errorf("cross-connection cancel did not cancel: %+v", rec.frames[3].Call)
	}
	if u := rec.sessions[0].Unfinished(); len(u) != 0 {
		t.Errorf("unfinished: %v", u[0].Label())
	}
}

func TestIDLessErrorPairsWithItsExchange(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		httpEnv(1, "c2s", "a", `{"jsonrpc":"2.0","id":13,"method":"logging/setLevel","params":{"level":"debug"}}`, `"mcp_protocol_version":"2026-07-28"`),
		httpEnv(2, "s2c", "a", `{"jsonrpc":"2.0","error":{"code":-32602,"message":"missing _meta"}}`, `"status":400`),
		httpEnv(3, "c2s", "b", `{"jsonrpc":"2.0","id":14,"method":"ping"}`),
		httpEnv(4, "s2c", "b", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}`, `"status":400`),
		// on stdio nothing pairs by exchange
		env(5, "c2s", `{"jsonrpc":"2.0","id":15,"method":"ping"}`),
		env(6, "s2c", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`),
	))
	if got := pairings(rec); got != "1:opened 2:answered 3:opened 4:answered 5:opened 6:unmatched" {
		t.Errorf("got %s", got)
	}
	if c := rec.frames[1].Call; c == nil || c.State != session.Failed || c.ID.String() != "13" {
		t.Errorf("call %+v", c)
	}
}

func TestVersionProbe(t *testing.T) {
	t.Parallel()
	probe := env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	rejected := env(2, "s2c", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`)
	initialize := env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	result := env(4, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	rec := readString(t, lines(probe, rejected, initialize, result))
	if got := pairings(rec); got != "1:opened 2:probe-fallback 3:opened 4:answered" {
		t.Errorf("fallback: %s", got)
	}
	if rev := rec.sessions[0].Revision; rev != "2025-06-18" {
		t.Errorf("session revision %q, want the negotiated 2025-06-18", rev)
	}
	rec = readString(t, lines(probe, rejected, env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)))
	if got := pairings(rec); !strings.HasPrefix(got, "1:opened 2:answered") {
		t.Errorf("no fallback: %s", got)
	}
	rec = readString(t, lines(probe, rejected))
	if got := pairings(rec); got != "1:opened 2:answered" {
		t.Errorf("capture ends after the probe: %s", got)
	}
	if rev := rec.sessions[0].Revision; rev != "" {
		t.Errorf("a rejected probe made the session %q", rev)
	}
}

func TestStatesAndSeqGaps(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`),
		env(2, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b"}}`),
		env(3, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`),
		env(4, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`),
		env(7, "c2s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`),
		env(8, "c2s", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`),
		env(5, "s2c", `{"jsonrpc":"2.0","id":2,"result":{}}`),
		env(9, "c2s", `{"jsonrpc":"2.0","id":null,"method":"ping"}`),
		env(10, "c2s", `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"notifications":{}}}`),
	))
	// a duplicate is decided when the reorder window closes, so it comes last
	if got, want := pairings(rec), "1:opened 2:reused 3:answered 5:opened 6:cancelling 7:late 8:untracked 9:opened 4:duplicate"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if rec.frames[0].Call.State != session.Superseded || rec.frames[1].Call.Superseded != rec.frames[0].Call {
		t.Error("the reused id did not supersede the call in flight")
	}
	s := rec.sessions[0]
	if s.MissingFrames != 2 || byLine(rec, 5).GapBefore != 2 || byLine(rec, 7).GapBefore != 0 {
		t.Errorf("missing %d, gap %d/%d", s.MissingFrames, byLine(rec, 5).GapBefore, byLine(rec, 7).GapBefore)
	}
	if u := s.Unfinished(); len(u) != 0 {
		t.Errorf("a listen stream, a null-id request and a cancelled call are not pending: %v", u[0].Label())
	}
}

func TestTasksStayOpenUntilTerminal(t *testing.T) {
	t.Parallel()
	capture := []string{
		env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"build","task":{"ttl":60000}}}`),
		env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t-1","status":"working","createdAt":"2026-09-01T10:00:00Z"}}}`),
		env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t-1"}}`),
		env(4, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"taskId":"t-1","status":"working"}}`),
	}
	rec := readString(t, lines(capture...))
	if u := rec.sessions[0].Unfinished(); len(u) != 1 || u[0].State != session.TaskRunning {
		t.Fatalf("a running task must be unfinished: %v", u)
	}
	capture = append(capture, env(5, "s2c", `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t-1","status":"failed","statusMessage":"compiler crashed"}}`))
	rec = readString(t, lines(capture...))
	f := rec.frames[4]
	if f.Task == nil || f.Task.Status != "failed" || f.Task.Call.State != session.Failed || f.Task.Call.EndLine != 5 {
		t.Fatalf("terminal status not recorded: %+v", f.Task)
	}
	if u := rec.sessions[0].Unfinished(); len(u) != 0 {
		t.Errorf("finished task still unfinished")
	}
}

func TestMultiRoundTripOperations(t *testing.T) {
	t.Parallel()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	rec := readString(t, lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy",`+meta+`}}`),
		env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{}}},"requestState":"opaque-1"}}`),
		env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","requestState":"opaque-1","inputResponses":{"confirm":{"action":"accept"}},`+meta+`}}`),
		env(4, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"region":{"method":"elicitation/create","params":{}}}}}`),
		env(5, "c2s", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","inputResponses":{"region":{"action":"accept"}},`+meta+`}}`),
		env(6, "s2c", `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}`),
		env(7, "c2s", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"deploy",`+meta+`}}`),
		env(8, "s2c", `{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{}}},"requestState":"opaque-2"}}`),
	))
	last := rec.frames[5].Call
	if last.Op == nil || last.Op.Requests != 3 || last.Op.First.ID.String() != "1" || last.Op.Parked || last.Revision != "2026-07-28" {
		t.Fatalf("chain not linked: %+v", last.Op)
	}
	if rev := rec.sessions[0].Revision; rev != "2026-07-28" {
		t.Errorf("a session without initialize takes its requests' revision: %q", rev)
	}
	if u := rec.sessions[0].Unfinished(); len(u) != 1 || u[0].ID.String() != "4" || u[0].State != session.Parked {
		t.Errorf("the parked operation must be unfinished: %v", u)
	}
}

func TestParkedOperationsAreCapped(t *testing.T) {
	t.Parallel()
	var ls []string
	for i := 1; i <= session.MaxParkedOperations+3; i++ {
		ls = append(ls,
			env(2*i-1, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t%d"}}`, i, i)),
			env(2*i, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"input_required","requestState":"s%d"}}`, i, i)))
	}
	rec := readString(t, lines(ls...))
	s := rec.sessions[0]
	if s.RetiredOperations != 3 || len(s.Unfinished()) != session.MaxParkedOperations {
		t.Errorf("retired %d, parked %d", s.RetiredOperations, len(s.Unfinished()))
	}
}

func TestMessageKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		raw     string
		kind    session.Kind
		problem string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, session.Request, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session.Notification, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, session.Response, ""},
		{`{"jsonrpc":"2.0","id":1}`, session.Response, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, session.Invalid, "array"},
		{`"hello"`, session.Invalid, "string"},
		{`42`, session.Invalid, "number"},
		{`{"level":"info","msg":"started"}`, session.Invalid, "none of the JSON-RPC members"},
		{`{"jsonrpc":"2.0","id":1,"method":7}`, session.Invalid, "method is a JSON number"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`, session.Invalid, "params is a JSON string"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":"oops","message":"x"}}`, session.Invalid, "integer code"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601.5,"message":"x"}}`, session.Invalid, "integer code"},
	}
	for _, c := range cases {
		m := session.DecodeMessage([]byte(c.raw))
		if m.Kind != c.kind || !strings.Contains(m.Problem, c.problem) {
			t.Errorf("%s: kind %v problem %q, want %v %q", c.raw, m.Kind, m.Problem, c.kind, c.problem)
		}
	}
	for tok, kind := range map[string]session.IDKind{`1`: session.IDInteger, `-3`: session.IDInteger, `1.0`: session.IDInteger, `1.5`: session.IDFraction, `1e3`: session.IDInteger, `12345678901234567890`: session.IDInteger, `1e400`: session.IDInteger, `1e-400`: session.IDFraction, `100e-2`: session.IDInteger, `123e-2`: session.IDFraction, `-0.0e9`: session.IDInteger, `-0.5`: session.IDFraction, `"a"`: session.IDString, `null`: session.IDNull, `true`: session.IDOther, `{"a":1}`: session.IDOther, `[1]`: session.IDOther} {
		if got := session.MakeID([]byte(tok)).Kind(); got != kind {
			t.Errorf("MakeID(%s).Kind() = %v, want %v", tok, got, kind)
		}
	}
	// an integer beyond 64 bits is one no peer's integer type holds
	for tok, fits := range map[string]bool{`1e400`: false, `1e20`: false, `1e19`: true, `18446744073709551615`: true, `18446744073709551616`: false,
		`-9223372036854775808`: true, `-9223372036854775809`: false, `2.5e1`: true, `1e-400`: false, `0`: true,
		`-0`: true, `999999999999999999`: true, `99999999999999999999`: false, `123456789012345678901`: false} {
		if got := session.MakeID([]byte(tok)).IntegerFits64(); got != fits {
			t.Errorf("MakeID(%s).IntegerFits64() = %v, want %v", tok, got, fits)
		}
	}
}

// An answer recorded before its request is held even when an earlier call
// used the same id: ids may be reused once answered (2026-07-28), and HTTP
// ids are scoped per connection.
func TestEarlyAnswerWithAReusedID(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		httpEnv(1, "c2s", "a", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
		httpEnv(2, "s2c", "a", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`),
		httpEnv(3, "s2c", "b", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`),
		httpEnv(4, "c2s", "b", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
	))
	if got := pairings(rec); got != "1:opened 2:answered 4:opened 3:answered" {
		t.Errorf("got %s", got)
	}
}

// Held answers are bounded in bytes: past the budget the oldest is decided
// at once, and its request, when it comes, finds nothing to pair with.
func TestHeldAnswersAreBounded(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 6<<20)
	var ls []string
	for i := 1; i <= 4; i++ {
		ls = append(ls, env(i, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}`, 100+i, big)))
	}
	ls = append(ls,
		env(5, "c2s", `{"jsonrpc":"2.0","id":104,"method":"tools/call","params":{"name":"read"}}`),
		env(6, "c2s", `{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"read"}}`))
	rec := readStringWith(t, lines(ls...), readers.Options{Limits: session.Limits{MaxHeldBytes: 16 << 20}})
	if got, want := pairings(rec), "1:unmatched 2:unmatched 5:opened 4:answered 6:opened 3:unmatched"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A JSON body that is not JSON-RPC on an HTTP error answers its exchange.
func TestHTTPErrorWithNonJSONRPCBody(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		httpEnv(1, "c2s", "a", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
		httpEnv(2, "s2c", "a", `{"error":"invalid_token","error_description":"expired"}`, `"status":401`),
	))
	if f := rec.frames[1]; !f.HTTPErrorBody() || f.Pairing != session.Answered || f.Call == nil || f.Call.State != session.Failed {
		t.Errorf("frame %+v", f)
	}
}

// A request's own revision: its _meta version, else its header, else the
// session's; `draft` is 2026-07-28. A session whose initialize was never
// answered takes the version the client offered.
func TestRevisions(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		env(2, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"draft"}}}`),
		env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `"mcp_protocol_version":"draft"`),
		env(4, "c2s", `{"jsonrpc":"2.0","id":3,"method":"ping"}`),
	))
	for i, want := range []string{"", session.ModernRevision, session.ModernRevision, ""} {
		if got := rec.frames[i].Call.Revision; got != want {
			t.Errorf("frame %d: revision %q, want %q", i+1, got, want)
		}
	}
	if rev := rec.sessions[0].Revision; rev != "2025-03-26" {
		t.Errorf("session revision %q, want the offered 2025-03-26", rev)
	}
}

// webEnv builds one envelope of an HTTP session: transport http, a
// connection and, for answers, a status.
func webEnv(seq int, dir, conn, raw string, extra ...string) string {
	e := httpEnv(seq, dir, conn, raw, extra...)
	return strings.Replace(e, `"transport":"stdio"`, `"transport":"http"`, 1)
}

const (
	discover   = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	initialize = `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	initResult = `{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`
)

// The fallback initialize may be recorded before the rejection of the probe
// that triggered it: the rejection is still negotiation.
func TestProbeFallbackRecordedBeforeTheRejection(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"-32601", "-32602", "-32022"} {
		rec := readString(t, lines(
			env(1, "c2s", discover),
			env(2, "c2s", initialize),
			env(3, "s2c", `{"jsonrpc":"2.0","id":1,"error":{"code":`+code+`,"message":"no"}}`),
			env(4, "s2c", initResult),
		))
		if got, want := pairings(rec), "1:opened 2:opened 3:probe-fallback 4:answered"; got != want {
			t.Errorf("%s: got %s, want %s", code, got, want)
		}
		if rev := rec.sessions[0].Revision; rev != "2025-11-25" {
			t.Errorf("%s: session revision %q", code, rev)
		}
	}
	// an initialize before the probe is no fallback from it
	rec := readString(t, lines(
		env(1, "c2s", initialize),
		env(2, "s2c", initResult),
		env(3, "c2s", discover),
		env(4, "s2c", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`),
		env(5, "c2s", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`),
	))
	if got := pairings(rec); !strings.Contains(got, "4:answered") {
		t.Errorf("initialize first: %s", got)
	}
	// nor is any other answer to the probe
	rec = readString(t, lines(
		env(1, "c2s", discover),
		env(2, "c2s", initialize),
		env(3, "s2c", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`),
	))
	if got := pairings(rec); !strings.Contains(got, "3:answered") {
		t.Errorf("an internal error: %s", got)
	}
}

// Over HTTP the rejection may carry no id: it answers the probe's exchange,
// not the initialize recorded after the probe on the same connection.
func TestProbeFallbackRecordedFirstOverHTTP(t *testing.T) {
	t.Parallel()
	nullID := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}`
	cases := []struct {
		name      string
		rejection string
		initConn  string
	}{
		{"null id, same connection", webEnv(3, "s2c", "a", nullID, `"status":400`), "a"},
		{"no id, same connection", webEnv(3, "s2c", "a", `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}`, `"status":400`), "a"},
		{"status only, same connection", webEnv(3, "s2c", "a", "", `"status":400`), "a"},
		{"text body, same connection", webEnv(3, "s2c", "a", "", `"status":400`, `"text":"Bad Request: unsupported MCP-Protocol-Version"`), "a"},
		{"null id, other connection", webEnv(3, "s2c", "a", nullID, `"status":400`), "b"},
		{"status only, other connection", webEnv(3, "s2c", "a", "", `"status":404`), "b"},
	}
	for _, c := range cases {
		rec := readString(t, lines(
			webEnv(1, "c2s", "a", discover),
			webEnv(2, "c2s", c.initConn, initialize),
			c.rejection,
			webEnv(4, "s2c", c.initConn, initResult, `"status":200`),
		))
		if got, want := pairings(rec), "1:opened 2:opened 3:probe-fallback 4:answered"; got != want {
			t.Errorf("%s: got %s, want %s", c.name, got, want)
		}
		if f := byLine(rec, 3); f.Call == nil || f.Call.Method != "server/discover" || f.Call.State != session.Failed {
			t.Errorf("%s: the rejection answered %+v", c.name, f.Call)
		}
		if u := rec.sessions[0].Unfinished(); len(u) != 0 {
			t.Errorf("%s: unfinished %s", c.name, u[0].Label())
		}
	}
	// the probe takes precedence over an initialize only
	rec := readString(t, lines(
		webEnv(1, "c2s", "a", discover),
		webEnv(2, "c2s", "a", `{"jsonrpc":"2.0","id":2,"method":"ping"}`),
		webEnv(3, "s2c", "a", nullID, `"status":400`),
	))
	if f := byLine(rec, 3); f.Call == nil || f.Call.Method != "ping" || f.Pairing != session.Answered {
		t.Errorf("a ping recorded after the probe: %+v", f.Call)
	}
	// with no initialize at all the rejection stays an error answer
	rec = readString(t, lines(
		webEnv(1, "c2s", "a", discover),
		webEnv(2, "s2c", "a", nullID, `"status":400`),
	))
	if got := pairings(rec); got != "1:opened 2:answered" {
		t.Errorf("no fallback: %s", got)
	}
}

// Two probes turned down before the client's next request share its verdict.
func TestSeveralHeldProbes(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		webEnv(1, "c2s", "a", discover),
		webEnv(2, "c2s", "b", strings.Replace(discover, `"id":1`, `"id":7`, 1)),
		webEnv(3, "s2c", "a", "", `"status":400`),
		webEnv(4, "s2c", "b", "", `"status":400`),
		webEnv(5, "c2s", "a", initialize),
	))
	if got, want := pairings(rec), "1:opened 2:opened 3:probe-fallback 4:probe-fallback 5:opened"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// past the bound the oldest are decided early, as error answers
	var ls []string
	for i := 1; i <= session.MaxHeldProbes+2; i++ {
		ls = append(ls, webEnv(i, "c2s", fmt.Sprint("c", i), strings.Replace(discover, `"id":1`, fmt.Sprintf(`"id":%d`, i), 1)))
	}
	for i := 1; i <= session.MaxHeldProbes+2; i++ {
		ls = append(ls, webEnv(session.MaxHeldProbes+2+i, "s2c", fmt.Sprint("c", i), "", `"status":400`))
	}
	rec = readString(t, lines(append(ls, webEnv(2*session.MaxHeldProbes+5, "c2s", "c1", initialize))...))
	fallbacks := strings.Count(pairings(rec), "probe-fallback")
	if answered := strings.Count(pairings(rec), "answered"); fallbacks != session.MaxHeldProbes || answered != 2 {
		t.Errorf("%d fallbacks, %d answered: %s", fallbacks, answered, pairings(rec))
	}
}

const (
	mrtrMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	deploy   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy",` + mrtrMeta + `}}`
	retry2   = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","requestState":"st-1","inputResponses":{"confirm":{"action":"accept"}},` + mrtrMeta + `}}`
	needs1   = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{}}},"requestState":"st-1"}}`
	done2    = `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}`
)

// A retry recorded before the input_required result that issued its state
// is linked when the result arrives, and delivered after it.
func TestRetryRecordedBeforeInputRequired(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		env(1, "c2s", deploy),
		env(2, "c2s", retry2),
		env(3, "s2c", needs1),
		env(4, "s2c", done2),
	))
	if got, want := pairings(rec), "1:opened 3:answered 2:opened 4:answered"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	retry := byLine(rec, 2).Call
	if op := retry.Op; op == nil || op.Requests != 2 || op.First.ID.String() != "1" || op.Parked || op.Last != retry {
		t.Fatalf("not linked: %+v", retry.Op)
	}
	if first := byLine(rec, 1).Call; first.State != session.Completed || retry.State != session.Completed {
		t.Errorf("states %v %v", first.State, retry.State)
	}
	if u := rec.sessions[0].Unfinished(); len(u) != 0 {
		t.Errorf("unfinished %s", u[0].Label())
	}
	// a handler sees each frame as it would in capture order: the result
	// parks its call, the retry then continues the operation
	snap := &snapshots{}
	if err := readers.Read("test.jsonl", strings.NewReader(lines(env(1, "c2s", deploy), env(2, "c2s", retry2), env(3, "s2c", needs1))), snap, readers.Options{}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(snap.seen, " "), "1:pending/- 3:parked/1 2:pending/2"; got != want {
		t.Errorf("seen %s, want %s", got, want)
	}

	// three hops, each retry ahead of the result it continues, matched by
	// input keys when the server issued no state
	rec = readString(t, lines(
		env(1, "c2s", deploy),
		env(2, "c2s", retry2),
		env(3, "s2c", needs1),
		env(4, "c2s", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","inputResponses":{"region":{"action":"accept"}},`+mrtrMeta+`}}`),
		env(5, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"region":{"method":"elicitation/create","params":{}}}}}`),
		env(6, "s2c", `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}`),
	))
	if got, want := pairings(rec), "1:opened 3:answered 2:opened 5:answered 4:opened 6:answered"; got != want {
		t.Errorf("three hops: got %s, want %s", got, want)
	}
	if op := byLine(rec, 4).Call.Op; op == nil || op.Requests != 3 || op.First != byLine(rec, 1).Call {
		t.Errorf("three hops not one operation: %+v", op)
	}
}

// A retry that no input_required explains stays unlinked and is delivered
// when it is answered, or when the reorder window closes.
func TestUnexplainedRetry(t *testing.T) {
	t.Parallel()
	stale := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","requestState":"st-0","inputResponses":{"region":{"action":"accept"}},` + mrtrMeta + `}}`
	rec := readString(t, lines(
		env(1, "c2s", deploy),
		env(2, "c2s", stale),
		env(3, "s2c", needs1),
		env(4, "s2c", `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"unknown requestState"}}`),
	))
	if got, want := pairings(rec), "1:opened 3:answered 2:opened 4:answered"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if c := byLine(rec, 2).Call; c.Op != nil {
		t.Errorf("linked to %+v", c.Op)
	}
	if u := rec.sessions[0].Unfinished(); len(u) != 1 || u[0].State != session.Parked || u[0].ID.String() != "1" {
		t.Errorf("the parked call must stay unfinished: %v", u)
	}

	// its answer comes first: the request is delivered before it
	rec = readString(t, lines(
		env(1, "c2s", stale),
		env(2, "s2c", `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"unknown requestState"}}`),
	))
	if got, want := pairings(rec), "1:opened 2:answered"; got != want {
		t.Errorf("answered: got %s, want %s", got, want)
	}

	// past the window the retry is delivered unlinked, and a result after
	// that parks its call
	ls := []string{env(1, "c2s", deploy), env(2, "c2s", retry2)}
	for i := 0; i < session.ReorderWindow; i++ {
		ls = append(ls, env(3+i, "stderr", "", `"text":"working"`))
	}
	ls = append(ls, env(3+session.ReorderWindow, "s2c", needs1))
	rec = readString(t, lines(ls...))
	if got, want := pairings(rec), fmt.Sprintf("1:opened 2:opened %d:answered", 3+session.ReorderWindow); got != want {
		t.Errorf("window: got %s, want %s", got, want)
	}
	if byLine(rec, 2).Call.Op != nil || len(rec.sessions[0].Unfinished()) != 2 {
		t.Errorf("beyond the window the retry must stay unlinked")
	}
}

// Held retries count against the file's byte budget like held answers.
func TestHeldRetriesAreBounded(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 6<<20)
	rec := readStringWith(t, lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","requestState":"`+big+`"}}`),
		env(2, "c2s", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"b","requestState":"`+big+`"}}`),
	), readers.Options{Limits: session.Limits{MaxHeldBytes: 8 << 20}})
	if got, want := pairings(rec), "1:opened 2:opened"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// Transport plumbing: the legacy HTTP+SSE endpoint event and its 202
// acknowledgements, and a 405 that answers no recorded request.
func TestTransportPlumbing(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		webEnv(1, "s2c", "sse", "", `"status":200`, `"text":"/messages?sessionId=2b7c9e4a"`),
		webEnv(2, "s2c", "sse", "", `"status":200`, `"text":"http://127.0.0.1:3001/messages/?session_id=9f3c"`),
		webEnv(3, "c2s", "p1", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		webEnv(4, "s2c", "p1", "", `"status":202`, `"text":"Accepted"`),
		webEnv(5, "s2c", "sse", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`, `"status":200`),
		webEnv(6, "s2c", "g", "", `"status":405`),
		webEnv(7, "s2c", "g", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}`, `"status":405`),
		webEnv(8, "s2c", "g", "", `"status":405`, `"text":"Method Not Allowed"`),
	))
	if got, want := pairings(rec), "1:plumbing 2:plumbing 3:opened 4:plumbing 5:answered 6:plumbing 7:plumbing 8:plumbing"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, f := range rec.frames {
		if f.TransportPlumbing() != (f.Pairing == session.Plumbing) {
			t.Errorf("line %d: TransportPlumbing disagrees with its pairing", f.Line)
		}
	}

	// what stays protocol traffic or an HTTP error
	rec = readString(t, lines(
		env(1, "s2c", "", `"text":"/messages?sessionId=2b7c9e4a"`),                  // stdio: pollution
		webEnv(2, "s2c", "sse", "", `"status":200`, `"text":"Server listening"`),    // not a URL
		webEnv(3, "s2c", "sse", "", `"status":200`, `"text":"ftp://example.com/x"`), // not http
		webEnv(4, "s2c", "g", "", `"status":401`),
		webEnv(5, "s2c", "g", "", `"status":403`),
		webEnv(6, "s2c", "g", "", `"status":500`),
		webEnv(7, "c2s", "p", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
		webEnv(8, "s2c", "p", "", `"status":405`), // answers the POST just before it
	))
	if got, want := pairings(rec), "7:opened 8:answered"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// snapshots records, as each frame is delivered, its call's state and the
// round trips of its operation.
type snapshots struct{ seen []string }

func (r *snapshots) Frame(s *session.Session, f *session.Frame) {
	if c := f.Call; c != nil {
		n := "-"
		if c.Op != nil {
			n = fmt.Sprint(c.Op.Requests)
		}
		r.seen = append(r.seen, fmt.Sprintf("%d:%s/%s", f.Line, c.State, n))
	}
}
func (r *snapshots) Damage(*session.Session, session.Damage) {}
func (r *snapshots) End(*session.Session)                    {}

// revisionRecorder notes each frame's revision when it is delivered, as the
// checks driver asks it.
type revisionRecorder struct {
	recorder
	revs []string
}

func (r *revisionRecorder) Frame(s *session.Session, f *session.Frame) {
	r.recorder.Frame(s, f)
	r.revs = append(r.revs, f.Revision(s))
}

// A session without a handshake takes the revision its accepted requests
// declared: a server's notification then has one, a rejected probe gives
// none, and a legacy handshake overrides it. A client request that shows
// no revision stays unknown, and so does its answer.
func TestRevisionOfAHandshakelessSession(t *testing.T) {
	t.Parallel()
	notify := `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	cases := []struct {
		name string
		ls   []string
		want string // the notification's revision
	}{
		{"accepted discover", []string{
			env(1, "c2s", discover),
			env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"complete","ttlMs":0,"cacheScope":"public"}}`),
			env(3, "s2c", notify),
		}, session.ModernRevision},
		{"rejected probe", []string{
			env(1, "c2s", discover),
			env(2, "s2c", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`),
			env(3, "s2c", notify),
		}, ""},
		{"fallback initialize", []string{
			env(1, "c2s", discover),
			env(2, "s2c", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`),
			env(3, "c2s", initialize),
			env(4, "s2c", initResult),
			env(5, "s2c", notify),
		}, "2025-11-25"},
	}
	for _, c := range cases {
		rec := &revisionRecorder{}
		if err := readers.Read("test.jsonl", strings.NewReader(lines(c.ls...)), rec, readers.Options{}); err != nil {
			t.Fatal(err)
		}
		for i, f := range rec.frames {
			if f.Msg.Method == "notifications/tools/list_changed" && rec.revs[i] != c.want {
				t.Errorf("%s: the notification's revision is %q, want %q", c.name, rec.revs[i], c.want)
			}
		}
	}
	rec := &revisionRecorder{}
	capture := lines(
		env(1, "c2s", discover),
		env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"complete","ttlMs":0,"cacheScope":"public"}}`),
		env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`),
		env(4, "s2c", `{"jsonrpc":"2.0","id":2,"result":{}}`),
		env(5, "s2c", `{"jsonrpc":"2.0","id":7,"method":"roots/list"}`),
	)
	if err := readers.Read("test.jsonl", strings.NewReader(capture), rec, readers.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rec.revs, ","); got != "2026-07-28,2026-07-28,2026-07-28,2026-07-28,2026-07-28" {
		t.Errorf("revisions %s: once server/discover succeeded, a client request without a revision of its own takes the session's, and so does its answer", got)
	}

	// Before anything the session accepted declared a revision, a request
	// without one stays unknown; a discover request without _meta teaches the
	// session the newest 2026-07-28-or-later revision its result lists.
	rec = &revisionRecorder{}
	capture = lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`),
		env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`),
		env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"server/discover"}`),
		env(4, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"supportedVersions":["2025-11-25","2026-07-28","latest"],"capabilities":{}}}`),
		env(5, "c2s", `{"jsonrpc":"2.0","id":3,"method":"ping"}`),
	)
	if err := readers.Read("test.jsonl", strings.NewReader(capture), rec, readers.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rec.revs, ","); got != ",,,,2026-07-28" {
		t.Errorf("revisions %s, want ,,,,2026-07-28", got)
	}
}
