package checks

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/session"
)

// The same traffic recorded twice, at other times, under other session ids
// and with other request ids, must keep its fingerprints: code scanning
// keys alerts on them, and suppressions name findings by them.
func TestFingerprintsSurviveRerecording(t *testing.T) {
	for _, name := range []string{"demo-session.jsonl", "stdout-pollution.jsonl", "http-connections.jsonl"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			again := rerecord(data)
			if bytes.Equal(data, again) {
				t.Fatal("the rewrite changed nothing")
			}
			first, second := fingerprints(t, data), fingerprints(t, again)
			if len(first) == 0 {
				t.Fatal("the capture has no findings to compare")
			}
			if !slices.Equal(first, second) {
				t.Errorf("fingerprints changed:\n%v\n%v", first, second)
			}
			if len(slices.Compact(slices.Clone(first))) != len(first) {
				t.Errorf("two findings share a fingerprint: %v", first)
			}
		})
	}
}

// rerecord rewrites a capture as a second recording of the same traffic
// would differ: other timestamps, other session ids, and request ids
// numbered from 100 (requests and the answers and cancellations naming them).
func rerecord(capture []byte) []byte {
	again := regexp.MustCompile(`"ts":"2026-(\d\d)-(\d\d)T\d\d:`).ReplaceAll(capture, []byte(`"ts":"2027-${1}-${2}T18:`))
	again = regexp.MustCompile(`"session_id":"([^"]*)"`).ReplaceAll(again, []byte(`"session_id":"${1}-rerun-42"`))
	return regexp.MustCompile(`"(id|requestId)":(\d+)`).ReplaceAllFunc(again, func(m []byte) []byte {
		key, n, _ := bytes.Cut(m, []byte(":"))
		id, _ := strconv.Atoi(string(n))
		return fmt.Appendf(nil, "%s:%d", key, id+100)
	})
}

func fingerprints(t *testing.T, capture []byte) []string {
	t.Helper()
	src := session.Source{Name: "capture.jsonl", Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(capture)), nil
	}}
	gate, _ := ParseGate(DefaultGate, All())
	res, err := Run([]session.Source{src}, Config{Rules: All(), Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			out = append(out, f.Rule+" "+f.Fingerprint)
		}
	}
	return out
}

func TestQuote(t *testing.T) {
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
	leaky := &Rule{ID: "test-leaky", Doc: testDoc("quotes capture text"), Signal: SignalWarn,
		New: EachFrame(func(p *Pass, f *session.Frame) {
			if f.Msg.Kind == session.Request {
				p.Report(f, "tools/call "+f.Msg.Req.Name, "tool %s failed with %s", f.Msg.Req.Name, f.Raw).
					Relate(f.File, f.Line, "sent with "+f.Msg.Req.Name)
			}
		})}
	capture := envelope("1", "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+fakeGitHubToken+`","arguments":{"Authorization":"Bearer Zq8vN3pL0xR7tY2mK5wB9cF4hJ6"}}}`)
	fs := runCapture(t, capture, Config{Rules: []*Rule{leaky}, Assertions: Assertions{ExpectTools: []string{"x"}, ForbidTools: []string{fakeGitHubToken}}})
	if len(fs) != 1 {
		t.Fatalf("got %d findings", len(fs))
	}
	f := fs[0]
	for _, text := range []string{f.Message, f.Subject, f.Related[0].Message} {
		if strings.Contains(text, "FAKE") || strings.Contains(text, "Zq8vN3") || !strings.Contains(text, "[GitHub token sha256:") {
			t.Errorf("not masked: %q", text)
		}
	}
	src := session.Source{Name: "t.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(capture)), nil }}
	res, err := Run([]session.Source{src}, Config{Rules: []*Rule{leaky}, Assertions: Assertions{ForbidTools: []string{fakeGitHubToken}}})
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Sessions[0].Assertions[0]; strings.Contains(a.Message, "FAKE") || !strings.Contains(a.Message, "[GitHub token sha256:") {
		t.Errorf("assertion message not masked: %q", a.Message)
	}
}

// fakeGitHubToken has the format of a classic GitHub token and is no token.
const fakeGitHubToken = "ghp_FAKEzQXzoohJKjqqRKApEHmVBFRN2YZl7c5m"

// A flood of damage is listed up to a bound and counted in full.
func TestDamageIsCountedBeyondTheListed(t *testing.T) {
	capture := `{"session_id":"s1","seq":1,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n" +
		strings.Repeat("Segmentation fault (core dumped)\n", 150)
	src := session.Source{Name: "flood.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(capture)), nil }}
	gate, _ := ParseGate(DefaultGate, All())
	res, err := Run([]session.Source{src}, Config{Rules: All(), Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Sessions[0]
	if len(s.Findings) != maxDamageFindings+1 || s.Count(SignalIncomplete) != 150 {
		t.Errorf("%d findings listed, %d counted; want %d and 150", len(s.Findings), s.Count(SignalIncomplete), maxDamageFindings+1)
	}
	if last := s.Findings[len(s.Findings)-1]; last.Also != 49 || !strings.Contains(last.Message, "50 more damaged") || last.Line != 151 {
		t.Errorf("summary finding %+v", last)
	}
}
