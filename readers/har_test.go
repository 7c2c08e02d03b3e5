package readers

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/session"
)

// harX is one HAR entry for tests; zero fields are left out.
type harX struct {
	method, url string
	reqHeaders  [][2]string
	post        string      // postData.text
	params      [][2]string // postData.params (name, the member's JSON value as chrome-har writes it)
	status      int
	statusText  string
	resHeaders  [][2]string
	mime, text  string
	base64      bool
	noText      bool
}

func (x harX) json() string {
	hs := func(list [][2]string) []map[string]string {
		out := []map[string]string{}
		for _, h := range list {
			out = append(out, map[string]string{"name": h[0], "value": h[1]})
		}
		return out
	}
	req := map[string]any{"method": x.method, "url": x.url, "httpVersion": "HTTP/1.1", "headers": hs(x.reqHeaders), "queryString": []any{}, "cookies": []any{}, "headersSize": -1, "bodySize": len(x.post)}
	switch {
	case x.params != nil:
		var pairs []map[string]any
		for _, p := range x.params {
			pairs = append(pairs, map[string]any{"name": p[0], "value": json.RawMessage(p[1])})
		}
		req["postData"] = map[string]any{"mimeType": "application/json", "params": pairs}
	case x.post != "":
		req["postData"] = map[string]any{"mimeType": "application/json", "text": x.post}
	}
	content := map[string]any{"size": len(x.text), "mimeType": x.mime}
	switch {
	case x.noText:
	case x.base64:
		content["text"], content["encoding"] = base64.StdEncoding.EncodeToString([]byte(x.text)), "base64"
	default:
		content["text"] = x.text
	}
	res := map[string]any{"status": x.status, "statusText": x.statusText, "httpVersion": "HTTP/1.1", "headers": hs(x.resHeaders), "cookies": []any{}, "content": content, "redirectURL": "", "headersSize": -1, "bodySize": -1}
	e := map[string]any{"startedDateTime": "2026-09-01T10:00:00.000Z", "time": 12.5, "request": req, "response": res, "cache": map[string]any{}, "timings": map[string]any{"send": 0, "wait": 12, "receive": 0.5}}
	b, err := json.MarshalIndent(e, "      ", "  ")
	if err != nil {
		panic(err)
	}
	return string(b)
}

// harOf is a HAR document of the entries, one per line group, pretty
// printed as devtools write it.
func harOf(creator string, entries ...harX) string {
	var parts []string
	for _, e := range entries {
		parts = append(parts, "      "+e.json())
	}
	return fmt.Sprintf("{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"creator\": {\"name\": %q, \"version\": \"1\"},\n    \"pages\": [],\n    \"entries\": [\n%s\n    ]\n  }\n}\n",
		creator, strings.Join(parts, ",\n"))
}

// entryLines are the lines the entries of a harOf document start on.
func entryLines(doc string) []int {
	var out []int
	for i, l := range strings.Split(doc, "\n") {
		if l == "      {" {
			out = append(out, i+1)
		}
	}
	return out
}

func readHAR(t *testing.T, doc string) *recorder {
	t.Helper()
	return readHARWith(t, doc, Options{})
}

func readHARWith(t *testing.T, doc string, o Options) *recorder {
	t.Helper()
	rec := &recorder{}
	if err := Read("test.har", strings.NewReader(doc), rec, o); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return rec
}

const mcpURL = "http://localhost:3001/mcp"

var postHeaders = [][2]string{{"Accept", "application/json, text/event-stream"}, {"Content-Type", "application/json"}, {"Origin", "http://localhost:5173"}}

func withSession(extra ...[2]string) [][2]string {
	return append(append(append([][2]string{}, postHeaders...), [2]string{"Mcp-Session-Id", "s-1"}, [2]string{"MCP-Protocol-Version", "2025-11-25"}), extra...)
}

// frameSummary renders the frames for comparison: session, direction,
// status, and the message or text.
func frameSummary(rec *recorder) string {
	var out []string
	for _, f := range rec.frames {
		body := string(f.Raw)
		if f.HasText {
			body = "text:" + f.Text
		}
		if body == "" {
			body = "-"
		}
		out = append(out, fmt.Sprintf("%s %s %d %s", f.SessionID, f.Direction, f.Status, body))
	}
	return strings.Join(out, "\n")
}

func TestHARDetect(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		head string
		want bool
	}{
		{`{"log": {"version": "1.2"`, true},
		{"\n{\n  \"log\" :\n {", true},
		{`{"log": "not an object"}`, false},
		{`{"session_id":"s1","log":{}}`, false},
		{`{"jsonrpc":"2.0","method":"log"}`, false},
		{`[{"log":{}}]`, false},
		{`{"lo`, false},
	} {
		if got := (har{}).Detect([]byte(c.head)); got != c.want {
			t.Errorf("Detect(%q) = %v", c.head, got)
		}
	}
}

