package readers

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/session"
)

// recorder is a Handler that keeps what it is told, for assertions.
type recorder struct {
	frames   []*session.Frame
	damage   []session.Damage
	sessions []*session.Session
}

// Frame keeps f with a copy of its bytes: they are the reader's, valid
// only until the handler returns (a HAR entry's body is decoded in the
// stream's buffer, which the next entry is read into).
func (r *recorder) Frame(s *session.Session, f *session.Frame) {
	f.Raw = bytes.Clone(f.Raw)
	r.frames = append(r.frames, f)
}
func (r *recorder) Damage(s *session.Session, d session.Damage) { r.damage = append(r.damage, d) }
func (r *recorder) End(s *session.Session)                      { r.sessions = append(r.sessions, s) }

func readString(t *testing.T, capture string) *recorder {
	t.Helper()
	return readStringWith(t, capture, Options{})
}

func readStringWith(t *testing.T, capture string, o Options) *recorder {
	t.Helper()
	rec := &recorder{}
	if err := Read("test.jsonl", strings.NewReader(capture), rec, o); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return rec
}

// env builds one envelope line of session s1.
func env(seq int, dir, raw string, extra ...string) string {
	e := fmt.Sprintf(`{"session_id":"s1","server_label":"notes","seq":%d,"ts":"2026-09-01T10:00:%02d.%03dZ","direction":%q,"transport":"stdio"`, seq, seq/1000, seq%1000, dir)
	for _, x := range extra {
		e += "," + x
	}
	if raw != "" {
		e += `,"raw":` + raw
	}
	return e + "}"
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestReaderLayouts(t *testing.T) {
	t.Parallel()
	req := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	res := `{"jsonrpc":"2.0","id":1,"result":{}}`
	pretty := "{\n  \"session_id\": \"s1\",\n  \"seq\": 2,\n  \"direction\": \"s2c\",\n  \"raw\": {\n    \"jsonrpc\": \"2.0\",\n    \"id\": 1,\n    \"result\": {}\n  }\n}"
	cases := []struct {
		name    string
		capture string
		lines   []int // envelope start lines of the frames, in order
	}{
		{"one per line", lines(env(1, "c2s", req), env(2, "s2c", res)), []int{1, 2}},
		{"blank lines", "\n\n" + env(1, "c2s", req) + "\n   \n\t\n" + env(2, "s2c", res) + "\n\n", []int{3, 6}},
		{"two on one line", env(1, "c2s", req) + " " + env(2, "s2c", res) + "\n", []int{1, 1}},
		{"no space between", env(1, "c2s", req) + env(2, "s2c", res), []int{1, 1}},
		{"pretty-printed", env(1, "c2s", req) + "\n" + pretty + "\n", []int{1, 2}},
		{"CRLF", env(1, "c2s", req) + "\r\n" + env(2, "s2c", res) + "\r\n", []int{1, 2}},
		{"no final newline", env(1, "c2s", req) + "\n" + env(2, "s2c", res), []int{1, 2}},
		{"braces in strings", env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"q":"}{ \" ] [ \\\\"}}}`) + "\n" + env(2, "s2c", res), []int{1, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := readString(t, c.capture)
			if len(rec.damage) > 0 {
				t.Fatalf("damage: %+v", rec.damage)
			}
			var got []int
			for _, f := range rec.frames {
				got = append(got, f.Line)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.lines) {
				t.Errorf("frame lines %v, want %v", got, c.lines)
			}
			if len(rec.frames) == 2 && rec.frames[1].Pairing != session.Answered {
				t.Errorf("the ping was not answered: %v", rec.frames[1].Pairing)
			}
		})
	}
}

func TestReaderDamageIsReportedAndSkipped(t *testing.T) {
	t.Parallel()
	req := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	res := `{"jsonrpc":"2.0","id":1,"result":{}}`
	torn := `{"session_id":"s1","seq":2,"direction":"s2c","raw":{"jsonrpc":"2.0","id":7,"res`
	cases := []struct {
		name      string
		capture   string
		damage    []int
		frames    int
		reasonHas string
	}{
		{"torn inside a string", lines(env(1, "c2s", req), torn, env(3, "s2c", res)), []int{2}, 2, "inside a string"},
		{"torn between members", lines(env(1, "c2s", req), `{"session_id":"s1","seq":2,"direction":"s2c","raw":{"jsonrpc":"2.0",`, env(3, "s2c", res)), []int{2}, 2, "breaks off"},
		{"ends inside an envelope", env(1, "c2s", req) + "\n" + `{"session_id":"s1","seq":2,"raw":{`, []int{2}, 1, "file ends inside"},
		{"junk line", lines(env(1, "c2s", req), "Segmentation fault (core dumped)", env(2, "s2c", res)), []int{2}, 2, "not a JSON object"},
		{"invalid JSON", lines(env(1, "c2s", req), `{"session_id":"s1","seq":2,"direction":"s2c","raw":{"id":1,,}}`, env(3, "s2c", res)), []int{2}, 2, "not valid JSON"},
		{"no session id", lines(env(1, "c2s", req), `{"seq":2,"direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{}}}`, env(3, "s2c", res)), []int{2}, 2, "without a session_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := readString(t, c.capture)
			var got []int
			for _, d := range rec.damage {
				got = append(got, d.Line)
				if !strings.Contains(d.Reason, c.reasonHas) {
					t.Errorf("reason %q lacks %q", d.Reason, c.reasonHas)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.damage) {
				t.Errorf("damage at %v, want %v", got, c.damage)
			}
			if len(rec.frames) != c.frames {
				t.Errorf("%d frames read around the damage, want %d", len(rec.frames), c.frames)
			}
		})
	}
}

func TestNotACapture(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, content string
		line          int
		reason        string
	}{
		{"empty", "", 0, "the file is empty"},
		{"blank", "\n\n  \n", 0, "the file is empty"},
		{"plain text", "hello\n" + env(1, "c2s", `{}`), 1, "not a JSON envelope"},
		{"a JSON log line", "\n" + `{"level":"info","msg":"listening on :8080"}`, 2, "not an envelope"},
		{"JSON array", `[1,2,3]`, 1, "not a JSON envelope"},
		{"no session anywhere", `{"direction":"c2s","raw":{}}`, 0, "no envelope has a session_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Read("x.jsonl", strings.NewReader(c.content), &recorder{}, Options{})
			var nc *NotCaptureError
			if !errors.As(err, &nc) {
				t.Fatalf("err = %v, want NotCaptureError", err)
			}
			if nc.Line != c.line || !strings.Contains(nc.Reason, c.reason) {
				t.Errorf("got line %d %q, want line %d %q", nc.Line, nc.Reason, c.line, c.reason)
			}
		})
	}
}

