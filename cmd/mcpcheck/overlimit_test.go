package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session/sessiontest"
)

// overLimitHAR is a HAR whose tools/call answer, an isError result, makes
// its entry about pad bytes larger: the flag comes before the text, as
// servers that write it first send it. A ping follows, answered.
func overLimitHAR(pad int) io.Reader { return overLimitHARAnswer(pad, false) }

// overLimitBase64HAR is the same with the answer in base64, its
// "encoding" after its "text" as playwright writes it: past the cut.
func overLimitBase64HAR(pad int) io.Reader { return overLimitHARAnswer(pad, true) }

func overLimitHARAnswer(pad int, inBase64 bool) io.Reader {
	entry := func(started, post, answer string) string {
		return `{"startedDateTime":"` + started + `","time":5,"request":{"method":"POST","url":"http://localhost:3000/mcp","httpVersion":"HTTP/1.1",` +
			`"headers":[{"name":"Content-Type","value":"application/json"},{"name":"Mcp-Session-Id","value":"s-1"}],"postData":{"mimeType":"application/json","text":` + strconv.Quote(post) + `}},` +
			`"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"application/json"}],"content":{"mimeType":"application/json","text":` + answer + `}}}`
	}
	quote := func(s string) string { return strconv.Quote(s) }
	answer := strings.TrimSuffix(quote(`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"`), `"`) + "PAD" + strings.TrimPrefix(quote(`"}]}}`), `"`)
	fill := "a"
	if inBase64 {
		// whole groups of three before the text's letters, so that the
		// fill, "YWFh" for each "aaa", starts a group of its own
		start := `{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"`
		start += strings.Repeat("x", (3-len(start)%3)%3)
		answer, fill = `"`+base64.StdEncoding.EncodeToString([]byte(start))+"PAD"+base64.StdEncoding.EncodeToString([]byte(`"}]}}`))+`","encoding":"base64"`, "YWFh"
	}
	big := entry("2026-09-01T10:00:01.000Z", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump","arguments":{}}}`, answer)
	head, tail, _ := strings.Cut(`{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"pages":[],"entries":[`+"\n"+
		entry("2026-09-01T10:00:00.000Z", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			quote(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`))+",\n"+
		entry("2026-09-01T10:00:00.100Z", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `""`)+",\n"+
		big+",\n"+
		entry("2026-09-01T10:00:02.000Z", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, quote(`{"jsonrpc":"2.0","id":2,"result":{}}`))+"\n]}}\n", "PAD")
	return io.MultiReader(strings.NewReader(head), io.LimitReader(sessiontest.Repeating(fill), int64(pad/4*4)), strings.NewReader(tail))
}

// overLimitEvents is the same exchange as LogRocket events in a batch.
func overLimitEvents(pad int) io.Reader {
	return overLimitLogRocket(pad, `{"appID":"acme/big","sdk":{"name":"logrocket-mcp-replay-go","version":"0.1.0"},"events":[`+"\n", ",\n", "\n]}\n")
}

// overLimitSingleEvents is the same exchange as single LogRocket events,
// one per line.
func overLimitSingleEvents(pad int) io.Reader { return overLimitLogRocket(pad, "", "\n", "\n") }

func overLimitLogRocket(pad int, start, sep, end string) io.Reader {
	ev := func(seq int, method, rest string) string {
		return fmt.Sprintf(`{"type":"mcp_request","startTime":%d,"durationMs":3,"method":%q,%s"instanceID":"i-1","seq":%d}`, 1788858000000+seq*100, method, rest, seq)
	}
	head, tail, _ := strings.Cut(start+
		ev(1, "initialize", `"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"result":{"value":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}},`)+sep+
		ev(2, "tools/call", `"params":{"name":"dump","arguments":{}},"result":{"isError":true,"value":{"content":[{"type":"text","text":"PAD"}],"isError":true}},`)+sep+
		ev(3, "ping", `"result":{"value":{}},`)+end, "PAD")
	return io.MultiReader(strings.NewReader(head), io.LimitReader(sessiontest.Endless("", 'a'), int64(pad)), strings.NewReader(tail))
}

// A HAR entry or LogRocket event (in a batch or single) past the size
// limit (here 4 KiB, through readers.Options.MaxEnvelope) is read as far
// as the limit (spec §2.1, fail closed): the isError flag before the cut
// fails the call, the
// answer answers its request (no pending-request, no truncated-capture
// excusing it), and the cut is a gated finding. A HAR entry nested past
// the depth limit fails the gate too, and the entries after it are read.
func TestRecordPastTheSizeLimit(t *testing.T) {
	cli := defaultCommand()
	cli.reading.MaxEnvelope = 4096
	tooLarge := func(what string, line int) pinned {
		return pinned{"unread-capture", "the " + what + " is larger than the 4096 bytes mcpcheck reads: what follows its first 4096 bytes was left out, the rest was judged",
			"frame past the size limit", "error", line, true}
	}
	toolError := func(id, line int) pinned {
		return pinned{"tool-error", fmt.Sprintf(`tool "dump" (id %d) reported an error: (no text content)`, id), "tools/call dump", "error", line, true}
	}
	small, _ := io.ReadAll(overLimitHAR(10))
	deepHAR := strings.Replace(string(small), `"time":5,`, `"time":5,"cache":`+strings.Repeat("[", 10_001)+strings.Repeat("]", 10_001)+",", 1)
	for _, c := range []struct {
		name    string
		capture io.Reader
		want    []pinned
		absent  []string
	}{
		{"an isError answer in a HAR entry", overLimitHAR(10_000), []pinned{tooLarge("HAR entry", 4), toolError(1, 4)}, []string{"pending-request", "truncated-capture"}},
		{"an isError answer in base64 in a HAR entry, its encoding past the cut", overLimitBase64HAR(10_000), []pinned{tooLarge("HAR entry", 4), toolError(1, 4)}, []string{"pending-request", "truncated-capture"}},
		// the cut event's instanceID lies past the cut: its session is the
		// file's, where its request id is the first
		{"an isError answer in a LogRocket event", overLimitEvents(10_000), []pinned{tooLarge("event", 3), toolError(1, 3)}, []string{"pending-request", "truncated-capture"}},
		// a single event, not one of a batch, was skipped: the gate failed
		// on unread-capture alone, without the tool's error
		{"an isError answer in a single LogRocket event", overLimitSingleEvents(10_000), []pinned{tooLarge("event", 2), toolError(1, 2)}, []string{"pending-request", "truncated-capture"}},
		{"a HAR entry nested too deeply", strings.NewReader(deepHAR), []pinned{{"unread-capture",
			"1 HAR entry could not be read: it nests deeper than the 10000 levels mcpcheck reads; reading resumed at the next one, line 3",
			"capture not read to its end", "error", 2, true}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			code := cli.run([]string{"check", "--output", "json=" + filepath.Join(dir, "out.json"), "-"}, c.capture, &stdout, &stderr)
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %q\n%s", code, stderr.String(), stdout.String())
			}
			wantFindings(c.want, c.absent...)(t, dir, stdout.String())
		})
	}
}

// playwright's recordHar writes an answer whose type it does not know as
// text in base64, its "encoding" after its "text" (the typed-json
// recording, testdata/recorders): an entry cut at the size limit inside
// that text is still decoded, so the isError flag before the cut fails
// the call.
func TestRecordedBase64AnswerCutAtTheLimit(t *testing.T) {
	har := testdata("recorders/har/typed-json.playwright.har")
	data, err := os.ReadFile(har)
	if err != nil {
		t.Fatal(err)
	}
	// the entry of the call of fail, and where in it its answer's text
	// has held `"isError":true` (decoded) and a little more
	doc := string(data)
	call := strings.Index(doc, `\"name\":\"fail\"`)
	entry := strings.LastIndex(doc[:call], `{"pageref"`)
	text := entry + strings.Index(doc[entry:], `"content":{"size":`)
	text += strings.Index(doc[text:], `"text":"`) + len(`"text":"`)
	answer := `{"result":{"content":[{"type":"text","text":"failed: asked to"}],"isError":true}`
	if !strings.HasPrefix(doc[text:], base64.StdEncoding.EncodeToString([]byte(answer))[:len(answer)*4/3/4*4]) {
		t.Fatalf("the recording's fail answer is not %s in base64 at %d", answer, text)
	}
	cli := defaultCommand()
	cli.reading.MaxEnvelope = text - entry + (len(answer)+2)/3*4 + 8 // past the flag, before the id
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := cli.run([]string{"check", "--output", "json=" + filepath.Join(dir, "out.json"), har}, nil, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q\n%s", code, stderr.String(), stdout.String())
	}
	if !strings.Contains(stdout.String(), `tool "fail" (id 2) reported an error`) || !strings.Contains(stdout.String(), "(unread-capture)") {
		t.Errorf("want the cut answer's tool-error and unread-capture:\n%s", stdout.String())
	}
}