// What is not MCP traffic — the page, its scripts, CORS preflights, an
// analytics beacon — is passed over; a 202 acknowledgement is a status.
func TestHARKeepsOnlyMCPTraffic(t *testing.T) {
	t.Parallel()
	doc := harOf("WebInspector",
		harX{method: "GET", url: "http://localhost:5173/", status: 200, mime: "text/html", text: "<!doctype html><title>app</title>"},
		harX{method: "GET", url: "http://localhost:5173/app.js", status: 200, mime: "text/javascript", text: `fetch("/mcp",{method:"POST"})`},
		harX{method: "POST", url: "http://localhost:5173/collect", reqHeaders: postHeaders, post: `{"event":"pageview"}`, status: 204},
		harX{method: "OPTIONS", url: mcpURL, reqHeaders: [][2]string{{"Access-Control-Request-Method", "POST"}}, status: 204},
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, status: 202, statusText: "Accepted", noText: true},
		harX{method: "GET", url: "http://localhost:5173/events", reqHeaders: [][2]string{{"Accept", "text/event-stream"}}, status: 200, mime: "text/event-stream", text: "data: {\"action\":\"reload\"}\n\n"},
	)
	rec := readHAR(t, doc)
	want := "s-1 c2s 0 {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\ns-1 s2c 202 -"
	if got := frameSummary(rec); got != want {
		t.Errorf("frames:\n%s\nwant:\n%s", got, want)
	}
	if f := rec.frames[0]; f.Accept != postHeaders[0][1] || f.ContentType != "application/json" || f.Origin != "http://localhost:5173" ||
		f.MCPProtocolVersion != "2025-11-25" || f.Transport != "http" || f.Label != "localhost:3001/mcp" {
		t.Errorf("request fields: %+v", f)
	}
	if at := entryLines(doc)[4]; rec.frames[0].Line != at || rec.frames[1].Line != at {
		t.Errorf("lines %d %d, want the entry's line %d", rec.frames[0].Line, rec.frames[1].Line, at)
	}
}

// Real writers: a body only in postData.params, a base64 answer, a header
// listed twice in two cases, an event stream that opens with a priming
// event.
func TestHARWriterQuirks(t *testing.T) {
	t.Parallel()
	doc := harOf("mitmproxy",
		harX{method: "POST", url: mcpURL, reqHeaders: withSession([2]string{"content-type", "application/json"}, [2]string{"mcp-param-region", "eu"}, [2]string{"Mcp-Param-Region", "eu"}),
			params: [][2]string{{"jsonrpc", `"2.0"`}, {"id", "7"}, {"method", `"tools/call"`}, {"params", `{"name":"search","arguments":{"q":"x"}}`}, {"note", `"2.0"`}},
			status: 200, resHeaders: [][2]string{{"Content-Type", "application/json"}}, mime: "application/json", base64: true,
			text: `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`},
		harX{method: "POST", url: mcpURL, reqHeaders: withSession([2]string{"Mcp-Name", "a"}, [2]string{"mcp-name", "b"}), post: `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`,
			status: 200, resHeaders: [][2]string{{"content-type", "text/event-stream"}}, mime: "text/event-stream",
			text: "id: 0\ndata:\n\n: keep-alive\n\nevent: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":8,\"result\":{\"tools\":[]}}\r\n\r\n"},
	)
	rec := readHAR(t, doc)
	want := strings.Join([]string{
		`s-1 c2s 0 {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"q":"x"}},"note":"2.0"}`,
		`s-1 s2c 200 {"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
		`s-1 c2s 0 {"jsonrpc":"2.0","id":8,"method":"tools/list"}`,
		"s-1 s2c 200 {\"jsonrpc\":\"2.0\",\n\"id\":8,\"result\":{\"tools\":[]}}",
	}, "\n")
	if got := frameSummary(rec); got != want {
		t.Errorf("frames:\n%s\nwant:\n%s", got, want)
	}
	if f := rec.frames[0]; f.ContentType != "application/json" || len(f.ParamHeaders) != 1 || f.ParamHeaders[0] != (session.ParamHeader{Name: "mcp-param-region", Value: "eu"}) {
		t.Errorf("a header listed twice: content type %q, param headers %+v", f.ContentType, f.ParamHeaders)
	}
	if f := rec.frames[2]; f.MCPName != "a, b" {
		t.Errorf("Mcp-Name sent twice with two values reads %q, want them combined", f.MCPName)
	}
	if f := rec.frames[3]; f.ContentType != "text/event-stream" || f.Call == nil || f.Call.Method != "tools/list" {
		t.Errorf("the event's answer: content type %q, call %+v", f.ContentType, f.Call)
	}
}

// A server's request on a POST's event stream is answered by a POST of its
// own (paired across entries); an error reply with a null id answers the
// request of its own entry; a stream that broke off keeps what arrived.
func TestHARPairing(t *testing.T) {
	t.Parallel()
	doc := harOf("WebInspector",
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search"}}`,
			status: 200, mime: "text/event-stream",
			text: "id: 0\ndata:\n\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"roots/list\"}\n\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n\n"},
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}`, status: 202, noText: true},
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read"}}`,
			status: 400, mime: "application/json", text: `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"bad path"}}`},
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"export"}}`,
			status: 200, mime: "text/event-stream",
			text: "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"started\"}}\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"half\"}}"},
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"export"}}`,
			status: 200, mime: "text/event-stream", text: "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"res"},
	)
	rec := readHAR(t, doc)
	at := entryLines(doc)
	var got []string
	for _, f := range rec.frames {
		got = append(got, fmt.Sprintf("%d:%s", f.Line, f.Pairing))
	}
	want := fmt.Sprintf("%[1]d:opened %[1]d:opened %[1]d:answered %[2]d:answered %[2]d:unpaired %[3]d:opened %[3]d:answered %[4]d:opened %[4]d:unpaired %[4]d:unpaired %[5]d:opened",
		at[0], at[1], at[2], at[3], at[4])
	if strings.Join(got, " ") != want {
		t.Errorf("pairings\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if f := rec.frames[3]; f.Call == nil || f.Call.Method != "roots/list" || f.ConnID == f.Call.Conn {
		t.Errorf("the client's answer to roots/list: %+v", f.Call)
	}
	if f := rec.frames[6]; f.Call == nil || f.Call.Name != "read" || f.Status != 400 {
		t.Errorf("the null-id error answers its own POST: %+v", f.Call)
	}
	if len(rec.damage) != 1 || rec.damage[0].Line != at[4] || !strings.Contains(rec.damage[0].Reason, "breaks off inside an event") {
		t.Errorf("damage %+v", rec.damage)
	}
	s := rec.sessions[0]
	if u := s.Unfinished(); len(u) != 1 || u[0].Name != "export" || u[0].ID.String() != "4" {
		t.Errorf("unfinished %v: the call whose stream broke off is pending, the one the damage may have answered is excused", u)
	}
}