func TestGzipAndTruncatedGzip(t *testing.T) {
	t.Parallel()
	capture := lines(env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`), env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`))
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(strings.Repeat(capture, 200)))
	zw.Close()
	rec := &recorder{}
	if err := Read("x.jsonl.gz", bytes.NewReader(buf.Bytes()), rec, Options{}); err != nil || len(rec.frames) != 400 {
		t.Fatalf("gzip: err %v, %d frames", err, len(rec.frames))
	}
	cut := buf.Bytes()[:buf.Len()/2]
	rec = &recorder{}
	if err := Read("x.jsonl.gz", bytes.NewReader(cut), rec, Options{}); err != nil {
		t.Fatalf("a cut .gz is damage, not an error: %v", err)
	}
	if len(rec.damage) == 0 || !strings.Contains(rec.damage[len(rec.damage)-1].Reason, "compressed capture breaks off") {
		t.Errorf("damage %+v", rec.damage)
	}
}

func TestLinesOfSixtyFiveMiB(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: skipping the 65 MiB line")
	}
	big := strings.Repeat("x", 65<<20)
	capture := lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{}}}`),
		env(2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+big+`"}]}}`),
		env(3, "c2s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`),
	)
	rec := readString(t, capture)
	if len(rec.damage) != 0 || len(rec.frames) != 3 {
		t.Fatalf("damage %+v, %d frames", rec.damage, len(rec.frames))
	}
	if f := rec.frames[1]; f.Pairing != session.Answered || f.Line != 2 || len(f.Raw) < 65<<20 {
		t.Errorf("big answer: pairing %v line %d raw %d bytes", f.Pairing, f.Line, len(f.Raw))
	}
}

