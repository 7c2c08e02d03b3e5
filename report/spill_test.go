package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/result"
)

// spilled is r as a run of many sessions holds it: every session in the
// result's temporary file, read back as each report goes.
func spilled(t *testing.T, r *result.Result) *result.Result {
	t.Helper()
	out := &result.Result{Files: r.Files, Gate: r.Gate, Rules: r.Rules, Passed: r.Passed, ExitCode: r.ExitCode}
	var err error
	if out.Spilled, err = engine.SpillSessions(r.Sessions); err != nil {
		t.Fatal(err)
	}
	if len(out.Sessions) != 0 || out.NumSessions() != len(r.Sessions) {
		t.Fatalf("%d sessions in memory, %d in all; want every one spilled", len(out.Sessions), out.NumSessions())
	}
	t.Cleanup(func() { out.Close() })
	return out
}

// Every format reads the same from sessions kept in memory and from
// sessions read back from the spill file, step summary included.
func TestReportsReadTheSameFromTheSpill(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"sample", "empty"} {
		for _, format := range Formats() {
			t.Run(name+"/"+format, func(t *testing.T) {
				t.Parallel()
				mk := sampleResult
				if name == "empty" {
					mk = emptyResult
				}
				dir := t.TempDir()
				opts := testOptions()
				opts.StepSummary = filepath.Join(dir, "memory.md")
				want := render(t, format, opts, mk(t))
				opts.StepSummary = filepath.Join(dir, "spill.md")
				r := spilled(t, mk(t))
				got := render(t, format, opts, r)
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("from the spill:\n%s\nin memory:\n%s", got, want)
				}
				a, _ := os.ReadFile(filepath.Join(dir, "memory.md"))
				b, _ := os.ReadFile(filepath.Join(dir, "spill.md"))
				if !bytes.Equal(a, b) {
					t.Errorf("step summary from the spill:\n%s\nin memory:\n%s", b, a)
				}
			})
		}
	}
}
