package readers

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/session"
)

// An entry whose "time" is missing or not a number has no known duration:
// its answer is dated when the request started, not a guessed moment
// later, so no duration is invented for it.
func TestHARUnknownDurationDatesTheAnswerAtTheStart(t *testing.T) {
	t.Parallel()
	doc := harOf("WebInspector",
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search"}}`,
			status: 200, mime: "application/json", text: `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`},
	)
	const recorded = `"time": 12.5,`
	if !strings.Contains(doc, recorded) {
		t.Fatalf("the document has no %s to replace", recorded)
	}
	start := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	for name, replacement := range map[string]string{"missing": "", "a string": `"time": "12.5",`, "null": `"time": null,`} {
		rec := readHAR(t, strings.Replace(doc, recorded, replacement, 1))
		if len(rec.frames) != 2 {
			t.Fatalf("time %s: %d frames", name, len(rec.frames))
		}
		for i, f := range rec.frames {
			if !f.Time.Equal(start) {
				t.Errorf("time %s: frame %d dated %v, want the entry's start %v", name, i, f.Time, start)
			}
		}
	}
}

// A base64 response body is decoded whether its writer padded it or not;
// a body whose length is not a multiple of three is where the two differ.
func TestHARBase64BodyPaddedOrNot(t *testing.T) {
	t.Parallel()
	const body = `{"jsonrpc":"2.0","id":17,"result":{"content":[]}}`
	padded := base64.StdEncoding.EncodeToString([]byte(body))
	if !strings.HasSuffix(padded, "=") {
		t.Fatalf("%q has no padding to test", padded)
	}
	doc := harOf("mitmproxy",
		harX{method: "POST", url: mcpURL, reqHeaders: withSession(), post: `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"search"}}`,
			status: 200, resHeaders: [][2]string{{"Content-Type", "application/json"}}, mime: "application/json", base64: true, text: body},
	)
	for name, encoded := range map[string]string{"padded": padded, "unpadded": strings.TrimRight(padded, "=")} {
		rec := readHAR(t, strings.Replace(doc, `"`+padded+`"`, `"`+encoded+`"`, 1))
		if len(rec.frames) != 2 || string(rec.frames[1].Raw) != body {
			t.Errorf("%s: frames\n%s\nwant the answer %s", name, frameSummary(rec), body)
		}
	}
}

// An answer's content type is its Content-Type header when recorded, else
// the content's mimeType when there is content: a writer's mimeType for an
// empty body (devtools' "x-unknown", or a type copied from elsewhere)
// describes nothing.
func TestHARAnswerContentType(t *testing.T) {
	t.Parallel()
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search"}}`
	answer := `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`
	for _, c := range []struct {
		name string
		x    harX
		want string
	}{
		{"header", harX{resHeaders: [][2]string{{"Content-Type", "application/json; charset=utf-8"}}, mime: "application/json", text: answer}, "application/json; charset=utf-8"},
		{"mimeType", harX{mime: "application/json", text: answer}, "application/json"},
		{"x-unknown", harX{mime: "x-unknown", text: answer}, ""},
		{"no content", harX{mime: "application/json", noText: true}, ""},
	} {
		x := c.x
		x.method, x.url, x.reqHeaders, x.post, x.status = "POST", mcpURL, withSession(), call, 200
		rec := readHAR(t, harOf("WebInspector", x))
		var got []string
		for _, f := range rec.frames {
			if f.Direction == session.ServerToClient {
				got = append(got, f.ContentType)
			}
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: answer content types %q, want [%q]\n%s", c.name, got, c.want, frameSummary(rec))
		}
	}
}
