package checks_test

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/mcpcheck/mcpcheck/checks"
)

// The acceptance fixture of the routing rules: four tools/call requests over
// 2026-07-28 HTTP give exactly one routing-header finding (the Mcp-Name
// that disagrees; the base64 sentinel that agrees is decoded) and one
// param-header finding (41 for 42; 42 and 42.0 are one integer).
func TestFourCallsOneRoutingOneParamFinding(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "routing-header", "bad-four-calls-one-name-one-param.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stripped, _, err := parseWants(data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := runFixture(path, stripped, All(), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, f := range got {
		count[f.Rule]++
	}
	// The listing's non-ASCII tool name is also tool-name's (announced in
	// the fixture); of the calls, only these two findings.
	if len(got) != 3 || count["routing-header"] != 1 || count["param-header"] != 1 || count["tool-name"] != 1 {
		t.Errorf("want one routing-header and one param-header finding, got:\n%s", listFindings(got))
	}
}
