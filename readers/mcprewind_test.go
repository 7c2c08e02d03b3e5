package readers

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rewindCache is a small cache: an initialize answered on an event
// stream, a tools/list kept in full, a tools/call kept only as its
// distilled result, and exchange 10 (after 2 in sequence order, before it
// in lexical order) answered with a 401 and no body.
var rewindCache = map[string]string{
	"1 initialize.req.json": `{"url":"http://localhost:8080/mcp","method":"POST","headers":{"accept":"application/json, text/event-stream","content-type":"application/json","origin":"http://localhost:5173"},` +
		`"body":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}}`,
	"1 initialize.res-head.json": `{"status":200,"headers":{"content-type":"text/event-stream","mcp-session-id":"sess-9"}}`,
	"1 initialize.res.json":      "id: 0\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"w\",\"version\":\"1\"}}}\n\n",
	"1 initialize.json":          `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"w","version":"1"}}`,
	"2 tools_list.req.json": `{"url":"http://localhost:8080/mcp","method":"POST","headers":{"mcp-session-id":"sess-9","mcp-protocol-version":"2025-06-18","accept":"application/json, text/event-stream"},` +
		`"body":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"}`,
	"2 tools_list.res-head.json":                              `{"statusCode":200,"headers":[["Content-Type","application/json"]]}`,
	"2 tools_list.res.json":                                   `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get_alerts","inputSchema":{"type":"object"}}]}}`,
	"2 tools_list.json":                                       `{"tools":[{"name":"get_alerts","inputSchema":{"type":"object"}}]}`,
	"3 tools_call_get_alerts_0123456789abcdef.json":           `{"content":[{"type":"text","text":"no alerts"}]}`,
	"10 tools_call_get_alerts_fedcba9876543210.req.json":      `{"url":"http://localhost:8080/mcp","headers":{"mcp-session-id":"sess-9"},"body":{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_alerts","arguments":{"state":"WA"}}}}`,
	"10 tools_call_get_alerts_fedcba9876543210.res-head.json": `{"status":401,"headers":{"www-authenticate":"Bearer realm=\"mcp\""}}`,
	"notes.txt": "recorded with mcp-rewind --url http://localhost:8080/mcp",
}

