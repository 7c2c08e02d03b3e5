package main

import (
	"strings"
	"testing"
)

// The HTML report shows the run's coverage per server: what it
// advertised, called and called successfully, and what it never called.
func TestHTMLShowsCoverage(t *testing.T) {
	t.Parallel()
	code, out, errs := ownHome(t).invoke(t, "", "--format", "html", testdata("clean-stdio.jsonl"))
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	const row = `<tr><td>notes</td><td>tools</td><td class="num">3</td><td class="num">2</td><td class="num">2</td><td class="num">67%</td><td><code>read_note</code></td></tr>`
	if !strings.Contains(out, `<section id="coverage">`) || !strings.Contains(out, row) {
		t.Errorf("no coverage row %s in the page", row)
	}
}
