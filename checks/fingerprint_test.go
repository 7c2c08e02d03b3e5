package checks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/internal/fingerprint"
	"github.com/mcpcheck/mcpcheck/result"
)

// The same traffic recorded twice, at other times, under other session ids,
// with other request and task ids and an extra ping early in each session,
// must keep its fingerprints: code scanning keys alerts on them, and
// suppressions name findings by them. Every bad fixture of every rule is
// re-recorded too, so each rule's subjects are held to this.
func TestFingerprintsSurviveRerecording(t *testing.T) {
	t.Parallel()
	captures := map[string][]byte{}
	for _, name := range []string{"demo-session.jsonl", "stdout-pollution.jsonl", "http-connections.jsonl", "recorder-artifacts.jsonl", "probe-fallback.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		captures[name] = data
	}
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "*", "bad-*.jsonl"))
	for _, path := range fixtures {
		if filepath.Base(filepath.Dir(path)) == "invalid-envelope" {
			continue // their faults are in the seqs and directions a re-recording rewrites
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if data, _, err = parseWants(data); err != nil {
			t.Fatal(path, err)
		}
		captures[path] = data
	}
	pinged := 0
	for name, data := range captures {
		t.Run(name, func(t *testing.T) {
			again, pings := rerecord(t, data)
			pinged += pings
			if bytes.Equal(data, again) {
				t.Fatal("the rewrite changed nothing")
			}
			first, second := fingerprints(t, data), fingerprints(t, again)
			slices.Sort(first)
			slices.Sort(second)
			if !slices.Equal(first, second) {
				t.Errorf("fingerprints changed:\n%v\n%v", first, second)
			}
			if len(slices.Compact(slices.Clone(first))) != len(first) {
				t.Errorf("two findings share a fingerprint: %v", first)
			}
		})
	}
	if pinged < 5 {
		t.Errorf("an extra ping went into only %d sessions", pinged)
	}
}

var (
	rerecordTS      = regexp.MustCompile(`"ts":"\d{4}-(\d\d)-(\d\d)T\d\d:`)
	rerecordSession = regexp.MustCompile(`"session_id":"([^"]*)"`)
	// Request ids and what names them: cancellations, progress of a
	// request, 2026-07-28 subscriptions; task ids are the server's.
	rerecordNumID = regexp.MustCompile(`"(id|requestId|io\.modelcontextprotocol/subscriptionId)":(\d+)`)
	rerecordStrID = regexp.MustCompile(`"(id|requestId|io\.modelcontextprotocol/subscriptionId|taskId)":"([^"]*)"`)
)

// rerecord rewrites a capture as a second recording of the same traffic
// would differ: other timestamps, other session ids, numeric request ids
// from 100 up, other string and task ids, and after each session's
// notifications/initialized a ping and its answer (later frames of that
// session renumbered). It returns how many pings it added.
//
// A damaged capture gets no ping (its torn lines could not be
// renumbered), nor does one of 2026-07-28 (its requests carry more).
func rerecord(t *testing.T, capture []byte) ([]byte, int) {
	again := rerecordTS.ReplaceAll(capture, []byte(`"ts":"2027-${1}-${2}T18:`))
	again = rerecordSession.ReplaceAll(again, []byte(`"session_id":"${1}-rerun-42"`))
	again = rerecordNumID.ReplaceAllFunc(again, func(m []byte) []byte {
		key, n, _ := bytes.Cut(m, []byte(":"))
		id, _ := strconv.Atoi(string(n))
		return fmt.Appendf(nil, "%s:%d", key, id+100)
	})
	again = rerecordStrID.ReplaceAll(again, []byte(`"${1}":"rerun-${2}"`))

	// A damaged envelope keeps the seq it has, so pings go only into
	// captures whose every line can be renumbered. A 2026-07-28 request
	// carries its revision, capabilities and routing headers, which this
	// plain ping does not: those captures get none either.
	lines := bytes.SplitAfter(again, []byte("\n"))
	for _, line := range lines {
		if len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) {
			return again, 0
		}
	}
	if bytes.Contains(again, []byte(`"2026-07-28"`)) {
		return again, 0
	}
	var out bytes.Buffer
	shift := map[string]int64{} // per session id: frames inserted so far
	pings := 0
	for _, line := range lines {
		var env map[string]json.RawMessage
		if json.Unmarshal(line, &env) != nil || env["session_id"] == nil {
			out.Write(line)
			continue
		}
		sid := string(env["session_id"])
		var seq int64
		hasSeq := json.Unmarshal(env["seq"], &seq) == nil && seq > 0
		if hasSeq && shift[sid] > 0 {
			env["seq"] = json.RawMessage(strconv.FormatInt(seq+shift[sid], 10))
			line = rerecordLine(t, env)
		}
		out.Write(line)
		var raw struct{ Method string }
		if _, done := shift[sid]; done || json.Unmarshal(env["raw"], &raw) != nil || raw.Method != "notifications/initialized" {
			continue
		}
		req, resp := maps.Clone(env), maps.Clone(env)
		req["raw"] = json.RawMessage(`{"jsonrpc":"2.0","id":"extra-ping","method":"ping"}`)
		resp["raw"] = json.RawMessage(`{"jsonrpc":"2.0","id":"extra-ping","result":{}}`)
		resp["direction"] = json.RawMessage(`"s2c"`)
		if string(env["transport"]) == `"http"` {
			resp["status"] = json.RawMessage(`200`)
			resp["content_type"] = json.RawMessage(`"application/json"`)
		}
		if hasSeq {
			req["seq"] = json.RawMessage(strconv.FormatInt(seq+shift[sid]+1, 10))
			resp["seq"] = json.RawMessage(strconv.FormatInt(seq+shift[sid]+2, 10))
		}
		if !bytes.HasSuffix(line, []byte("\n")) {
			out.WriteByte('\n')
		}
		out.Write(rerecordLine(t, req))
		out.Write(rerecordLine(t, resp))
		shift[sid] += 2
		pings++
	}
	return out.Bytes(), pings
}