// openCache resolves dir as one capture (an mcp-rewind cache directory)
// and opens it.
func openCache(t *testing.T, dir string) io.ReadCloser {
	t.Helper()
	srcs, err := Resolve([]string{dir}, nil, os.Getenv)
	if err != nil || len(srcs) != 1 || srcs[0].Name != dir {
		t.Fatalf("Resolve: %v %v", srcs, err)
	}
	rc, err := srcs[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

func TestRewindCacheIsOneCapture(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "weather")
	writeFiles(t, dir, rewindCache)
	rc := openCache(t, dir)
	defer rc.Close()
	rec := &recorder{}
	if err := Read(dir, rc, rec, Options{}); err != nil {
		t.Fatalf("Read: %v", err)
	}
	var got []string
	for _, f := range rec.frames {
		got = append(got, strings.TrimPrefix(f.File, dir+"/")+":"+strconv.Itoa(f.Line)+" "+f.SessionID+" "+f.Direction.String()+" "+f.Pairing.String())
	}
	want := strings.Join([]string{
		"1 initialize.req.json:1 sess-9 c2s opened",   // the answer's head names the session
		"1 initialize.res.json:4 sess-9 s2c answered", // the event's line in the file
		"2 tools_list.req.json:1 sess-9 c2s opened",
		"2 tools_list.res.json:1 sess-9 s2c answered",
		"3 tools_call_get_alerts_0123456789abcdef.json:1 sess-9 c2s opened",
		"3 tools_call_get_alerts_0123456789abcdef.json:1 sess-9 s2c answered",
		"10 tools_call_get_alerts_fedcba9876543210.req.json:1 sess-9 c2s opened",
		"10 tools_call_get_alerts_fedcba9876543210.res-head.json:1 sess-9 s2c answered",
	}, "\n")
	if strings.Join(got, "\n") != want {
		t.Errorf("frames\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	f := rec.frames[0]
	if f.Accept != "application/json, text/event-stream" || f.Origin != "http://localhost:5173" || f.Label != "localhost:8080/mcp" || f.Transport != "http" {
		t.Errorf("the request's headers: %+v", f)
	}
	if f := rec.frames[3]; f.ContentType != "application/json" || f.Status != 200 {
		t.Errorf("the answer's head: %q %d", f.ContentType, f.Status)
	}
	if f := rec.frames[4]; !f.Truncated || string(f.Raw) != `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_alerts"}}` {
		t.Errorf("a request known by its key only: truncated %v, %s", f.Truncated, f.Raw)
	}
	if f := rec.frames[5]; string(f.Raw) != `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"no alerts"}]}}` {
		t.Errorf("the distilled answer: %s", f.Raw)
	}
	if f := rec.frames[7]; f.Status != 401 || f.AuthChallenge != `Bearer realm="mcp"` || f.Call == nil || f.Call.State != session.Failed {
		t.Errorf("a status-only answer: %+v", f)
	}
	if len(rec.damage) != 1 || !strings.Contains(rec.damage[0].Reason, "mcp-rewind records no notifications") || !strings.HasSuffix(rec.damage[0].File, "2 tools_list.req.json") {
		t.Errorf("damage %+v", rec.damage)
	}
}

// A directory of captures keeps working, a cache in it (or beside its
// captures) is one capture more, and files that only look numbered are not
// a cache.
func TestRewindCacheAmongCaptures(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.jsonl": "x", "z.jsonl": "x", "1 notes.json": "{}"})
	writeFiles(t, filepath.Join(root, "m-cache"), map[string]string{"1 initialize.json": "{}"})
	writeFiles(t, filepath.Join(root, "other"), map[string]string{"1 notes.json": "{}"})
	names := func(srcs []Source) string {
		var out []string
		for _, s := range srcs {
			out = append(out, filepath.Base(s.Name))
		}
		return strings.Join(out, " ")
	}
	srcs, err := Resolve([]string{root}, nil, os.Getenv)
	if err != nil || names(srcs) != "a.jsonl m-cache z.jsonl" {
		t.Errorf("a directory of captures: %s %v", names(srcs), err)
	}
	mixed := filepath.Join(root, "m-cache")
	writeFiles(t, mixed, map[string]string{"b.jsonl": "x"})
	srcs, err = Resolve([]string{mixed}, nil, os.Getenv)
	if err != nil || names(srcs) != "m-cache b.jsonl" {
		t.Errorf("a cache beside a capture: %s %v", names(srcs), err)
	}
	if _, err := Resolve([]string{filepath.Join(root, "other")}, nil, os.Getenv); err == nil {
		t.Errorf("a directory of one numbered JSON file is no cache")
	}
}

// Only a Source that Resolve made opens a cache: a file that copies a
// manifest, or names another format, is not a capture, and the format
// never reads a file.
func TestRewindManifestCannotBeForged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, rewindCache)
	var nc *NotCaptureError
	forged := manifestPrefix + strings.Repeat("0", 32) + " mcp-rewind\n" + dir + "\n"
	if err := Read("forged", strings.NewReader(forged), &recorder{}, Options{}); !errors.As(err, &nc) || len(nc.Formats) == 0 {
		t.Errorf("a forged manifest: %v", err)
	}
	other := string(dirManifest("har", dir))
	if (mcpRewind{}).Detect([]byte(other)) {
		t.Errorf("a manifest of another format is detected as mcp-rewind")
	}
	c := session.NewCorrelator("x.jsonl", &recorder{}, session.Limits{})
	if err := (mcpRewind{}).Read("x.jsonl", strings.NewReader(`{"session_id":"s"}`), c, DefaultOptions()); !errors.As(err, &nc) {
		t.Errorf("mcp-rewind forced on a file: %v", err)
	}
}

func TestRewindNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, key, kind string
		n               int64
		ok              bool
	}{
		{"1 initialize.json", "initialize", "", 1, true},
		{"12 tools_call_get_alerts_0123456789abcdef.res-head.json", "tools_call_get_alerts_0123456789abcdef", "res-head", 12, true},
		{"3 tools_list.res.json", "tools_list", "res", 3, true},
		{"3 tools_list.req.json", "tools_list", "req", 3, true},
		{"x tools_list.json", "", "", 0, false},
		{"3tools_list.json", "", "", 0, false},
		{"3 .json", "", "", 0, false},
		{"3 tools_list.jsonl", "", "", 0, false},
		{"-3 tools_list.json", "", "", 0, false},
		// what mcp-rewind writes for every exchange it gives no key
		{"4.req.json", "", "req", 4, true},
		{"4.res.json", "", "res", 4, true},
		{"17.res-head.json", "", "res-head", 17, true},
		{"4.json", "", "", 0, false},
		{"+4.req.json", "", "", 0, false},
		{"4.req.json.bak", "", "", 0, false},
		{".req.json", "", "", 0, false},
	} {
		f, ok := parseRewindName(c.name)
		if ok != c.ok || (ok && (f.key != c.key || f.kind != c.kind || f.n != c.n)) {
			t.Errorf("%q: %+v %v", c.name, f, ok)
		}
	}
	if m, tool := rewindMethod("tools_call_get_alerts_0123456789abcdef"); m != "tools/call" || tool != "get_alerts" {
		t.Errorf("tools/call key: %s %s", m, tool)
	}
	if m, _ := rewindMethod("resources_templates_list"); m != "resources/templates/list" {
		t.Errorf("resources/templates/list key: %s", m)
	}
}

