package readers

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
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

// A body cut at the size limit before its "encoding" is taken for base64
// only when it begins with base64's letters that decode to the start of a
// JSON-RPC answer or an event stream; a text that merely could be base64
// stays text. (Whether the rest is base64 the decoder judges.)
func TestCutBodyIsBase64OnlyWhenItDecodesToAnAnswer(t *testing.T) {
	t.Parallel()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for text, want := range map[string]bool{
		b64(`{"jsonrpc":"2.0","id":1,"result":{}}`):                           true,
		b64(`[{"jsonrpc":"2.0","id":1,"result":{}}]`):                         true,
		b64("\xef\xbb\xbf  {\"jsonrpc\":\"2.0\"}"):                            true,
		b64("event: message\ndata: {}\n\n"):                                   true,
		b64("data: {\"jsonrpc\":\"2.0\"}\n\n"):                                true,
		b64(": keep-alive\n\n"):                                               true,
		b64("id: 7\ndata: {}\n\n"):                                            true,
		b64("retry: 100\n\n"):                                                 true,
		"  " + strings.TrimRight(b64(`{"jsonrpc":"2.0","id":1}`), "=") + "\n": true,
		b64("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"):                            false, // a binary body
		b64("Accepted, thank you"):                                            false,
		"AcceptedAcceptedAccepted":                                            false, // letters that decode to no answer
		"12345678":                                                            false,
		"eyJq":                                                                false, // too short to tell
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                                false, // JSON itself
		"data: {}":                                                            false, // an event stream itself
		"eyJqc29u=eyJqc29u":                                                   false, // padding inside its head
		"eyJq c29uIjoiMi4wIn0":                                                false, // a space inside its head
	} {
		if got := cutBase64([]byte(text)); got != want {
			t.Errorf("cutBase64(%q) = %v, want %v", text, got, want)
		}
	}
}

// decodeBase64InPlace gives what encoding/base64 gives, padded or not
// and with line breaks, for bodies of any length (across its 4 KiB
// chunks), and declines, leaving the body as it was, what neither
// standard nor raw base64 decodes.
func TestDecodeBase64InPlaceIsEncodingBase64(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(21, 3))
	for range 2000 {
		raw := make([]byte, rnd.IntN(10_000))
		for i := range raw {
			raw[i] = byte(rnd.UintN(256))
		}
		text := base64.StdEncoding.EncodeToString(raw)
		if rnd.IntN(2) == 0 {
			text = strings.TrimRight(text, "=")
		}
		if rnd.IntN(4) == 0 { // line breaks, as MIME writes them
			var b strings.Builder
			for i := 0; i < len(text); i += 76 {
				b.WriteString(text[i:min(i+76, len(text))] + "\r\n")
			}
			text = b.String()
		}
		if rnd.IntN(4) == 0 && len(text) > 0 { // damage: a letter that is not base64, or a length cut
			b := []byte(text)
			if rnd.IntN(2) == 0 {
				b[rnd.IntN(len(b))] = "-_=.!\x00é"[rnd.IntN(7)]
			} else {
				b = b[:rnd.IntN(len(b))]
			}
			text = string(b)
		}
		checkDecodeBase64InPlace(t, text)
	}
}

func FuzzDecodeBase64InPlace(f *testing.F) {
	f.Add("eyJqc29ucnBjIjoiMi4wIn0=")
	f.Add("eyJqc29ucnBjIjoiMi4wIn0")
	f.Add("eyJ=")
	f.Fuzz(func(t *testing.T, text string) { checkDecodeBase64InPlace(t, text) })
}

func checkDecodeBase64InPlace(t *testing.T, text string) {
	t.Helper()
	want, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		want, err = base64.RawStdEncoding.DecodeString(text)
	}
	b := []byte(text)
	got, ok := decodeBase64InPlace(b)
	switch {
	case !ok && string(b) != text:
		t.Fatalf("%q: declined, but changed to %q", text, b)
	case ok != (err == nil):
		t.Fatalf("%q: in place ok %v, encoding/base64 error %v", text, ok, err)
	case ok && !bytes.Equal(got, want):
		t.Fatalf("%q: in place %q, encoding/base64 %q", text, got, want)
	}
}
