package checks

import (
	"strings"
	"testing"
)

// Every rule that judges the protocol names the specification sections it
// enforces (issue 24); rules about the capture and the run name none.
func TestProtocolRulesNameTheirSpecSections(t *testing.T) {
	t.Parallel()
	aboutTheRun := map[string]bool{
		"internal-error": true, "invalid-envelope": true, "unread-capture": true, "baseline": true,
		"missing-frames": true, "truncated-capture": true, "stale-suppression": true,
		"expired-suppression": true, "flaky-call": true,
	}
	for _, r := range All() {
		if aboutTheRun[r.ID] != (len(r.Doc.Spec) == 0) {
			t.Errorf("rule %s: %d spec sections; rules about the protocol name theirs, rules about the run none", r.ID, len(r.Doc.Spec))
		}
		for _, s := range r.Doc.Spec {
			if !strings.Contains(r.Doc.Text(), s.URL) || !strings.Contains(r.Doc.Markdown(), "<"+s.URL+">") {
				t.Errorf("rule %s: %s is not in its documentation", r.ID, s)
			}
		}
	}
	if got := specRefs["lifecycle"][0].URL; got != "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle" {
		t.Errorf("lifecycle links %s", got)
	}
	if got := specRefs["jsonrpc-version"][0].URL; got != "https://modelcontextprotocol.io/specification/2025-11-25/basic" {
		t.Errorf("jsonrpc-version links %s", got)
	}
	for id := range specRefs {
		if Lookup(All(), id) == nil {
			t.Errorf("spec references for unknown rule %s", id)
		}
	}
}
