package checks_test

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"

	. "github.com/mcpcheck/mcpcheck/checks"
)

// A rule that names the kinds of message it looks at (Rule.Sees) is not
// called for the others, nor secret-leak for a frame its prescan found
// nothing in (Quiet): the JSON report, with every finding, count and
// judged number, is the same as when every rule is given every frame. Run
// over every rule's fixtures, the repository's captures and the shared
// real ones; the filtered run reads by two goroutines, where frames are
// prescanned, and a tiny pipeline's batches, the other by one.
func TestSeesChangesNothing(t *testing.T) {
	t.Parallel()
	var paths []string
	for _, glob := range []string{"testdata/*/*.jsonl", "../testdata/*.jsonl", "../testdata/recorders/*/*"} {
		more, _ := filepath.Glob(glob)
		paths = append(paths, more...)
	}
	if len(paths) < 100 {
		t.Fatalf("only %d captures found", len(paths))
	}
	seeing := 0
	for _, r := range All() {
		if r.Sees != 0 {
			seeing++
		}
	}
	if seeing == 0 {
		t.Fatal("no rule names the kinds it sees: the test compares nothing")
	}
	check := func(t *testing.T, paths []string) {
		for _, path := range paths {
			if filepath.Ext(path) == ".md" {
				continue
			}
			srcs, err := readers.Resolve([]string{path}, nil, func(string) string { return "" })
			if err != nil || len(srcs) != 1 {
				continue // a directory that is not one capture
			}
			src := srcs[0]
			every, err := jsonReport(src, true, session.PipelineNever)
			if err != nil {
				continue // not a capture (a fixture's README, a broken input's case): nothing to compare
			}
			for _, mode := range []session.PipelineMode{session.PipelineAlways, session.PipelineTiny} {
				filtered, err := jsonReport(src, false, mode)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if !bytes.Equal(filtered, every) {
					t.Errorf("%s: the report changes when every rule is given every frame:\nwith Sees (pipeline mode %d):\n%s\nevery frame:\n%s", path, mode, filtered, every)
				}
			}
		}
	}
	onRepositoryAndShared(t, paths, "*", check) // pipeline_test.go
}

// jsonReport is the JSON report of src with every rule on, read in the
// pipeline mode given.
func jsonReport(src readers.Source, everyFrame bool, mode session.PipelineMode) ([]byte, error) {
	rules := All()
	gate, err := result.ParseGate(DefaultGate, rules)
	if err != nil {
		return nil, err
	}
	cfg := engine.Config{Rules: rules, Catalogue: rules, Gate: gate, EveryFrame: everyFrame,
		Reading: readers.Options{Limits: session.Limits{Pipeline: mode}}}
	defer fixtureBaselines(src.Name, &cfg)() // drift_test.go
	res, err := engine.Run([]readers.Source{src}, cfg)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	json, err := report.Lookup("json")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json(report.Options{}).Report(&b, res); err != nil {
		return nil, err
	}
	// A baseline recorded during the run says when: the one thing of the
	// report that two runs do not share.
	return recordedAt.ReplaceAll(b.Bytes(), []byte(`"time": "…"`)), nil
}

var recordedAt = regexp.MustCompile(`"time": "[^"]*"`)