// One session per Mcp-Session-Id: the initialize answer assigns it, and a
// version probe sent before joins the session that follows it. Without
// session ids, one session per server URL.
func TestHARSessions(t *testing.T) {
	t.Parallel()
	doc := harOf("Charles Proxy",
		harX{method: "POST", url: mcpURL, reqHeaders: postHeaders, post: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`,
			status: 400, mime: "application/json", text: `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`},
		harX{method: "POST", url: "http://other.example/mcp", reqHeaders: postHeaders, post: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			status: 200, mime: "application/json", text: `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`},
		harX{method: "POST", url: mcpURL, reqHeaders: postHeaders, post: `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
			status: 200, resHeaders: [][2]string{{"mcp-session-id", "s-1"}}, mime: "application/json", text: `{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25"}}`},
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, status: 202, noText: true},
		harX{method: "GET", url: mcpURL, reqHeaders: [][2]string{{"Accept", "text/event-stream"}, {"Mcp-Session-Id", "s-1"}}, status: 405, noText: true},
		harX{method: "DELETE", url: mcpURL + "?x=1", reqHeaders: [][2]string{{"Mcp-Session-Id", "s-1"}}, status: 200, noText: true},
		harX{method: "POST", url: mcpURL, reqHeaders: postHeaders, post: `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
			status: 200, resHeaders: [][2]string{{"Mcp-Session-Id", "s-2"}}, mime: "application/json", text: `{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-11-25"}}`},
	)
	rec := readHAR(t, doc)
	at := entryLines(doc)
	var got []string
	for _, f := range rec.frames {
		got = append(got, fmt.Sprintf("%s/%d", f.SessionID, f.Line))
	}
	// The entry of the other server waits for a session id until the end.
	want := fmt.Sprintf("s-1/%[1]d s-1/%[1]d s-1/%[3]d s-1/%[3]d s-1/%[4]d s-1/%[4]d s-1/%[5]d s-1/%[6]d s-2/%[7]d s-2/%[7]d http://other.example/mcp/%[2]d http://other.example/mcp/%[2]d",
		at[0], at[1], at[2], at[3], at[4], at[5], at[6])
	if strings.Join(got, " ") != want {
		t.Errorf("sessions\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if len(rec.sessions) != 3 || rec.sessions[0].Label != "localhost:3001/mcp" || rec.sessions[2].Label != "other.example/mcp" {
		t.Errorf("sessions %v", rec.sessions)
	}
	if f := rec.frames[1]; f.Call == nil || f.Call.Method != "server/discover" || f.Pairing != session.ProbeFallback {
		t.Errorf("the probe's rejection, in the session it precedes: %s %+v", f.Pairing, f.Call)
	}
	if f := byLine(rec, at[4]); f.Status != 405 || f.Pairing != session.Plumbing {
		t.Errorf("the GET's 405: %d %s", f.Status, f.Pairing)
	}
}

// mcpsnoop's call-level export: one call per entry, no ids, headers or
// notifications.
func TestHARCallLevelExport(t *testing.T) {
	t.Parallel()
	call := func(url, params string, status int, statusText, answer string) harX {
		return harX{method: "POST", url: url, post: params, status: status, statusText: statusText, mime: "application/json", text: answer, noText: answer == ""}
	}
	doc := harOf("mcpsnoop",
		call("mcp://fs/initialize", `{"protocolVersion":"2025-11-25","capabilities":{}}`, 200, "OK", `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}`),
		call("mcp://fs/tools/list", "", 200, "OK", `{"tools":[]}`),
		call("mcp://fs/roots/list", "", 200, "OK", `{"roots":[]}`),
		call("mcp://fs/tools/call/read%20file", `{"name":"read file","arguments":{}}`, 500, "Internal Server Error", `{"content":[{"type":"text","text":"ENOENT"}],"isError":true}`),
		call("mcp://fs/resources/templates/list", "", 500, "Internal Server Error", `{"code":-32601,"message":"Method not found"}`),
		call("mcp://fs/tools/call/slow", `{"name":"slow"}`, 0, "pending", ""),
	)
	rec := readHAR(t, doc)
	want := strings.Join([]string{
		`fs c2s 0 {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`,
		`fs s2c 0 {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}}`,
		`fs c2s 0 {"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`fs s2c 0 {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`,
		`fs s2c 0 {"jsonrpc":"2.0","id":3,"method":"roots/list"}`,
		`fs c2s 0 {"jsonrpc":"2.0","id":3,"result":{"roots":[]}}`,
		`fs c2s 0 {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read file","arguments":{}}}`,
		`fs s2c 0 {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"ENOENT"}],"isError":true}}`,
		`fs c2s 0 {"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}`,
		`fs s2c 0 {"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}`,
		`fs c2s 0 {"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"slow"}}`,
	}, "\n")
	if got := frameSummary(rec); got != want {
		t.Errorf("frames:\n%s\nwant:\n%s", got, want)
	}
	if u := rec.sessions[0].Unfinished(); len(u) != 1 || u[0].Name != "slow" {
		t.Errorf("unfinished %v", u)
	}
	if f := rec.frames[9]; f.Call == nil || f.Call.State != session.Failed || f.Transport != "" || f.ConnID != "" {
		t.Errorf("the error: %+v", f)
	}
	// The export keeps no notifications: that is said once, before the
	// first request after initialize, so that nothing concludes the client
	// never sent notifications/initialized.
	if len(rec.damage) != 1 || rec.damage[0].Line != entryLines(doc)[1] || !strings.Contains(rec.damage[0].Reason, "records no notifications") {
		t.Errorf("damage %+v", rec.damage)
	}
}

func TestHARNotACapture(t *testing.T) {
	t.Parallel()
	var nc *NotCaptureError
	err := Read("page.har", strings.NewReader(harOf("WebInspector",
		harX{method: "GET", url: "http://localhost:5173/", status: 200, mime: "text/html", text: "<html></html>"})), &recorder{}, Options{})
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "no MCP traffic in the HAR: none of its 1 entry is a JSON-RPC exchange") {
		t.Errorf("a HAR of a page only: %v", err)
	}
	err = Read("broken.har", strings.NewReader(`{"log": {"version": "1.2", "entries": [{"request": `), &recorder{}, Options{})
	if !errors.As(err, &nc) || nc.Line != 1 {
		t.Errorf("a HAR that breaks off before its first entry: %v", err)
	}
}

// A HAR cut off inside an entry keeps the entries before it.
func TestHARBreaksOff(t *testing.T) {
	t.Parallel()
	doc := harOf("WebInspector",
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, status: 200, mime: "application/json", text: `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`},
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, status: 200, mime: "application/json", text: `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`},
	)
	cut := doc[:strings.LastIndex(doc, `"id\":2,\"result`)]
	rec := readHAR(t, cut)
	if len(rec.frames) != 2 || len(rec.damage) != 1 || !strings.HasPrefix(rec.damage[0].Reason, "the HAR breaks off: ") {
		t.Errorf("frames %d, damage %+v", len(rec.frames), rec.damage)
	}
}

// overLimitFrames renders frames as frameSummary does, each one read only
// as far as the size limit marked with its problem.
func overLimitFrames(rec *recorder) string {
	var out []string
	for i, line := range strings.Split(frameSummary(rec), "\n") {
		f := rec.frames[i]
		for _, p := range f.EnvelopeProblems {
			if p.Fault == session.OverLimit {
				line += " | past the " + p.Member + " limit: " + p.Problem
			}
		}
		if f.Truncated {
			line += " | truncated"
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// A HAR entry past the size limit is read as far as the limit allows
// (spec §2.1, fail closed): its request, and its answer's body cut where
// the limit falls, marked past the limit, so that an isError flag or an
// error code before the cut is still judged and the request is answered.
// The next entry is read as ever.
func TestHAREntryPastTheSizeLimit(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("x", 5000)
	next := harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, status: 200, mime: "application/json", text: `{"jsonrpc":"2.0","id":2,"result":{}}`}
	nextFrames := "s-1 c2s 0 {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\ns-1 s2c 200 {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"
	const problem = " | past the size limit: the HAR entry is larger than the 4096 bytes mcpcheck reads: what follows its first 4096 bytes was left out, the rest was judged | truncated"
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump"}}`
	for _, c := range []struct {
		name  string
		entry harX
		want  string
	}{
		{"an isError answer (members sorted: its status past the cut)",
			harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: call, status: 200, mime: "application/json",
				text: `{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"` + pad + `"}]}}`},
			"s-1 c2s 0 " + call + "\n" +
				`s-1 s2c 0 {"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text"}]}}` + problem},
		{"an error code, in a body with escapes and UTF-8 before the cut",
			harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: call, status: 200, mime: "application/json",
				text: `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom \"é\" \ud83d\ude00 ✓","data":"` + strings.Repeat(`\"é✓\ud83d\ude00`, 500) + `"}}`},
			"s-1 c2s 0 " + call + "\n" +
				`s-1 s2c 0 {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom \"é\" \ud83d\ude00 ✓"}}` + problem},
		{"a base64 answer",
			harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: call, status: 200, mime: "application/json", base64: true,
				text: `{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"` + pad + `"}]}}`},
			"s-1 c2s 0 " + call + "\n" +
				`s-1 s2c 0 {"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text"}]}}` + problem},
		{"an event stream: whole events, then the one the cut fell in",
			harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: call, status: 200, mime: "text/event-stream",
				text: "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n" +
					"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"" + pad + "\"}]}}\n\n"},
			"s-1 c2s 0 " + call + "\n" +
				`s-1 s2c 0 {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}` + "\n" +
				`s-1 s2c 0 {"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text"}]}}` + problem},
		{"a call of mcpsnoop's HAR export",
			harX{method: "POST", url: "mcp://big/tools/call/dump", post: `{"name":"dump"}`, status: 500, mime: "application/json",
				text: `{"isError":true,"content":[{"type":"text","text":"` + pad + `"}]}`},
			`big c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump"}}` + "\n" +
				`big s2c 0 {"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text"}]}}` + problem},
		{"a call of mcpsnoop's HAR export without params",
			harX{method: "POST", url: "mcp://big/tools/list", status: 200, mime: "application/json",
				text: `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","description":"` + pad + `"}]}`},
			`big c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n" +
				`big s2c 0 {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b"}]}}` + problem},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := readHARWith(t, harOf("WebInspector", c.entry, next), Options{MaxEnvelope: 4096, ReadBuffer: 16})
			want := c.want + "\n" + nextFrames
			if got := overLimitFrames(rec); got != want {
				t.Errorf("frames:\n%s\nwant:\n%s", got, want)
			}
			if len(rec.damage) != 0 {
				t.Errorf("damage %+v", rec.damage)
			}
			if f := rec.frames[len(rec.frames)-3]; f.Msg.ID.String() != "1" || f.Msg.Kind != session.Response {
				t.Errorf("the cut answer reads as %s id %s", f.Msg.Kind, f.Msg.ID)
			}
		})
	}
}

