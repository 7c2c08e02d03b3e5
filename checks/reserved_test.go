package checks

import (
	"strings"
	"testing"
)

// reservedPrefixes start the ids of rules that exist only in tests: the
// report goldens render a fixed catalogue of fake-… rules
// (report/fixture_test.go), and tests here add test-… rules. A real rule
// with such an id could collide with one of them.
var reservedPrefixes = []string{"fake-", "test-"}

func TestRealRuleIDsAvoidReservedPrefixes(t *testing.T) {
	t.Parallel()
	for _, r := range All() {
		for _, p := range reservedPrefixes {
			if strings.HasPrefix(r.ID, p) {
				t.Errorf("rule %s: ids starting with %q are reserved for rules that exist only in tests", r.ID, p)
			}
		}
	}
}