// What mcp-rewind writes for the exchanges it gives no key: a ping, the
// client's answer to a server request, and a refused request (non-2xx: an
// empty answer file and no head file); a second run into the directory
// restarts the numbering under another session.
func TestRewindUnnamedExchanges(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "notes")
	sse := func(msg string) string { return "event: message\ndata: " + msg + "\n\n" }
	req := func(sid, body string) string {
		h := `"host":"127.0.0.1:38112","content-type":"application/json"`
		if sid != "" {
			h += `,"mcp-session-id":"` + sid + `"`
		}
		return `{"url":"/mcp","headers":{` + h + `},"body":` + body + `}`
	}
	head := func(status int, sid string) string {
		return fmt.Sprintf(`{"status":%d,"headers":{"content-type":"text/event-stream","mcp-session-id":%q}}`, status, sid)
	}
	writeFiles(t, dir, map[string]string{
		"1 initialize.req.json":                           req("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"}}}`),
		"1 initialize.res-head.json":                      head(200, "A"),
		"1 initialize.res.json":                           sse(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`),
		"2 tools_call_ask_44136fa355b3678a.req.json":      req("A", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`),
		"2 tools_call_ask_44136fa355b3678a.res-head.json": head(200, "A"),
		"2 tools_call_ask_44136fa355b3678a.res.json": sse(`{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}`) +
			sse(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`),
		"3.req.json":      req("A", `{"jsonrpc":"2.0","id":0,"result":{"role":"assistant","model":"m","content":{"type":"text","text":"hi"}}}`),
		"3.res-head.json": `{"status":202,"headers":{}}`,
		"3.res.json":      "",
		"4.req.json":      req("A", `{"jsonrpc":"2.0","id":2,"method":"ping"}`),
		"4.res-head.json": head(200, "A"),
		"4.res.json":      sse(`{"jsonrpc":"2.0","id":2,"result":{}}`),
		"5.req.json":      req("A", `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"loud"}}`),
		"5.res.json":      "", // refused: no head file
		// a second run: initialize was cached already, so its first
		// recorded exchange is number 1 again
		"1 tools_call_fail_9efd976b5b25a5ea.req.json":      req("B", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fail","arguments":{}}}`),
		"1 tools_call_fail_9efd976b5b25a5ea.res-head.json": head(200, "B"),
		"1 tools_call_fail_9efd976b5b25a5ea.res.json":      sse(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`),
	})
	rc := openCache(t, dir)
	defer rc.Close()
	rec := &recorder{}
	if err := Read(dir, rc, rec, Options{}); err != nil {
		t.Fatalf("Read: %v", err)
	}
	var got []string
	for _, f := range rec.frames {
		got = append(got, strings.TrimPrefix(f.File, dir+"/")+" "+f.SessionID+" "+f.Direction.String()+" "+f.Pairing.String())
	}
	want := strings.Join([]string{
		"1 initialize.req.json A c2s opened",
		"1 initialize.res.json A s2c answered",
		"1 tools_call_fail_9efd976b5b25a5ea.req.json B c2s opened", // the second run's own session
		"1 tools_call_fail_9efd976b5b25a5ea.res.json B s2c answered",
		"2 tools_call_ask_44136fa355b3678a.req.json A c2s opened",
		"2 tools_call_ask_44136fa355b3678a.res.json A s2c opened", // sampling on the call's stream
		"2 tools_call_ask_44136fa355b3678a.res.json A s2c answered",
		"3.req.json A c2s answered",      // the client's answer: an unnamed POST
		"3.res-head.json A s2c unpaired", // the 202 that acknowledged it answers no request
		"4.req.json A c2s opened",
		"4.res.json A s2c answered",
		"5.req.json A c2s opened",
	}, "\n")
	if strings.Join(got, "\n") != want {
		t.Errorf("frames\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	if f := rec.frames[8]; f.Status != 202 || f.Raw != nil {
		t.Errorf("the 202 of the client's answer: %d %s", f.Status, f.Raw)
	}
	refused := false
	for _, d := range rec.damage {
		if strings.HasSuffix(d.File, "/5.res.json") && strings.Contains(d.Reason, "mcp-rewind kept nothing of this answer") {
			refused = true
		}
	}
	if !refused {
		t.Errorf("the refused setLevel is not said to have lost its answer: %+v", rec.damage)
	}
}

// A distilled result is the result of an answer to its request, written
// around it where it was read (white space about it left out); one that is
// a whole JSON-RPC message is kept as it is, and one that is not JSON is
// damage.
func TestRewindDistilledAnswers(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cache")
	writeFiles(t, dir, map[string]string{
		"1 initialize.req.json": `{"url":"http://localhost:8080/mcp","body":{"jsonrpc":"2.0","id":"init-1","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}`,
		"1 initialize.json":     "\n  {\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}\n\n",
		"2 tools_list.json":     `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`,
		"3 ping.json":           `{"unclosed":`,
		"4 ping.json":           "{}",
	})
	rc := openCache(t, dir)
	defer rc.Close()
	rec := &recorder{}
	if err := Read(dir, rc, rec, Options{}); err != nil {
		t.Fatalf("Read: %v", err)
	}
	var answers []string
	for _, f := range rec.frames {
		if f.Direction == session.ServerToClient {
			answers = append(answers, string(f.Raw))
		}
	}
	want := []string{
		`{"jsonrpc":"2.0","id":"init-1","result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
	}
	if strings.Join(answers, "\n") != strings.Join(want, "\n") {
		t.Errorf("answers:\n%s\nwant:\n%s", strings.Join(answers, "\n"), strings.Join(want, "\n"))
	}
	found := false
	for _, d := range rec.damage {
		found = found || (strings.HasSuffix(d.File, "3 ping.json") && d.Reason == "a cache file that is not JSON")
	}
	if !found {
		t.Errorf("no damage for the distilled file that is not JSON: %+v", rec.damage)
	}
}
