package checks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/result"
)

// listingCapture is a 2025-11-25 session that answers each tools/list with
// pages, in order; a page ending in "+" announces a next page.
func listingCapture(pages ...string) []byte {
	var b strings.Builder
	seq := 0
	env := func(dir, raw string) {
		seq++
		fmt.Fprintf(&b, `{"session_id":"listings-1","server_label":"listings","seq":%d,"ts":"2026-09-01T10:00:%02d.000Z","direction":%q,"transport":"stdio","raw":%s}`+"\n", seq, seq%60, dir, raw)
	}
	env("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci-agent","version":"1.0.0"}}}`)
	env("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"listings","version":"1.0.0"}}}`)
	env("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	cursor := ""
	for i, page := range pages {
		params := ""
		if cursor != "" {
			params = fmt.Sprintf(`,"params":{"cursor":%q}`, cursor)
		}
		env("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"%s}`, i+1, params))
		next := ""
		cursor = ""
		if more, ok := strings.CutSuffix(page, "+"); ok {
			page, cursor = more, fmt.Sprintf("page-%d", i+2)
			next = fmt.Sprintf(`,"nextCursor":%q`, cursor)
		}
		env("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"tools":[%s]%s}}`, i+1, page, next))
	}
	return []byte(b.String())
}

const badTools = `{"name":"read file","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#"}},` +
	`{"name":"search","inputSchema":{"type":"object","properties":{"q":{"type":"strin"},"mode":{"oneOf":[{"const":"a"},{"const":"b"}]}}}}`

func ruleCountsOf(res *result.Result) map[string]int {
	counts := map[string]int{}
	for s := range res.AllSessions() {
		for _, f := range s.Findings {
			counts[f.Rule]++
		}
	}
	return counts
}

// A session that lists the same tools again and again reports each problem
// of a definition once; a listing whose last page never came is not judged.
func TestToolDefinitionsJudgedOncePerSession(t *testing.T) {
	t.Parallel()
	rules := withoutRules("tool-drift", "baseline")
	got := ruleCountsOf(checkBytes(t, listingCapture(badTools, badTools, badTools), rules))
	want := map[string]int{"tool-schema-root": 1, "tool-schema-invalid": 1, "tool-name": 1, "schema-construct": 2}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("three listings: %v, want %v", got, want)
	}
	// The same tools as the first page of a listing the client never finished.
	got = ruleCountsOf(checkBytes(t, listingCapture(badTools+"+"), rules))
	if len(got) != 0 {
		t.Errorf("an unfinished listing: %v", got)
	}
	// A changed definition is a new one.
	changed := strings.Replace(badTools, `"strin"`, `"nmber"`, 1)
	got = ruleCountsOf(checkBytes(t, listingCapture(badTools, changed), rules))
	if got["tool-schema-invalid"] != 2 || got["tool-schema-root"] != 1 {
		t.Errorf("a changed definition: %v", got)
	}
}
