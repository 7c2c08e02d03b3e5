package checks_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/mcpcheck/mcpcheck/checks"
)

var updateFingerprints = flag.Bool("update", false, "rewrite testdata/fingerprints.golden from the fixtures' findings")

// goldenFingerprints lists every finding of every fixture with its
// fingerprint: a change to a rule's subject, to the fingerprint's inputs
// or to how occurrences are numbered changes every suppression and
// code-scanning alert of it, and shows here as a diff to review.
const goldenFingerprints = "testdata/fingerprints.golden"

func TestFixtureFingerprintsAreGolden(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# FIXTURE:LINE RULE SEVERITY FINGERPRINT SUBJECT — go test ./checks -run TestFixtureFingerprintsAreGolden -update\n")
	for _, r := range All() {
		paths, _ := filepath.Glob(filepath.Join("testdata", r.ID, "*.jsonl"))
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
			got, err := runFixture(path, stripped, fixtureRules(r), sup, 0)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			for _, f := range got {
				if f.Fingerprint == "" {
					t.Errorf("%s: a finding without a fingerprint: %s", path, f)
				}
				fmt.Fprintf(&b, "%s:%d %s %s %s %q\n", filepath.ToSlash(f.File), f.Line, f.Rule, f.Severity, f.Fingerprint, f.Subject)
			}
		}
	}
	got := b.String()
	if *updateFingerprints {
		if err := os.WriteFile(goldenFingerprints, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenFingerprints)
	if err != nil {
		t.Fatalf("%v (go test ./checks -run TestFixtureFingerprintsAreGolden -update writes it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		var diff []string
		wantSet, gotSet := map[string]int{}, map[string]int{}
		for _, l := range wl {
			wantSet[l]++
		}
		for _, l := range gl {
			gotSet[l]++
		}
		for _, l := range wl {
			if gotSet[l] == 0 {
				diff = append(diff, "- "+l)
			}
		}
		for _, l := range gl {
			if wantSet[l] == 0 {
				diff = append(diff, "+ "+l)
			}
		}
		if len(diff) > 40 {
			diff = append(diff[:40], fmt.Sprintf("… and %d more", len(diff)-40))
		}
		t.Errorf("the fingerprints of the fixtures' findings changed (review, then -update):\n%s", strings.Join(diff, "\n"))
	}
}
