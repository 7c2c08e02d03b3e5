package checks_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
)

// Every fixture gives the same findings, in the same order, when each of
// its sessions past the first waits in the reader's temporary file and is
// correlated alone after the file, and every session result is read back
// from the run's own temporary file: what a file of many sessions does.
func TestFixturesWithDeferredSessions(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", "*.jsonl"))
	if len(paths) < 100 {
		t.Fatalf("only %d fixtures found", len(paths))
	}
	several := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data, _, err = parseWants(data)
		if err != nil {
			t.Fatal(err)
		}
		rule := Lookup(All(), filepath.Base(filepath.Dir(path)))
		if rule == nil {
			continue // not a rule's fixture
		}
		rules := fixtureRules(rule)
		sup, _, err := fixtureSuppressions(path)
		if err != nil {
			t.Fatal(err)
		}
		normal, err := runFixture(path, data, rules, sup, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		deferred, err := runSourceWithin(bytesSource(path, data), rules, sup, readers.Options{Limits: session.Limits{MaxLiveSessions: 1}}, engine.SpillEverything())
		if err != nil {
			t.Fatalf("%s: deferred: %v", path, err)
		}
		if !slices.EqualFunc(normal, deferred, func(a, b gotFinding) bool { return a.equal(b) }) {
			t.Errorf("%s: the findings change when sessions are deferred:\nnormal:\n%s\ndeferred:\n%s", path, listFindings(normal), listFindings(deferred))
		}
		if strings.Count(string(data), `"session_id":"`) > 0 && distinctSessions(data) > 1 {
			several++
		}
	}
	if several < 5 {
		t.Errorf("only %d fixtures have several sessions: the deferral is hardly exercised", several)
	}
}

func distinctSessions(data []byte) int {
	seen := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if id := sniffID(line); id != "" {
			seen[id] = true
		}
	}
	return len(seen)
}

func sniffID(line string) string {
	_, rest, ok := strings.Cut(line, `"session_id":"`)
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, `"`)
	return id
}
