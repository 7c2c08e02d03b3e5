package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
)

func vocab() *Vocabulary {
	return &Vocabulary{Rules: checks.All(), Outputs: []string{"json", "junit", "sarif", "text"}, InputFormats: []string{"har", "mcpsnoop"}}
}

var testVocab = vocab()

const good = `version: 1
captures:
  - testdata/*.jsonl
fail-on: error,invalid,warn,drift
disable: [tool-poisoning]
baseline: .mcpcheck/baselines
outputs:
  sarif: out/mcpcheck.sarif
max-duration: 30s
servers:
  notes-*:
    expect-tools: [search]
    max-round-trips: 3
    fail-on: [error]
rules:
  tool-drift: {}
`

func TestAGoodFileLoads(t *testing.T) {
	f, err := Parse(".mcpcheck.yml", []byte(good), testVocab)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.FailOn, ","); got != "error,invalid,warn,drift" {
		t.Errorf("fail-on = %q", got)
	}
	if f.Servers["notes-*"].MaxRoundTrips != 3 || f.Servers["notes-*"].FailOn[0] != "error" {
		t.Errorf("servers = %+v", f.Servers)
	}
	if f.Outputs["sarif"] != "out/mcpcheck.sarif" || *f.MaxDuration.All.Value() != 30e9 {
		t.Errorf("outputs %v, max-duration %v", f.Outputs, f.MaxDuration)
	}
	if !f.Set["fail-on"] || f.Set["category"] {
		t.Errorf("Set = %v", f.Set)
	}
}

func TestProblemsAreLocatedWithASuggestion(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"unknown key", "version: 1\nfail_on: error\n", `.mcpcheck.yml:2:1: unknown key "fail_on" at the top level; did you mean "fail-on"?`},
		{"unknown server key", "version: 1\nservers:\n  notes:\n    expect-tool: [a]\n", `.mcpcheck.yml:4:5: unknown key "expect-tool" in servers.notes; did you mean "expect-tools"?`},
		{"unknown rule", "version: 1\nrules:\n  tool-drfit: {}\n", `.mcpcheck.yml:3:3: unknown rule "tool-drfit" in rules; did you mean "tool-drift"?`},
		{"rule without options", "version: 1\nrules:\n  tool-drift: {baseline-store: x}\n", `.mcpcheck.yml:3:16: rule tool-drift has no option "baseline-store"; it declares none the file can set`},
		{"wrong type", "version: 1\nmax-round-trips: many\n", `.mcpcheck.yml:2:18: max-round-trips: got string, want integer`},
		{"below minimum", "version: 1\nmax-round-trips: 0\n", `.mcpcheck.yml:2:18: max-round-trips:`},
		{"duration", "version: 1\nmax-duration: 30 seconds\n", `.mcpcheck.yml:2:15: max-duration: "30 seconds" is not a duration`},
		{"tool duration", "version: 1\nmax-duration:\n  search: 30 seconds\n", `.mcpcheck.yml:3:11: max-duration.search: "30 seconds" is not a duration`},
		{"duration type", "version: 1\nmax-duration: [1s]\n", `.mcpcheck.yml:2:15: max-duration: want a duration such as 30s, or a map of tool name to duration`},
		{"fail-on entry", "version: 1\nfail-on: [error, warm]\n", `.mcpcheck.yml:2:18: fail-on: unknown entry "warm"; did you mean "warn"?`},
		{"disable", "version: 1\ndisable: tool-poisonning\n", `.mcpcheck.yml:2:10: disable: unknown rule "tool-poisonning"; did you mean "tool-poisoning"?`},
		{"gated and disabled", "version: 1\ndisable: [secret-leak]\nfail-on: [secret-leak]\n", `.mcpcheck.yml:3:11: fail-on names rule "secret-leak", which disable turns off`},
		{"output format", "version: 1\noutputs:\n  sarf: x.sarif\n", `.mcpcheck.yml:3:3: outputs: unknown format "sarf"; valid: json, junit, sarif, text; did you mean "sarif"?`},
		{"input format", "version: 1\ninput-format: hra\n", `.mcpcheck.yml:2:15: input-format: "hra" is not one of har, mcpsnoop; did you mean "har"?`},
		{"duplicate key", "version: 1\ncategory: a\ncategory: b\n", `.mcpcheck.yml:3:1: key "category" given twice (first at line 2)`},
		{"version", "version: 2\n", `.mcpcheck.yml:1:10: version 2 is not supported`},
		{"no version", "captures: [a]\n", `.mcpcheck.yml:1:1: missing key "version"`},
		{"empty", "", `.mcpcheck.yml: the file is empty`},
		{"syntax", "version: 1\n  captures: [\n", `.mcpcheck.yml:2:1: `},
		{"not a mapping", "- a\n", `.mcpcheck.yml:1:1: the file: got array, want object`},
		{"bad glob", "version: 1\nservers:\n  \"[notes\": {}\n", `.mcpcheck.yml:3:3: servers: "[notes" is not a valid label glob`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(".mcpcheck.yml", []byte(tc.text), testVocab)
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.text)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error:\n  %s\nwant prefix:\n  %s", err, tc.want)
			}
		})
	}
}