func TestOversizedEnvelopeIsSkipped(t *testing.T) {
	t.Parallel()
	sp := newSplitter(strings.NewReader(lines(
		`{"a":"`+strings.Repeat("y", 2000)+`"}`,
		"{\"b\":\n\""+strings.Repeat("z", 600)+"\",\n\"c\":\""+strings.Repeat("z", 600)+"\"}",
		`{"ok":1}`)), Options{MaxEnvelope: 1024}.orDefaults())
	var got []string
	for {
		c, err := sp.next()
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%d:%t", c.line, c.torn != ""))
	}
	if want := "[1:true 2:true 5:false]"; fmt.Sprint(got) != want {
		t.Errorf("chunks %v, want %s", got, want)
	}
}

func TestEnvelopeFields(t *testing.T) {
	t.Parallel()
	rec := readString(t, lines(
		env(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`,
			`"conn_id":"127.0.0.1:5000"`, `"mcp_method":"tools/call"`, `"mcp_name":"echo"`, `"mcp_protocol_version":"2026-07-28"`,
			`"mcp_param_headers":[{"name":"Mcp-Param-Region","value":"eu","redacted":true}]`, `"accept":"application/json, text/event-stream"`, `"batch":true`),
		env(2, "s2c", "", `"status":401`, `"auth_challenge":"Bearer realm=\"x\""`, `"conn_id":"127.0.0.1:5000"`),
		env(3, "stderr", "", `"text":"listening"`),
		env(4, "c2s", `null`, `"seq":"not a number"`),
	))
	f := rec.frames[0]
	if f.ConnID != "127.0.0.1:5000" || f.MCPMethod != "tools/call" || f.MCPName != "echo" || f.MCPProtocolVersion != "2026-07-28" ||
		len(f.ParamHeaders) != 1 || !f.ParamHeaders[0].Redacted || !f.Batch || f.Accept == "" || f.Time.IsZero() || f.Label != "notes" {
		t.Errorf("request envelope fields: %+v", f)
	}
	if f.Call == nil || f.Call.Revision != "2026-07-28" || f.Call.Name != "echo" {
		t.Errorf("call %+v", f.Call)
	}
	if s := rec.frames[1]; !s.StatusOnly() || s.Status != 401 || s.AuthChallenge == "" || s.Call != f.Call || s.Call.State != session.Failed {
		t.Errorf("status-only 401 not paired with the request of its exchange: %+v", s)
	}
	if s := rec.frames[2]; !s.HasText || s.Text != "listening" || s.Direction != session.Stderr {
		t.Errorf("stderr frame %+v", s)
	}
	if s := rec.frames[3]; s.Raw != nil || s.Msg.Kind != session.NoMessage {
		t.Errorf("raw null should read as no message: %+v", s)
	}
}

// TestLongLinesOfManyEnvelopes: a line far longer than the envelope cap,
// holding thousands of envelopes whose strings cross the reader's buffer
// boundaries (escapes included), is read whole.
func TestLongLinesOfManyEnvelopes(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("\ufeff") // a byte order mark is skipped
	const n = 6000
	for i := 1; i <= n; i++ {
		text := strings.Repeat(`a \\ \" \u00e9 {[`, 1+i%17)
		b.WriteString(env(i, "stderr", "", fmt.Sprintf(`"text":"%s"`, text)))
	}
	b.WriteString("\n" + env(n+1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`) + "\n")
	rec := &recorder{}
	sp := 0
	if err := Read("long.jsonl", strings.NewReader(b.String()), rec, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range rec.frames {
		if f.Direction == session.Stderr {
			sp++
			if f.Line != 1 || !strings.HasPrefix(f.Text, `a \ " é {[`) {
				t.Fatalf("frame seq %d: line %d text %q", f.Seq, f.Line, f.Text)
			}
		}
	}
	if sp != n || len(rec.damage) != 0 {
		t.Fatalf("%d of %d envelopes read, damage %+v", sp, n, rec.damage)
	}
	if last := rec.frames[len(rec.frames)-1]; last.Line != 2 || last.Msg.Method != "ping" {
		t.Errorf("the envelope after the long line: line %d %q", last.Line, last.Msg.Method)
	}
	// the cap applies to one envelope, not to a line
	sp2 := newSplitter(strings.NewReader(strings.Repeat(`{"a":"0123456789"}`, 1000)), Options{MaxEnvelope: 64}.orDefaults())
	count := 0
	for {
		c, err := sp2.next()
		if err != nil {
			break
		}
		if c.torn != "" {
			t.Fatalf("envelope %d torn: %s", count, c.torn)
		}
		count++
	}
	if count != 1000 {
		t.Errorf("%d envelopes, want 1000", count)
	}
}

// Pretty-printers that do not indent put nested objects at column 0; only
// a '{' that cannot continue the open envelope starts the next one.
func TestColumnZeroBraces(t *testing.T) {
	t.Parallel()
	unindented := "{\n\"session_id\": \"s1\",\n\"seq\": 1,\n\"direction\": \"s2c\",\n\"raw\": \n{\n\"jsonrpc\": \"2.0\",\n\"id\": 1,\n\"result\": {\n\"content\": [\n{\n\"type\": \"text\",\n\"text\": \"ok\"\n},\n{\n\"type\": \"text\",\n\"text\": \"two\"\n}\n]\n}\n}\n}\n"
	rec := readString(t, unindented)
	if len(rec.damage) != 0 || len(rec.frames) != 1 || rec.frames[0].View().ResultFields() == nil {
		t.Fatalf("an unindented envelope was cut: damage %+v, %d frames", rec.damage, len(rec.frames))
	}
	for _, torn := range []string{
		`{"session_id":"s1","seq":1,"direction":"s2c","raw":{"jsonrpc":"2.0","id":7`,
		`{"session_id":"s1","seq":1,"direction":"s2c","raw":{"jsonrpc":"2.0",`,
		`{"session_id":"s1","seq":1,"direction":"s2c","raw":{"result":true}`,
	} {
		rec := readString(t, lines(torn, env(2, "c2s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`)))
		if len(rec.damage) != 1 || rec.damage[0].Line != 1 || len(rec.frames) != 1 || rec.frames[0].Line != 2 {
			t.Errorf("%s: damage %+v, frames %d", torn, rec.damage, len(rec.frames))
		}
	}
}

// An envelope over the cap is read as far as the cap allows (spec §2.1,
// fail closed), even as the first one: its frame is marked over the limit
// and truncated, and its seq is not a dropped frame.
func TestOversizedFirstEnvelope(t *testing.T) {
	t.Parallel()
	big := env(1, "s2c", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`+strings.Repeat("z", 10000)+`"}}`)
	rec := readStringWith(t, lines(big, env(2, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)), Options{MaxEnvelope: 4096})
	if len(rec.damage) != 0 || len(rec.frames) != 2 {
		t.Fatalf("damage %+v, %d frames", rec.damage, len(rec.frames))
	}
	f := rec.frames[0]
	if !f.Truncated || len(f.EnvelopeProblems) != 1 || f.EnvelopeProblems[0].Fault != session.OverLimit ||
		!strings.Contains(f.EnvelopeProblems[0].Problem, "larger than the 4096 bytes mcpcheck reads") || f.Msg.Method != "notifications/message" {
		t.Fatalf("the oversized envelope's frame: truncated %v, problems %+v, method %q", f.Truncated, f.EnvelopeProblems, f.Msg.Method)
	}
	if rec.frames[1].GapBefore != 0 || rec.sessions[0].MissingFrames != 0 {
		t.Errorf("the oversized envelope's seq counted as dropped")
	}
}

// Damage that names a session not seen yet waits for that session: its seq
// is not a dropped frame there, and it is reported with that session.
func TestDamageWaitsForTheSessionItNames(t *testing.T) {
	t.Parallel()
	a := `{"session_id":"A","seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}`
	tornB := `{"session_id":"B","seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x`
	b := `{"session_id":"B","seq":2,"direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{}}}`
	rec := &damageRecorder{}
	if err := Read("two.jsonl", strings.NewReader(lines(a, tornB, b)), rec, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rec.damageSessions); got != "[B]" {
		t.Errorf("damage reported with sessions %s, want [B]", got)
	}
	for _, s := range rec.sessions {
		if s.ID == "B" && s.MissingFrames != 0 {
			t.Errorf("the torn envelope's seq counted as dropped in B")
		}
	}
}

type damageRecorder struct {
	recorder
	damageSessions []string
}

func (r *damageRecorder) Damage(s *session.Session, d session.Damage) {
	r.damageSessions = append(r.damageSessions, s.ID)
}
