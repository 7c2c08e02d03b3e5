package checks_test

// The house rules for messages (CONTRIBUTING.md, "Writing messages"), held
// over the findings of every fixture: what a rule says is read by a person
// at a terminal, in an annotation, in a code-scanning alert.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/internal/sharedtest"

	. "github.com/mcpcheck/mcpcheck/checks"
)

const (
	// maxMessageWords is the most a message may say in its own words:
	// runes outside quoted evidence and file paths. The rest belongs in
	// related locations or JSON fields.
	maxMessageWords = 256
	// maxMessage bounds the whole message, evidence included (Quote cuts
	// each piece of evidence already).
	maxMessage = 400
)

var (
	// quoted is a piece of capture text as Quote or Token shows it.
	quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	// path is a file path (a baseline directory, a capture).
	path = regexp.MustCompile(`(?:[A-Za-z]:)?(?:[/\\][\w.~+@-]+){2,}[/\\]?`)
	// requoted is a JSON string shown quoted a second time: "\"job\"".
	requoted = regexp.MustCompile(`"\\"(?:[^"\\]|\\.)*\\""`)
	// quotedLiteral is a JSON literal shown as a string: "null" for null.
	quotedLiteral = regexp.MustCompile(`(?:^|[\s(:=])"(?:null|true|false)"(?:$|[\s),;:.])`)
	// sameRange is "4 to 4": a range of one says one number.
	sameRange = regexp.MustCompile(`\b(\d+) to (\d+)\b`)
)

// houseRuleProblems lists how msg breaks the house rules ("" parts: none).
func houseRuleProblems(msg string) []string {
	var problems []string
	if msg == "" {
		return []string{"the message is empty"}
	}
	if strings.ContainsAny(msg, "\r\n") {
		problems = append(problems, "the message spans lines")
	}
	if n := utf8.RuneCountInString(msg); n > maxMessage {
		problems = append(problems, fmt.Sprintf("%d runes, more than %d", n, maxMessage))
	}
	if m := requoted.FindString(msg); m != "" {
		problems = append(problems, "a JSON string quoted twice: "+m+" (show tokens with Token)")
	}
	if m := quotedLiteral.FindString(msg); m != "" {
		problems = append(problems, "a JSON literal shown as a string: "+strings.TrimSpace(m)+" (show tokens with Token)")
	}
	words := path.ReplaceAllString(quoted.ReplaceAllString(msg, `"…"`), "PATH")
	if n := utf8.RuneCountInString(words); n > maxMessageWords {
		problems = append(problems, fmt.Sprintf("%d runes of its own words, more than %d: move the rest to related locations or JSON", n, maxMessageWords))
	}
	for _, m := range sameRange.FindAllStringSubmatch(words, -1) {
		if m[1] == m[2] {
			problems = append(problems, fmt.Sprintf("a range of one: %q", m[0]))
		}
	}
	if w := doubledWord(words); w != "" {
		problems = append(problems, fmt.Sprintf("the word %q twice in a row", w))
	}
	first, _ := utf8.DecodeRuneInString(msg)
	if unicode.IsUpper(first) && !strings.HasPrefix(msg, "HTTP") && !strings.HasPrefix(msg, "JSON") {
		problems = append(problems, "starts with a capital: a message is a clause, reporters put it after the location")
	}
	if strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "...") {
		problems = append(problems, "ends with a full stop")
	}
	return problems
}

// doubledWord is the first word written twice in a row ("the the"), "" when
// none; only words of letters count, so "seq 4: seq 5" and "A-Z a-z" pass.
func doubledWord(s string) string {
	fields := strings.Fields(s)
	for i := 1; i < len(fields); i++ {
		a, b := fields[i-1], fields[i]
		if isWord(a) && strings.EqualFold(a, b) {
			return b
		}
	}
	return ""
}

func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

func TestHouseRulesCatchWhatTheyForbid(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		`client sent notifications/progress for progress token "\"job\"", which no request carried`: "quoted twice",
		`server sent notifications/progress with progress token "null"`:                             "JSON literal",
		`1 frame is missing before seq 5 (seq 4 to 4 were not recorded)`:                            "range of one",
		`the the request was not answered`:                                                          `"the" twice`,
		"Tool failed":                                                                               "capital",
		"tool failed.":                                                                              "full stop",
		"tool failed\nagain":                                                                        "spans lines",
		strings.Repeat("word ", 60):                                                                 "own words",
		"x " + strings.Repeat(`"`+strings.Repeat("e", 150)+`" `, 3):                                 "runes, more than",
	} {
		problems := strings.Join(houseRuleProblems(msg), "; ")
		if !strings.Contains(problems, want) {
			t.Errorf("%.60q: problems %q, want one with %q", msg, problems, want)
		}
	}
	for _, msg := range []string{
		`client sent notifications/progress for progress token "job", which no request of the server carried`,
		`server sent notifications/progress with the progress token null, which is not a string or an integer`,
		`1 frame is missing before seq 5: seq 4 was not recorded`,
		`3 frames are missing before seq 10: seq 7 to 9 were not recorded`,
		`tool name "read file" has characters other than A-Z a-z 0-9 _ - . (space)`,
		`the inputSchema of tool "directory_tree" has root type ["object","null"]; it must be "object"`,
		`HTTP 502 with a body that is not JSON: "<html>"`,
		`server "notes" had no baseline: its tools/list is now the baseline in /tmp/a/very/long/` + strings.Repeat("x", 200) + `/baselines`,
	} {
		if problems := houseRuleProblems(msg); len(problems) > 0 {
			t.Errorf("%q: %q", msg, problems)
		}
	}
}

// Every finding of every fixture, and each of its related locations, reads
// by the house rules.
func TestFixtureMessagesFollowTheHouseRules(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("testdata", "*", "*.jsonl"))
	plain, _ := filepath.Glob(filepath.Join("testdata", "*", "*.ndjson")) // plain JSON-RPC, as tee writes it
	paths = append(paths, plain...)
	if err != nil || len(paths) < 100 {
		t.Fatalf("%d fixtures (%v)", len(paths), err)
	}
	messages := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		stripped, _, err := parseWants(data)
		if err != nil {
			t.Fatalf("%s%v", path, err)
		}
		sup, _, err := fixtureSuppressions(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := runFixture(path, stripped, All(), sup, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, f := range got {
			messages++
			for _, p := range houseRuleProblems(f.Message) {
				t.Errorf("%s:%d: %s: %s\n  %s", path, f.Line, f.Rule, p, f.Message)
			}
			for _, r := range f.Related {
				for _, p := range houseRuleProblems(r.Message) {
					if !strings.Contains(p, "capital") { // a related location may name a field first
						t.Errorf("%s:%d: %s: related %d: %s\n  %s", path, f.Line, f.Rule, r.Line, p, r.Message)
					}
				}
			}
		}
	}
	if messages < 300 {
		t.Errorf("%d messages checked; the fixtures give more", messages)
	}
}

// The real captures read by the house rules too: their server texts are
// what the rules were written for (skipped without the shared checkout;
// the fixtures above cover the same rules).
func TestRealCaptureMessagesFollowTheHouseRules(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Path(t, "captures")
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no captures in %s (%v)", dir, err)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := runFixture(path, data, All(), nil, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, f := range got {
			for _, p := range houseRuleProblems(f.Message) {
				t.Errorf("%s:%d: %s: %s\n  %s", filepath.Base(path), f.Line, f.Rule, p, f.Message)
			}
		}
	}
}
