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
	}
	for _, c := range cases {
		if got := Quote(c.in, c.max); got != c.want {
			t.Errorf("Quote(%q, %d) = %s, want %s", c.in, c.max, got, c.want)
		}
	}
}

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