func TestMaxDurationPerTool(t *testing.T) {
	f, err := Parse("c.yml", []byte("version: 1\nmax-duration: {search: 5s, \"*\": 1s}\nservers:\n  a:\n    max-duration: 2s\n"), testVocab)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.MaxDuration.ToolValues(); len(got) != 1 || got["search"] != 5e9 || *f.MaxDuration.All.Value() != 1e9 {
		t.Errorf("top level: %+v", f.MaxDuration)
	}
	if s := f.Servers["a"].MaxDuration; s.Tools != nil || *s.All.Value() != 2e9 {
		t.Errorf("server: %+v", s)
	}
}

func TestEveryProblemOfAFileIsReported(t *testing.T) {
	_, err := Parse("c.yml", []byte("version: 1\ncolour: x\nfail-on: [eror]\nservers:\n  a: {forbid: [x]}\n"), testVocab)
	es, ok := err.(Errors)
	if !ok || len(es) != 2 {
		// the schema's problems come first; names are checked once the shape is right
		t.Fatalf("got %v (%T), want the two schema problems", err, err)
	}
	if es[0].Line != 2 || es[1].Line != 5 {
		t.Errorf("lines %d, %d; want 2, 5", es[0].Line, es[1].Line)
	}
}

func TestAliasesCannotExpandWithoutBound(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 8; i++ {
		b.WriteString(strings.Replace("aN: &aN [*aP, *aP, *aP, *aP, *aP, *aP, *aP, *aP, *aP, *aP]\n", "N", string(rune('0'+i)), 2))
		s := b.String()
		b.Reset()
		b.WriteString(strings.ReplaceAll(s, "aP", "a"+string(rune('0'+i-1))))
	}
	_, err := Parse("c.yml", []byte(b.String()), testVocab)
	if err == nil || !strings.Contains(err.Error(), "expands to more than") {
		t.Fatalf("err = %v", err)
	}
}

func TestDiscoveryStopsAtTheRepositoryTop(t *testing.T) {
	top := t.TempDir()
	sub := filepath.Join(top, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Discover(sub, top); got != "" || err != nil {
		t.Fatalf("no file: got %q, %v", got, err)
	}
	outside := filepath.Join(filepath.Dir(top), Names[0])
	if _, err := os.Stat(outside); err == nil {
		t.Skip("a config file exists above the temporary directory")
	}
	yaml := filepath.Join(top, "a", ".mcpcheck.yaml")
	if err := os.WriteFile(yaml, []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := Discover(sub, top); got != yaml {
		t.Errorf("got %q, want %q", got, yaml)
	}
	yml := filepath.Join(sub, ".mcpcheck.yml")
	if err := os.WriteFile(yml, []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := Discover(sub, top); got != yml {
		t.Errorf("got %q, want the nearest, %q", got, yml)
	}
	// above the top nothing is looked for
	if got, _ := Discover(filepath.Join(top, "a"), sub); got != yaml {
		t.Errorf("got %q", got)
	}
}

func TestRelativePathsStartAtTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".mcpcheck.yml")
	if err := os.WriteFile(p, []byte("version: 1\nbaseline: b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(p, testVocab)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Resolve(f.Baseline); got != filepath.Join(dir, "b") {
		t.Errorf("baseline resolves to %q", got)
	}
}
