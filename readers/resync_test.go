package readers

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// A record of a document (a HAR entry, a LogRocket event) nested past the
// depth limit no longer ends the document (spec §2.1, fail closed):
// reading resumes at the next record, found by its column in a
// pretty-printed document and by its first member in a compact one, and
// the loss is damage that says so (Lost, which unread-capture gates).

// breakRecord inserts 100k opening brackets into the nth record of doc
// (counting the occurrences of start, 1-based).
func breakRecord(t *testing.T, doc []byte, start string, nth int) []byte {
	t.Helper()
	at := -1
	for i := 0; i < nth; i++ {
		j := bytes.Index(doc[at+1:], []byte(start))
		if j < 0 {
			t.Fatalf("no record %d", nth)
		}
		at += 1 + j
	}
	return bytes.Join([][]byte{doc[:at+1], []byte(`"x":` + strings.Repeat("[", 100_000) + `,`), doc[at+1:]}, nil)
}

func compactFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "formats", name))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readDoc(t *testing.T, name string, doc []byte) *recorder {
	t.Helper()
	rec := &recorder{}
	if err := Read(name, bytes.NewReader(doc), rec, Options{}); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return rec
}

func lost(rec *recorder) []session.Damage {
	var out []session.Damage
	for _, d := range rec.damage {
		if d.Lost != "" {
			out = append(out, d)
		}
	}
	return out
}

func requestMethods(rec *recorder) []string {
	var out []string
	for _, f := range rec.frames {
		if f.Msg.Kind == session.Request {
			out = append(out, f.Msg.Method)
		}
	}
	return out
}

func TestCompactDocumentsResumeAtTheNextRecord(t *testing.T) {
	for _, c := range []struct {
		fixture, start string
		nth            int
	}{
		{"har/streamable-http.har", `{"_initiator"`, 5},
		{"logrocket/billing.logrocket.json", `{"type":"mcp_request"`, 3},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			doc := compactFixture(t, c.fixture)
			whole := readDoc(t, c.fixture, doc)
			broken := readDoc(t, c.fixture, breakRecord(t, doc, c.start, c.nth))
			l := lost(broken)
			if len(l) != 1 || !strings.Contains(l[0].Lost, "could not be read: it nests deeper than the 10000 levels mcpcheck reads; reading resumed at the next one, line 1") {
				t.Fatalf("lost: %+v", l)
			}
			got, want := requestMethods(broken), requestMethods(whole)
			if len(broken.frames) >= len(whole.frames) || len(got) > len(want) || len(got) < len(want)-2 || got[len(got)-1] != want[len(want)-1] {
				t.Errorf("requests after the broken record:\n%v\nwhole:\n%v", got, want)
			}
		})
	}
}

func TestALastRecordPastTheLimitEndsTheDocumentOnce(t *testing.T) {
	doc := compactFixture(t, "logrocket/billing.logrocket.json")
	n := bytes.Count(doc, []byte(`{"type":"mcp_request"`))
	rec := readDoc(t, "billing.logrocket.json", breakRecord(t, doc, `{"type":"mcp_request"`, n))
	l := lost(rec)
	if len(l) != 1 || !strings.HasSuffix(l[0].Lost, "; no later one was found, so the rest of the document was not read") {
		t.Fatalf("lost: %+v", l)
	}
}

func TestEventsOnePerLineResumeAtTheNextLine(t *testing.T) {
	ev := func(id string, method string) string {
		return `{"type":"mcp_request","startTime":1788858000000,"durationMs":3,"method":"` + method + `","requestID":` + id + `,"params":{},"result":{"value":{}}}`
	}
	doc := ev("1", "ping") + "\n" + ev("2", "tools/list") + "\n" + ev("3", "ping") + "\n"
	doc = strings.Replace(doc, `"method":"tools/list"`, `"method":"tools/list","x":`+strings.Repeat("[", 20_000)+`]`, 1)
	rec := readDoc(t, "events.logrocket.json", []byte(doc))
	l := lost(rec)
	if len(l) != 1 || l[0].Line != 2 || !strings.HasSuffix(l[0].Lost, "reading resumed at the next one, line 3") {
		t.Fatalf("lost: %+v", l)
	}
	if got := requestMethods(rec); len(got) != 2 || got[1] != "ping" {
		t.Errorf("requests: %v", got)
	}
}
