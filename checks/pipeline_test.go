package checks_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/sharedtest"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/suppress"
)

// pipelineModes are the ways a capture is read with two goroutines: with the
// real batches, and with batches of two items that borrow most messages
// from the reader (which then waits) and are overwritten once correlated;
// each through the reader's buffer and through a tiny one that it
// overwrites as it goes. A frame or bytes kept past their time, or an item
// out of order, changes the findings.
var pipelineModes = []struct {
	mode session.PipelineMode
	buf  int
}{
	{session.PipelineAlways, 0}, {session.PipelineAlways, 64},
	{session.PipelineTiny, 0}, {session.PipelineTiny, 64},
}

// samePipelined checks src sequentially and in every pipeline mode and
// reports how the findings differ.
func samePipelined(t *testing.T, src readers.Source, rules []*Rule, sup *suppress.Suppressions) {
	t.Helper()
	run := func(mode session.PipelineMode, buf int) []gotFinding {
		got, err := runSourceWith(src, rules, sup, readers.Options{ReadBuffer: buf, Limits: session.Limits{Pipeline: mode}})
		if err != nil {
			t.Fatalf("%s: pipeline mode %d: %v", src.Name, mode, err)
		}
		return got
	}
	sequential := run(session.PipelineNever, 0)
	for _, m := range pipelineModes {
		if got := run(m.mode, m.buf); !slices.EqualFunc(sequential, got, func(a, b gotFinding) bool { return a.equal(b) }) {
			t.Errorf("%s: the findings change in pipeline mode %d with read buffer %d:\nsequential:\n%s\npipelined:\n%s",
				src.Name, m.mode, m.buf, listFindings(sequential), listFindings(got))
		}
	}
}

// Every rule fixture gives the same findings, in the same order, whether
// the reader and correlation share one goroutine or run in two.
func TestFixturesPipelined(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", "*.jsonl"))
	if len(paths) < 100 {
		t.Fatalf("only %d fixtures found", len(paths))
	}
	for _, path := range paths {
		rule := Lookup(All(), filepath.Base(filepath.Dir(path)))
		if rule == nil {
			continue // not a rule's fixture
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data, _, err = parseWants(data)
		if err != nil {
			t.Fatal(err)
		}
		sup, _, err := fixtureSuppressions(path)
		if err != nil {
			t.Fatal(err)
		}
		samePipelined(t, bytesSource(path, data), fixtureRules(rule), sup)
	}
}

// So does every capture the repository ships, in each format, and every
// real capture beside it.
func TestCapturesPipelined(t *testing.T) {
	t.Parallel()
	var paths []string
	for _, pattern := range []string{"*.jsonl", "formats/*/*.*"} {
		m, _ := filepath.Glob(filepath.Join("..", "testdata", pattern))
		paths = append(paths, m...)
	}
	paths = append(paths, filepath.Join("..", "testdata", "formats", "mcp-rewind", "rewind-cache"))
	if len(paths) < 15 {
		t.Fatalf("only %d captures found", len(paths))
	}
	check := func(t *testing.T, paths []string) {
		for _, path := range paths {
			srcs, err := readers.Resolve([]string{path}, nil, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range srcs {
				samePipelined(t, src, All(), nil)
			}
		}
	}
	onRepositoryAndShared(t, paths, "*.jsonl", check)
}

// onRepositoryAndShared runs check, in parallel, on the repository's paths
// and on the shared real captures that match glob.
func onRepositoryAndShared(t *testing.T, paths []string, glob string, check func(*testing.T, []string)) {
	t.Run("repository", func(t *testing.T) {
		t.Parallel()
		check(t, paths)
	})
	t.Run("shared", func(t *testing.T) {
		t.Parallel()
		shared, _ := filepath.Glob(filepath.Join(sharedtest.Path(t, "captures"), glob))
		if len(shared) == 0 {
			t.Fatal("no real captures found")
		}
		check(t, shared)
	})
}
