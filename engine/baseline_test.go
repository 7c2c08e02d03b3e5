package engine

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/readers"
)

// baselineProbe reads the baseline as tool-drift does and notes what the
// engine had resolved, and written, by the time the rule's End ran.
type baselineProbe struct {
	checks.Base
	dir   string
	entry *baseline.Entry
	files int
}

func (b *baselineProbe) End(p *checks.Pass) {
	b.entry = p.Reporter.Baseline()
	entries, _ := os.ReadDir(b.dir)
	b.files = len(entries)
}

// The engine records a label's first baseline as the session ends, before
// the rules that read it judge the session; a run of rules that read no
// baseline records nothing.
func TestEngineRecordsTheBaseline(t *testing.T) {
	t.Parallel()
	capture := openCapture{sessions: 1, calls: 1, listing: func(int) string { return toolsResult("does its work") }}.bytes()
	src := readers.Source{Name: "listed.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(capture)), nil }}
	run := func(t *testing.T, reads bool) (dir string, probe *baselineProbe) {
		dir = t.TempDir()
		probe = &baselineProbe{dir: dir}
		r := &checks.Rule{ID: "probe", Facts: []facts.Fact{facts.ToolListings}, New: func() checks.Checker { return probe }}
		if reads {
			r.Options = []checks.Setting{checks.BaselineStore}
		}
		cfg := Config{Rules: []*checks.Rule{r}}
		checks.BaselineStore.Set(&cfg, baseline.NewStore(dir))
		res, err := Run([]readers.Source{src}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		res.Close()
		return dir, probe
	}
	t.Run("a rule reads it", func(t *testing.T) {
		t.Parallel()
		_, probe := run(t, true)
		if probe.entry == nil || probe.entry.RecordedBy == nil || probe.entry.Path == "" {
			t.Fatalf("the rule saw %+v; want the baseline this session recorded", probe.entry)
		}
		if probe.files != 1 {
			t.Errorf("%d files in the baseline directory when the rule judged the session; want the one recorded", probe.files)
		}
	})
	t.Run("no rule reads it", func(t *testing.T) {
		t.Parallel()
		dir, probe := run(t, false)
		if entries, _ := os.ReadDir(dir); probe.entry != nil || len(entries) != 0 {
			t.Errorf("recorded %d files (entry %+v) for rules that read no baseline", len(entries), probe.entry)
		}
	})
}