// A standalone GET stream past the size limit keeps its whole events and
// what the cut one holds; its last frame is marked past the limit.
func TestHARStreamPastTheSizeLimit(t *testing.T) {
	t.Parallel()
	progress := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`
	doc := harOf("WebInspector", harX{method: "GET", url: mcpURL, reqHeaders: withSession(), status: 200, mime: "text/event-stream",
		text: "data: " + progress + "\n\ndata: " + progress + "\n\n" +
			`data: {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":{"type":"text","text":"` + strings.Repeat("x", 5000) + `"}}]}}` + "\n\n"})
	rec := readHARWith(t, doc, Options{MaxEnvelope: 4096, ReadBuffer: 16})
	// (the status, sorted after the content, lies past the cut)
	want := "s-1 s2c 0 " + progress + "\ns-1 s2c 0 " + progress + "\n" +
		`s-1 s2c 0 {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":{"type":"text"}}]}}` +
		" | past the size limit: the HAR entry is larger than the 4096 bytes mcpcheck reads: what follows its first 4096 bytes was left out, the rest was judged | truncated"
	if got := overLimitFrames(rec); got != want {
		t.Errorf("frames:\n%s\nwant:\n%s", got, want)
	}
	if len(rec.damage) != 0 {
		t.Errorf("damage %+v", rec.damage)
	}
}

// Browsers write an entry's members in HAR's order (the request, then the
// response; a status before the content), other writers in any: the cut
// entry gives what its first bytes hold. A request cut in its body is read
// as far as the cut, marked, and its answer, past the cut, is damage that
// excuses it; an entry whose first bytes hold no whole request (its URL
// past the cut, or its response first) is damage that fails the gate.
func TestHAREntryPastTheSizeLimitInAnyOrder(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("x", 5000)
	headers := `"headers":[{"name":"Mcp-Session-Id","value":"s-1"},{"name":"Content-Type","value":"application/json"}]`
	request := func(post string) string {
		return `"request":{"method":"POST","url":"` + mcpURL + `",` + headers + `,"postData":{"mimeType":"application/json","text":` + strconv.Quote(post) + `}}`
	}
	response := func(text string) string {
		return `"response":{"status":200,"statusText":"OK",` + headers + `,"content":{"mimeType":"application/json","text":` + strconv.Quote(text) + `}}`
	}
	entries := func(first string) string {
		return `{"log":{"version":"1.2","creator":{"name":"c","version":"1"},"entries":[` + "\n" + first + ",\n" +
			`{"startedDateTime":"2026-09-01T10:00:01.000Z","time":1,` + request(`{"jsonrpc":"2.0","id":2,"method":"ping"}`) + "," + response(`{"jsonrpc":"2.0","id":2,"result":{}}`) + "}\n]}}\n"
	}
	const problem = " | past the size limit: the HAR entry is larger than the 4096 bytes mcpcheck reads: what follows its first 4096 bytes was left out, the rest was judged | truncated"
	nextFrames := "s-1 c2s 0 {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\ns-1 s2c 200 {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"
	skipped := "a HAR entry of more than 4096 bytes was skipped: its first 4096 bytes hold no request"
	plain := `{"startedDateTime":"2026-09-01T10:00:00.000Z","time":1,` + request(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump"}}`) + "," +
		response(strings.Repeat("Accepted", 1000)) + "}"
	plainCut := 4096 - len(`"}}}`) // the cut moves back to leave room for the text's quote and three closers
	for _, c := range []struct {
		name, entry, frames, damage string
	}{
		{"request, then an answer with its status first",
			`{"startedDateTime":"2026-09-01T10:00:00.000Z","time":1,` + request(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump"}}`) + "," +
				response(`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"`+pad+`"}]}}`) + "}",
			"s-1 c2s 0 {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"dump\"}}\n" +
				`s-1 s2c 200 {"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text"}]}}` + problem, ""},
		{"a base64 answer whose encoding follows its text, as playwright writes it",
			`{"startedDateTime":"2026-09-01T10:00:00.000Z","time":1,` + request(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump"}}`) + "," +
				`"response":{"status":200,"statusText":"OK",` + headers + `,"content":{"mimeType":"application/json","text":"` +
				base64.StdEncoding.EncodeToString([]byte(`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"`+pad+`"}]}}`)) + `","encoding":"base64"}}}`,
			"s-1 c2s 0 {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"dump\"}}\n" +
				`s-1 s2c 200 {"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text"}]}}` + problem, ""},
		{"an answer of base64's letters that decode to no answer: text, as before",
			plain,
			"s-1 c2s 0 {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"dump\"}}\n" +
				"s-1 s2c 200 text:" + plain[strings.Index(plain, "Accepted"):plainCut] + problem, ""},
		{"a request cut in its body",
			`{"startedDateTime":"2026-09-01T10:00:00.000Z","time":1,` + request(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upload","arguments":{"blob":"`+pad+`"}}}`) + "," +
				response(`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[]}}`) + "}",
			`s-1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upload","arguments":{}}}` + problem,
			"the answer lies past the first 4096 bytes of this HAR entry, the most mcpcheck reads"},
		{"the response first",
			`{"startedDateTime":"2026-09-01T10:00:00.000Z","time":1,` + response(`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"`+pad+`"}]}}`) + "," +
				request(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump"}}`) + "}",
			"", skipped},
		{"the URL after the body (members sorted)",
			`{"request":{"method":"POST","postData":{"mimeType":"application/json","text":` + strconv.Quote(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upload","arguments":{"blob":"`+pad+`"}}}`) + `},"url":"` + mcpURL + `"}}`,
			"", skipped},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := readHARWith(t, entries(c.entry), Options{MaxEnvelope: 4096, ReadBuffer: 16})
			want := strings.TrimPrefix(c.frames+"\n"+nextFrames, "\n")
			if got := overLimitFrames(rec); got != want {
				t.Errorf("frames:\n%s\nwant:\n%s", got, want)
			}
			var damage []string
			for _, d := range rec.damage {
				damage = append(damage, fmt.Sprintf("%d %s | lost %q", d.Line, d.Reason, d.Lost))
			}
			want = ""
			switch c.damage {
			case skipped:
				want = "2 " + skipped + ` | lost "a HAR entry of more than 4096 bytes, the most mcpcheck reads, was not read"`
			case "":
			default:
				want = "2 " + c.damage + ` | lost ""`
			}
			if got := strings.Join(damage, "\n"); got != want {
				t.Errorf("damage:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// closeRecord makes every prefix of an entry valid JSON, or gives up on
// it (nil); a body the cut falls in keeps a prefix of its text, however
// the cut splits an escape, a surrogate pair or a UTF-8 sequence.
func TestCloseRecordEveryCut(t *testing.T) {
	t.Parallel()
	text := `"{\"k\":\"\u00e9 \\\" \u2713 \ud83d\ude00 é✓😀 \\n\"}"` // escapes, a surrogate pair, UTF-8
	var body string
	if err := json.Unmarshal([]byte(text), &body); err != nil {
		t.Fatal(err)
	}
	entry := `{"request":{"url":"u","postData":{"text":` + text + `}},"response":{"content":{"text":` + text + `},"status":1}}`
	for n := 0; n <= len(entry); n++ {
		b := []byte(entry[:n])
		b = b[:n:n] // no room past the cut, as a captured prefix has none
		closed, at := closeRecord(b, harBodies[:]...)
		if closed == nil {
			if n > 0 {
				t.Errorf("cut at %d: nil", n)
			}
			continue
		}
		if !json.Valid(closed) {
			t.Fatalf("cut at %d: not JSON: %s", n, closed)
		}
		if at < 0 {
			continue
		}
		var e struct {
			Request  struct{ PostData struct{ Text *string } }
			Response struct{ Content struct{ Text *string } }
		}
		if err := json.Unmarshal(closed, &e); err != nil {
			t.Fatal(err)
		}
		text := []*string{e.Request.PostData.Text, e.Response.Content.Text}[at]
		if text == nil {
			t.Errorf("cut at %d in body %d: no text", n, at)
		} else if !strings.HasPrefix(body, *text) || strings.ContainsRune(*text, utf8.RuneError) {
			t.Errorf("cut at %d in body %d: text %q, not a prefix of the body", n, at, *text)
		}
	}
}

// An entry nested past the depth limit cannot be read: it is damage that
// fails the gate (unread-capture), and reading resumes at the next entry.
func TestHAREntryNestedTooDeeply(t *testing.T) {
	t.Parallel()
	doc := harOf("WebInspector",
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump"}}`, status: 200, mime: "application/json", text: `{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[]}}`},
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, status: 200, mime: "application/json", text: `{"jsonrpc":"2.0","id":2,"result":{}}`},
	)
	deep := strings.Repeat("[", jsonscan.MaxDepth+1) + strings.Repeat("]", jsonscan.MaxDepth+1)
	if strings.Count(doc, `"cache": {}`) != 2 {
		t.Fatalf("the entries have no cache member to nest in:\n%s", doc)
	}
	doc = strings.Replace(doc, `"cache": {}`, `"cache": `+deep, 1)
	lines := entryLines(doc)
	rec := readHAR(t, doc)
	want := "s-1 c2s 0 {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\ns-1 s2c 200 {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}"
	if got := frameSummary(rec); got != want {
		t.Errorf("frames:\n%s\nwant:\n%s", got, want)
	}
	lost := fmt.Sprintf("1 HAR entry could not be read: it nests deeper than the %d levels mcpcheck reads; reading resumed at the next one, line %d", jsonscan.MaxDepth, lines[1])
	if len(rec.damage) != 1 || rec.damage[0].Line != lines[0] || rec.damage[0].Reason != "a HAR entry nested too deeply" || rec.damage[0].Lost != lost {
		t.Errorf("damage %+v, want one on line %d: %s", rec.damage, lines[0], lost)
	}
}

// The legacy HTTP+SSE transport: the GET stream's endpoint event names
// where the client POSTs, and those POSTs join the stream's session; the
// answers on the stream pair with requests recorded after them (devtools
// list the stream first, as it started first).
func TestHARLegacySSE(t *testing.T) {
	t.Parallel()
	doc := harOf("WebInspector",
		harX{method: "GET", url: "http://localhost:3002/sse", reqHeaders: [][2]string{{"Accept", "text/event-stream"}}, status: 200, mime: "text/event-stream",
			text: "event: endpoint\ndata: /messages?sessionId=abc\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2024-11-05\"}}\n\n"},
		harX{method: "POST", url: "http://localhost:3002/messages?sessionId=abc", reqHeaders: postHeaders, post: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}`,
			status: 202, mime: "text/plain", text: "Accepted"},
	)
	rec := readHAR(t, doc)
	var got []string
	for _, f := range rec.frames {
		got = append(got, f.SessionID+" "+f.Pairing.String())
	}
	// (the answer is delivered after its request, which was recorded later)
	want := "http://localhost:3002/messages?sessionId=abc plumbing http://localhost:3002/messages?sessionId=abc opened " +
		"http://localhost:3002/messages?sessionId=abc answered http://localhost:3002/messages?sessionId=abc plumbing"
	if strings.Join(got, " ") != want {
		t.Errorf("frames\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}

// A HAR entry's "time" is its duration in milliseconds: the answer is
// dated startedDateTime plus that, so durations (late-result, the step
// summary's timings) come out right, not a thousand times off.
func TestHARDurationIsMilliseconds(t *testing.T) {
	t.Parallel()
	doc := harOf("WebInspector",
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search"}}`,
			status: 200, mime: "application/json", text: `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`},
	)
	rec := readHAR(t, doc)
	if len(rec.frames) != 2 {
		t.Fatalf("%d frames", len(rec.frames))
	}
	start := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	if got := rec.frames[0].Time; !got.Equal(start) {
		t.Errorf("request at %v, want %v", got, start)
	}
	if got := rec.frames[1].Time.Sub(rec.frames[0].Time); got != 12500*time.Microsecond {
		t.Errorf("answered %v after the request, want the entry's time of 12.5 ms", got)
	}
}

// chrome-har lists a JSON body's members as name/value pairs whose values
// are the JSON values themselves; an array member once per element, and a
// top-level array (a batch) under its indexes.
func TestHARChromeHarParams(t *testing.T) {
	t.Parallel()
	doc := harOf("chrome-har",
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(),
			params: [][2]string{{"method", `"tools/call"`}, {"params", `{"name":"tag","arguments":{"tags":["a","b"]}}`}, {"jsonrpc", `"2.0"`}, {"id", "0"}},
			status: 200, mime: "application/json", text: `{"jsonrpc":"2.0","id":0,"result":{"content":[]}}`},
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(),
			params: [][2]string{{"0", `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, {"1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`}},
			status: 200, mime: "application/json", text: `[{"jsonrpc":"2.0","id":1,"result":{}}]`},
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(),
			params: [][2]string{{"jsonrpc", `"2.0"`}, {"id", `"x"`}, {"method", `"m"`}, {"params", "1"}, {"params", "2"}},
			status: 202},
	)
	rec := readHAR(t, doc)
	want := strings.Join([]string{
		`s-1 c2s 0 {"method":"tools/call","params":{"name":"tag","arguments":{"tags":["a","b"]}},"jsonrpc":"2.0","id":0}`,
		`s-1 s2c 200 {"jsonrpc":"2.0","id":0,"result":{"content":[]}}`,
		`s-1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`s-1 c2s 0 {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
		`s-1 s2c 200 {"jsonrpc":"2.0","id":1,"result":{}}`,
		`s-1 c2s 0 {"jsonrpc":"2.0","id":"x","method":"m","params":[1,2]}`,
		`s-1 s2c 202 -`,
	}, "\n")
	if got := frameSummary(rec); got != want {
		t.Errorf("frames:\n%s\nwant:\n%s", got, want)
	}
}

// FuzzCloseRecord: every prefix of a valid JSON text closes to valid JSON
// (or nil), in its own bytes when it has room for the closers.
func FuzzCloseRecord(f *testing.F) {
	f.Add([]byte(`{"request":{"url":"u","postData":{"text":"{\"a\":\"\\u00e9\\ud83d\\ude00 \\\"x\\\"\"}"}},"response":{"content":{"text":"é✓"}}}`), uint16(40))
	f.Add([]byte(`{"a":[1,2,{"b":"c"}],"response":{"content":{"text":"\\\\\\n"}}}`), uint16(50))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		if !json.Valid(data) || len(data) == 0 {
			return
		}
		n := int(cut) % (len(data) + 1)
		b := append([]byte(nil), data[:n]...)
		b = b[:n:n]
		closed, _ := closeRecord(b, harBodies[:]...)
		if closed != nil && !json.Valid(closed) {
			t.Fatalf("%q cut at %d closes to %q", data, n, closed)
		}
	})
}

// FuzzReadPastTheSizeLimit: HAR and LogRocket documents read with a
// limit of a few hundred bytes, so that most entries and events are past
// it, give frames, damage or a clean error; every frame's message is a
// whole JSON value, and a frame past the limit is marked truncated.
func FuzzReadPastTheSizeLimit(f *testing.F) {
	pad := strings.Repeat("x", 300)
	f.Add([]byte(harOf("WebInspector",
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump"}}`, status: 200, mime: "text/event-stream",
			text: "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"" + pad + "\"}]}}\n\n"},
		harX{method: "POST", url: "mcp://big/tools/call/dump", post: `{"name":"dump"}`, status: 500, mime: "application/json", base64: true, text: `{"isError":true,"content":[{"type":"text","text":"` + pad + `"}]}`})), uint16(200))
	f.Add([]byte(`{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"entries":[`+"\n"+
		`{"request":{"method":"POST","url":"`+mcpURL+`","postData":{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"dump\"}}"}},`+
		`"response":{"status":200,"content":{"mimeType":"application/json","text":"`+base64.StdEncoding.EncodeToString([]byte(`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"`+pad+`"}]}}`))+`","encoding":"base64"}}}`+"\n]}}\n"), uint16(300))
	f.Add([]byte(`{"events":[`+lrEv(1, "tools/call", `"params":{"name":"dump"},"result":{"isError":true,"value":{"content":[{"type":"text","text":"`+pad+`"}]}},`)+`]}`), uint16(100))
	f.Add([]byte(lines(lrEv(1, "tools/call", `"requestID":"r-1","params":{"name":"dump","arguments":{"q":"`+pad+`"}},"result":{"isError":true,"value":{"content":[{"type":"text","text":"`+pad+`"}]}},`),
		lrEv(2, "ping", `"result":{"value":{}},`))), uint16(400))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		if !(har{}).Detect(data) && !(logRocket{}).Detect(data) {
			return // another format's, whose frames may be any text
		}
		rec := &recorder{}
		if err := Read("fuzz", bytes.NewReader(data), rec, Options{MaxEnvelope: 64 + int(limit)%1024, ReadBuffer: 16}); err != nil {
			return
		}
		for _, fr := range rec.frames {
			if fr.Line < 1 || fr.SessionID == "" {
				t.Fatalf("frame without a location or session: %+v", fr)
			}
			if len(fr.Raw) > 0 && !json.Valid(fr.Raw) {
				t.Fatalf("a frame whose message is not JSON: %q", fr.Raw)
			}
			for _, p := range fr.EnvelopeProblems {
				if p.Fault == session.OverLimit && !fr.Truncated {
					t.Fatalf("a frame past the limit not marked truncated: %+v", fr)
				}
			}
		}
		for _, d := range rec.damage {
			if d.Line < 1 || d.Reason == "" {
				t.Fatalf("damage without a location or reason: %+v", d)
			}
		}
	})
}