func rerecordLine(t *testing.T, env map[string]json.RawMessage) []byte {
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// Two sessions of one server in one file are two sets of alerts: no
// fingerprint of the one is a fingerprint of the other. Ordinals count
// within a file, so another capture beside it in the run changes nothing.
func TestFingerprintsOfTwoSessionsOfOneLabel(t *testing.T) {
	t.Parallel()
	demo, err := os.ReadFile(filepath.Join("..", "testdata", "demo-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	second := bytes.ReplaceAll(demo, []byte(`"session_id":"notes-7f3a"`), []byte(`"session_id":"notes-8b4c"`))
	both := append(slices.Clone(demo), second...)

	res := runCaptures(t, map[string][]byte{"a.jsonl": demo, "both.jsonl": both})
	if len(res.Sessions) != 3 || res.Sessions[1].Label != res.Sessions[2].Label || res.Sessions[2].Ordinal != 1 || res.Sessions[0].Ordinal != 0 {
		for s := range res.AllSessions() {
			t.Logf("%s: session %s, label %q, ordinal %d", s.File, s.ID, s.Label, s.Ordinal)
		}
		t.Fatal("want sessions of one label, ordinals 0, 0 and 1")
	}
	alone, firstOfTwo, secondOfTwo := sessionPrints(res.Sessions[0]), sessionPrints(res.Sessions[1]), sessionPrints(res.Sessions[2])
	if len(alone) == 0 || !slices.Equal(alone, firstOfTwo) {
		t.Errorf("the first session of a file has other fingerprints than the same session alone:\n%v\n%v", alone, firstOfTwo)
	}
	for _, fp := range secondOfTwo {
		if slices.Contains(firstOfTwo, fp) {
			t.Errorf("fingerprint %s is in both sessions", fp)
		}
	}
	if len(secondOfTwo) != len(firstOfTwo) {
		t.Errorf("the second session has %d findings, the first %d", len(secondOfTwo), len(firstOfTwo))
	}
}

// foldSubject is the subject the engine gives the finding that stands for
// a rule's findings past the cap.
const foldSubject = "more findings"

func runCaptures(t *testing.T, files map[string][]byte) *result.Result {
	t.Helper()
	var srcs []readers.Source
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		srcs = append(srcs, readers.Source{Name: name, Open: func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(data)), nil
		}})
	}
	gate, _ := result.ParseGate(DefaultGate, All())
	res, err := engine.Run(srcs, engine.Config{Rules: All(), Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sessionPrints(s *result.SessionResult) []string {
	var out []string
	for _, f := range s.Findings {
		out = append(out, f.Fingerprint)
	}
	return out
}

func fingerprints(t *testing.T, capture []byte) []string {
	t.Helper()
	var out []string
	for _, s := range runCaptures(t, map[string][]byte{"capture.jsonl": capture}).Sessions {
		for _, f := range s.Findings {
			out = append(out, f.Rule+" "+f.Fingerprint)
		}
	}
	return out
}

func TestQuote(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"ENOENT: no such file", 80, `"ENOENT: no such file"`},
		{"[\n  {\n    \"code\": \"invalid\"\n  }\n]", 80, `"[ { \"code\": \"invalid\" } ]"`},
		{"  padded\t\ttext  ", 80, `"padded text"`},
		{"bell\x07 and \u200b zero width", 80, `"bell\u0007 and \u200b zero width"`},
		{"abcdefghij", 5, `"abcde…"`},
		{"ab  cdefgh", 5, `"ab cd…"`},
		{"abcde", 5, `"abcde"`},
		{"tag \U000E0041 and \u202e", 80, `"tag \U000e0041 and \u202e"`},
		{"legal \u2764\ufe0f, smuggled \U0001F600\ufe00\ufe01", 80, `"legal ❤\ufe0f, smuggled 😀\ufe00\ufe01"`},
		{"token " + fakeGitHubToken + " expired", 80, `"token [GitHub token sha256:` + secrets.Hash(fakeGitHubToken) + `] expired"`},
	}
	for _, c := range cases {
		if got := Quote(c.in, c.max); got != c.want {
			t.Errorf("Quote(%q, %d) = %s, want %s", c.in, c.max, got, c.want)
		}
	}
}

// A secret that the cut of a quote would split is masked whole first: no
// part of it reaches a message.
func TestQuoteNeverCutsASecret(t *testing.T) {
	t.Parallel()
	for _, max := range []int{8, 10, 12, 20, 30} {
		got := Quote("error:  "+fakeGitHubToken+" was rejected", max)
		if strings.Contains(got, "FAKE") || strings.Contains(got, "ghp_") {
			t.Errorf("Quote(…, %d) = %s shows part of the token", max, got)
		}
	}
	long := strings.Repeat("x", 70<<10) + fakeGitHubToken // past the window: never shown anyway
	if got := Quote(long, 40); strings.Contains(got, "ghp_") || !strings.HasSuffix(got, `…"`) {
		t.Errorf("Quote of a long text = %s", got)
	}
}

// Every message, subject and related location a rule writes is masked, and
// so are assertion messages: no rule can print a secret.
func TestFindingsNeverPrintSecrets(t *testing.T) {
	t.Parallel()
	leaky := &Rule{ID: "test-leaky", Doc: testDoc("quotes capture text"), Signal: SignalWarn,
		New: EachFrame(func(p *Pass, f *session.Frame) {
			if f.Msg.Kind == session.Request {
				name := f.View().ParamFields().Name
				p.Report(f, "tools/call "+name, "tool %s failed with %s", name, f.Raw).
					Relate(f.File, f.Line, "sent with "+name)
			}
		})}
	capture := envelope("1", "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+fakeGitHubToken+`","arguments":{"Authorization":"Bearer Zq8vN3pL0xR7tY2mK5wB9cF4hJ6"}}}`)
	fs := runCapture(t, capture, engine.Config{Rules: []*Rule{leaky}, Assertions: engine.Assertions{ExpectTools: []string{"x"}, ForbidTools: []string{fakeGitHubToken}}})
	if len(fs) != 1 {
		t.Fatalf("got %d findings", len(fs))
	}
	f := fs[0]
	for _, text := range []string{f.Message, f.Subject, f.Related[0].Message} {
		if strings.Contains(text, "FAKE") || strings.Contains(text, "Zq8vN3") || !strings.Contains(text, "[GitHub token sha256:") {
			t.Errorf("not masked: %q", text)
		}
	}
	src := readers.Source{Name: "t.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(capture)), nil }}
	res, err := engine.Run([]readers.Source{src}, engine.Config{Rules: []*Rule{leaky}, Assertions: engine.Assertions{ForbidTools: []string{fakeGitHubToken}}})
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Sessions[0].Assertions[0]; strings.Contains(a.Message, "FAKE") || !strings.Contains(a.Message, "[GitHub token sha256:") {
		t.Errorf("assertion message not masked: %q", a.Message)
	}
}

// fakeGitHubToken has the format of a classic GitHub token and is no token.
const fakeGitHubToken = "ghp_FAKEzQXzoohJKjqqRKApEHmVBFRN2YZl7c5m"

// A flood of damage is listed up to the driver's cap and counted in full;
// the finding that stands for the rest has a fingerprint of its own.
func TestDamageIsCountedBeyondTheListed(t *testing.T) {
	t.Parallel()
	const pieces = MaxFindingsPerRule + 150
	capture := `{"session_id":"s1","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n" +
		strings.Repeat("Segmentation fault (core dumped)\n", pieces)
	src := readers.Source{Name: "flood.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(capture)), nil }}
	gate, _ := result.ParseGate(DefaultGate, All())
	res, err := engine.Run([]readers.Source{src}, engine.Config{Rules: All(), Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Sessions[0]
	if len(s.Findings) != MaxFindingsPerRule+1 || s.Count(SignalIncomplete) != pieces {
		t.Errorf("%d findings listed, %d counted; want %d and %d", len(s.Findings), s.Count(SignalIncomplete), MaxFindingsPerRule+1, pieces)
	}
	last := s.Findings[len(s.Findings)-1]
	if last.Also != 149 || !strings.Contains(last.Message, "150 more findings of this rule not listed") || last.Line != MaxFindingsPerRule+2 ||
		last.Subject != foldSubject || len(last.Related) != 1 || last.Related[0].Line != pieces+1 {
		t.Errorf("summary finding %+v", last)
	}
	if last.Fingerprint != fingerprint.Of("", 0, "truncated-capture", foldSubject, 0) {
		t.Errorf("summary fingerprint %s", last.Fingerprint)
	}
}
