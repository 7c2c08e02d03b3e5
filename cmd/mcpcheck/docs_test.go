package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/report"
)

// TestRuleDocs keeps docs/rules.md, where SARIF's helpUri points, in step
// with the catalogue: one heading, hence one anchor, per rule id.
func TestRuleDocs(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", filepath.FromSlash(ruleDocsPath))
	want := ruleDocs(checks.All())
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: run go test ./cmd/mcpcheck -run TestRuleDocs -update", ruleDocsPath)
	}
	headings := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^## (\S+)$`).FindAllStringSubmatch(want, -1) {
		headings[m[1]] = true
	}
	truncated, _ := report.TruncatedRuleDoc()
	for _, r := range append(checks.All(), &checks.Rule{ID: truncated}) {
		if !headings[r.ID] {
			t.Errorf("%s has no heading for %s", ruleDocsPath, r.ID)
		}
		if uri := report.SARIFHelpURI("main", r.ID); !strings.HasSuffix(uri, "/"+ruleDocsPath+"#"+r.ID) {
			t.Errorf("helpUri %s does not point at %s#%s", uri, ruleDocsPath, r.ID)
		}
	}
}

// cliDocPath is the command-line documentation, whose check flags block is
// the flags' own help text.
const cliDocPath = "docs/cli.md"

var cliDocFlags = regexp.MustCompile("(?s)(<!-- check flags: [^\n]*-->\n```\n).*?(```\n<!-- end of check flags -->)")

// TestCLIDoc keeps the check flags of docs/cli.md those of the code.
func TestCLIDoc(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", filepath.FromSlash(cliDocPath))
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !cliDocFlags.Match(doc) {
		t.Fatalf("%s has no check flags block", cliDocPath)
	}
	flags := checkFlags(&checkOptions{}).FlagUsages()
	want := cliDocFlags.ReplaceAllFunc(doc, func(m []byte) []byte {
		sub := cliDocFlags.FindSubmatch(m)
		return append(append(append([]byte{}, sub[1]...), flags...), sub[2]...)
	})
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		doc = want
	}
	if string(doc) != string(want) {
		t.Errorf("the check flags of %s are out of date: run go test ./cmd/mcpcheck -run TestCLIDoc -update", cliDocPath)
	}
}

// TestDocLinks keeps the README, CONTRIBUTING.md and docs/ pointing at files
// that exist: moving a page must not leave a reader at a dead link.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), filepath.FromSlash(target))); err != nil {
				t.Errorf("%s links to %s, which does not exist", page, m[1])
			}
		}
	}
}

// TestReadmeIsOneScreen holds the README to what a newcomer reads first
// (about 200 lines, and the Size and speed table of every hostile case,
// which issue 21 asks the README to show); the reference lives in docs/.
func TestReadmeIsOneScreen(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 245 {
		t.Errorf("README.md has %d lines; keep it near 200 and move the detail into docs/", n)
	}
	if !strings.HasPrefix(string(data), "# mcpcheck\n\n```sh\ngo run ./cmd/mcpcheck testdata/") {
		t.Error("README.md must open with the two commands a newcomer runs: mcpcheck on a capture in testdata/, then the test suite")
	}
}

// TestReadmeConfigExampleVerifies keeps the configuration file the
// README's first screen shows one that config verify accepts.
func TestReadmeConfigExampleVerifies(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(data)
	if m == nil {
		t.Fatal("README.md shows no configuration file")
	}
	path := filepath.Join(t.TempDir(), ".mcpcheck.yml")
	if err := os.WriteFile(path, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := withEnv(nil).invoke(t, "", "config", "verify", path); code != 0 {
		t.Errorf("config verify of the README's example: exit %d\n%s%s", code, out, errs)
	}
}

// TestDocsCommandListIsTheUsage keeps the command list of docs/usage.md and
// docs/cli.md the one mcpcheck help prints.
func TestDocsCommandListIsTheUsage(t *testing.T) {
	t.Parallel()
	_, after, ok := strings.Cut(usageText, "Usage:\n")
	if !ok {
		t.Fatal("the usage text has no Usage: section")
	}
	list, _, _ := strings.Cut(after, "\n\n")
	var want strings.Builder
	for _, l := range strings.Split(list, "\n") {
		want.WriteString(strings.TrimPrefix(l, "  ") + "\n")
	}
	for _, page := range []string{"usage.md", "cli.md"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "docs", page))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "```\n"+want.String()+"```\n") {
			t.Errorf("docs/%s does not list the commands as mcpcheck help does:\n%s", page, want.String())
		}
	}
}
