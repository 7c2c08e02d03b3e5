package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

// reordering are the characters that reorder or break the text a viewer
// shows: every bidirectional control, the line and paragraph separators,
// and a C1 control and DEL.
var reordering = []rune{
	0x202a, 0x202b, 0x202c, 0x202d, 0x202e, // LRE RLE PDF LRO RLO
	0x2066, 0x2067, 0x2068, 0x2069, // LRI RLI FSI PDI
	0x200e, 0x200f, 0x061c, // LRM RLM ALM
	0x2028, 0x2029, // LS PS
	0x0085, 0x007f, // NEL, DEL
}

// hostileText carries every one of them, in the classic order of a
// "Trojan Source" spoof.
func hostileText(what string) string {
	var b strings.Builder
	b.WriteString(what + " access\u202e\u2066 level\u2069\u2066 ok")
	for _, r := range reordering {
		b.WriteRune(r)
		b.WriteString(fmt.Sprintf("%04x|", r))
	}
	return b.String()
}

// escapeResult puts hostile text in every string a capture controls that
// a report shows: session id, label, file, revision, transport, message,
// subject, related message, suppression reason, assertion argument and
// message.
func escapeResult(t testing.TB) *result.Result {
	rules := testCatalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(testWorkDir, "captures", "evil\u202egpj.jsonl")
	s := &result.SessionResult{
		ID: hostileText("id"), Label: hostileText("label"), File: file, FirstLine: 1,
		Revision: hostileText("rev"), Transport: hostileText("transport"), Frames: 3,
	}
	s.Findings = []*result.Finding{
		relate(finding(rules, gate, "fake-tool-failure", file, 1, hostileText("subject"), hostileText("gated")), file, 1, hostileText("related")),
		finding(rules, gate, "fake-schema-construct", file, 2, "s", hostileText("note")),
		suppressed(finding(rules, gate, "fake-rpc-error", file, 3, "t", hostileText("suppressed")), hostileText("reason"), "", 4),
	}
	s.Assertions = []result.Assertion{{Name: "expect-tool", Arg: hostileText("arg"), Passed: false, Message: hostileText("assertion")}}
	s.Recount()
	return &result.Result{Files: []string{file}, Sessions: []*result.SessionResult{s}, Gate: gate, Rules: rules, ExitCode: 1}
}

// Done when: no format (text, json, junit, sarif, github and its step
// summary) carries a bidirectional control, a line or paragraph separator
// or a C1 control raw; JSON (the report and SARIF) escapes them as JSON,
// so the decoded values are the capture's own.
func TestEveryFormatEscapesReorderingCharacters(t *testing.T) {
	r := escapeResult(t)
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			opts := testOptions()
			if format == "github" {
				opts.StepSummary = filepath.Join(t.TempDir(), "summary.md")
			}
			outputs := map[string][]byte{format: render(t, format, opts, r)}
			if opts.StepSummary != "" {
				summary, err := os.ReadFile(opts.StepSummary)
				if err != nil {
					t.Fatal(err)
				}
				outputs["step summary"] = summary
			}
			for name, out := range outputs {
				if !utf8.Valid(out) {
					t.Errorf("%s: not UTF-8", name)
				}
				for _, c := range reordering {
					if strings.ContainsRune(string(out), c) {
						t.Errorf("%s holds U+%04X raw", name, c)
					}
				}
				if !strings.Contains(string(out), `\u202e`) {
					t.Errorf("%s does not show U+202E escaped", name)
				}
			}
			switch format {
			case "json":
				rep := parseJSON(t, outputs[format])
				js := rep.Sessions[0]
				f := js.Findings[0]
				if js.ID != r.Sessions[0].ID || js.Label != r.Sessions[0].Label || f.Message != hostileText("gated") ||
					f.Subject != hostileText("subject") || f.Related[0].Message != hostileText("related") ||
					js.Findings[2].Suppressed.Reason != hostileText("reason") || js.Assertions[0].Message != hostileText("assertion") ||
					rep.Files[0] != r.Files[0] {
					t.Errorf("the JSON values are not the capture's own: %+v", js)
				}
			case "sarif":
				var v map[string]any
				if err := json.Unmarshal(outputs[format], &v); err != nil {
					t.Errorf("not JSON: %v", err)
				}
			case "junit":
				d := xml.NewDecoder(strings.NewReader(string(outputs[format])))
				for {
					if _, err := d.Token(); err != nil {
						if err.Error() != "EOF" {
							t.Errorf("not XML: %v", err)
						}
						break
					}
				}
			}
		})
	}
}

func TestJSONSafe(t *testing.T) {
	cases := map[string]string{
		`"plain ascii"`:             `"plain ascii"`,
		"\"a\u202eb\u2066c\"":       `"a\u202eb\u2066c"`,
		"\"\u200e\u200f\u061c\"":    `"\u200e\u200f\u061c"`,
		"\"nel\u0085 del\x7f\"":     `"nel\u0085 del\u007f"`,
		"\"naïve 🙂 \u200d zwj\"":    "\"naïve 🙂 \u200d zwj\"",
		"\"bad \xff byte\"":         "\"bad \xff byte\"", // not this pass's to judge
		"{\"k\u202a\": \"\u202c\"}": `{"k\u202a": "\u202c"}`,
	}
	for in, want := range cases {
		got := jsonSafe([]byte(in))
		if string(got) != want {
			t.Errorf("jsonSafe(%q) = %q, want %q", in, got, want)
		}
		var a, b any
		if json.Unmarshal([]byte(in), &a) == nil {
			if err := json.Unmarshal(got, &b); err != nil || fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("jsonSafe(%q) changed the value: %v vs %v (%v)", in, a, b, err)
			}
		}
	}
	clean := []byte(`{"a": "b"}`)
	if got := jsonSafe(clean); &got[0] != &clean[0] {
		t.Error("clean JSON was copied")
	}
}
