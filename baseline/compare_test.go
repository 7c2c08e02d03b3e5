package baseline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/mcp"
)

// listing builds the definitions of a tools/list result's tools array, as
// a server sends them, through FromToolSet.
func listing(t *testing.T, revision, tools string) Definitions {
	t.Helper()
	set, ok := mcp.NewToolSet([]byte(tools))
	if !ok {
		t.Fatalf("bad test listing: %s", tools)
	}
	return FromToolSet(set, revision)
}

// changesOf renders changes one per line: tool change tier, then each
// field and diff.
func changesOf(cs []ToolChange) string {
	var lines []string
	for _, c := range cs {
		lines = append(lines, fmt.Sprintf("%s %s %s", c.Tool, c.Change, c.Tier))
		for _, f := range c.Fields {
			for _, d := range f.Diffs {
				lines = append(lines, fmt.Sprintf("  %s %s", f.Field, d.Explained()))
			}
		}
	}
	return strings.Join(lines, "\n")
}

func compare(t *testing.T, oldRev, old, newRev, cur string) string {
	t.Helper()
	o, n := listing(t, oldRev, old), listing(t, newRev, cur)
	return changesOf(Compare(&o, &n))
}

const rev = "2025-11-25"

func TestCompareEqualDefinitionsSpelledDifferently(t *testing.T) {
	t.Parallel()
	old := `[{"name":"read","description":"Read a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":["string"],"enum":["text","binary"]}},"required":["path"]}},
	         {"name":"list","inputSchema":{"type":"object","properties":{},"required":[]},"icons":[]}]`
	// key order, the default dialect spelled out, required [] dropped, a
	// type as a one-element list, an enum reordered, default hints spelled
	// out, empty icons dropped: none of it is drift.
	cur := `[{"inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","required":["path"],"properties":{"mode":{"enum":["binary","text"],"type":"string"},"path":{"type":"string"}},"type":"object"},"description":"Read a file","name":"read","annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}},
	         {"name":"list","inputSchema":{"type":"object","properties":{}},"annotations":{}}]`
	if got := compare(t, rev, old, rev, cur); got != "" {
		t.Errorf("equal definitions drifted:\n%s", got)
	}
}

func TestCompareDefaultHintsAreNotDrift(t *testing.T) {
	t.Parallel()
	// Done when: adding {"readOnlyHint": false, "destructiveHint": true}
	// to a tool that had no annotations is not drift.
	old := `[{"name":"rm","inputSchema":{"type":"object"}}]`
	cur := `[{"name":"rm","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true}}]`
	if got := compare(t, rev, old, rev, cur); got != "" {
		t.Errorf("spelled-out defaults drifted:\n%s", got)
	}
}

func TestCompareAnnotations(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, old, cur, want string }{
		{"read-only flipped", `{"readOnlyHint":true}`, `{"readOnlyHint":false}`,
			"t changed breaking\n  annotations /readOnlyHint: true → false (breaking: no longer read-only)"},
		{"read-only dropped to its default", `{"readOnlyHint":true}`, ``,
			"t changed breaking\n  annotations /readOnlyHint: true → false (breaking: no longer read-only)"},
		{"destructive flipped", `{"destructiveHint":false}`, `{"destructiveHint":true}`,
			"t changed breaking\n  annotations /destructiveHint: false → true (breaking: now destructive)"},
		{"destructive by default now", `{"destructiveHint":false}`, `{}`,
			"t changed breaking\n  annotations /destructiveHint: false → true (breaking: now destructive)"},
		{"read-only declared", ``, `{"readOnlyHint":true}`,
			"t changed review\n  annotations /readOnlyHint: false → true (review)"},
		{"idempotent", `{"idempotentHint":true}`, `{"idempotentHint":false}`,
			"t changed review\n  annotations /idempotentHint: true → false (review)"},
		// a hint that is not a boolean never collapses to the default
		{"string hint", ``, `{"readOnlyHint":"false"}`,
			"t changed review\n  annotations /readOnlyHint: false → \"false\" (review)"},
		{"null hint", `{"destructiveHint":true}`, `{"destructiveHint":null}`,
			"t changed review\n  annotations /destructiveHint: true → null (review)"},
		{"read-only to a string", `{"readOnlyHint":true}`, `{"readOnlyHint":"true"}`,
			"t changed breaking\n  annotations /readOnlyHint: true → \"true\" (breaking: no longer read-only)"},
		{"title", `{"title":"Remove"}`, `{"title":"Delete"}`,
			"t changed review\n  annotations /title: \"Remove\" → \"Delete\" (review)"},
		{"not an object", `{"readOnlyHint":true}`, `[true]`,
			"t changed review\n  annotations {\"readOnlyHint\":true} → [true] (review)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			member := func(v string) string {
				if v == "" {
					return ""
				}
				return `,"annotations":` + v
			}
			got := compare(t, rev, `[{"name":"t"`+member(c.old)+`}]`, rev, `[{"name":"t"`+member(c.cur)+`}]`)
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestCompareInputSchema(t *testing.T) {
	t.Parallel()
	base := `{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["a","b"]}},"required":["path"]}`
	for _, c := range []struct{ name, cur, want string }{
		{"required argument added",
			`{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["a","b"]},"depth":{"type":"integer"}},"required":["path","depth"]}`,
			`/properties/depth: added {"type":"integer"} (breaking: required argument added)`},
		{"optional argument added",
			`{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["a","b"]},"depth":{"type":"integer"}},"required":["path"]}`,
			`/properties/depth: added {"type":"integer"} (review: optional argument added)`},
		{"argument removed",
			`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
			`/properties/mode: removed {"enum":["a","b"],"type":"string"} (breaking: argument removed)`},
		{"argument retyped",
			`{"type":"object","properties":{"path":{"type":"array"},"mode":{"type":"string","enum":["a","b"]}},"required":["path"]}`,
			`/properties/path/type: "string" → "array" (breaking: argument retyped)`},
		{"existing argument now required",
			`{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["a","b"]}},"required":["path","mode"]}`,
			`/required: added "mode" (breaking: argument now required)`},
		{"argument now optional",
			`{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["a","b"]}}}`,
			`/required: removed "path" (review: argument now optional)`},
		{"enum narrowed",
			`{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["a"]}},"required":["path"]}`,
			`/properties/mode/enum: ["a","b"] → ["a"] (breaking: enum narrowed)`},
		{"enum widened",
			`{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["a","b","c"]}},"required":["path"]}`,
			`/properties/mode/enum: ["a","b"] → ["a","b","c"] (review: enum widened)`},
		{"enum added",
			`{"type":"object","properties":{"path":{"type":"string","enum":["/srv"]},"mode":{"type":"string","enum":["a","b"]}},"required":["path"]}`,
			`/properties/path/enum: added ["/srv"] (breaking: enum narrowed)`},
		{"description of an argument",
			`{"type":"object","properties":{"path":{"type":"string","description":"where"},"mode":{"type":"string","enum":["a","b"]}},"required":["path"]}`,
			`/properties/path/description: added "where" (review)`},
		{"root retyped",
			`{"type":"array","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["a","b"]}},"required":["path"]}`,
			`/type: "object" → "array" (breaking: type changed)`},
		{"non-default dialect",
			`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string","enum":["a","b"]}},"required":["path"]}`,
			`/$schema: added "http://json-schema.org/draft-07/schema#" (review: dialect changed)`},
		{"schema removed", ``, `removed {…} (breaking: input schema removed)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			member := ""
			if c.cur != "" {
				member = `,"inputSchema":` + c.cur
			}
			got := compare(t, rev, `[{"name":"t","inputSchema":`+base+`}]`, rev, `[{"name":"t"`+member+`}]`)
			lines := strings.Split(got, "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[1], "  input_schema ") || strings.TrimPrefix(lines[1], "  input_schema ") != c.want {
				t.Errorf("got\n%s\nwant the one input_schema diff\n%s", got, c.want)
			}
		})
	}
}

func TestCompareNestedRequiredPropertyIsBreaking(t *testing.T) {
	t.Parallel()
	old := `[{"name":"edit","inputSchema":{"type":"object","properties":{"edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"}},"required":["old"]}}}}}]`
	cur := `[{"name":"edit","inputSchema":{"type":"object","properties":{"edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"},"new":{"type":"string"}},"required":["old","new"]}}}}}]`
	want := "edit changed breaking\n  input_schema /properties/edits/items/properties/new: added {\"type\":\"string\"} (breaking: required property added)"
	if got := compare(t, rev, old, rev, cur); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCompareDialectThroughRevisions(t *testing.T) {
	t.Parallel()
	draft7 := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`
	bare := `{"type":"object"}`
	tool := func(schema string) string { return `[{"name":"t","inputSchema":` + schema + `}]` }
	// draft-07 is the default before 2025-11-25: spelled out or not, the same
	if got := compare(t, "2024-11-05", tool(bare), "2025-06-18", tool(draft7)); got != "" {
		t.Errorf("draft-07 spelled out under a draft-07 revision drifted:\n%s", got)
	}
	// the same explicit dialect under two revisions: no change
	if got := compare(t, "2024-11-05", tool(draft7), "2025-11-25", tool(draft7)); got != "" {
		t.Errorf("an explicit dialect drifted across revisions:\n%s", got)
	}
	// a bare schema means 2020-12 from 2025-11-25 on
	if got := compare(t, "2024-11-05", tool(draft7), "2025-11-25", tool(bare)); !strings.Contains(got, "/$schema: removed") {
		t.Errorf("draft-07 to 2020-12 was not reported:\n%s", got)
	}
	// a baseline of unknown revision (an mcpsnoop file) without $schema:
	// the dialect is not compared
	if got := compare(t, "", tool(bare), "2025-11-25", tool(draft7)); got != "" {
		t.Errorf("an unknown dialect was compared:\n%s", got)
	}
}

func TestCompareOutputSchema(t *testing.T) {
	t.Parallel()
	base := `{"type":"object","properties":{"content":{"type":"string"},"size":{"type":"integer"}},"required":["content"]}`
	for _, c := range []struct{ name, cur, want string }{
		{"property removed", `{"type":"object","properties":{"content":{"type":"string"}},"required":["content"]}`,
			`/properties/size: removed {"type":"integer"} (breaking: property removed)`},
		{"property no longer required", `{"type":"object","properties":{"content":{"type":"string"},"size":{"type":"integer"}}}`,
			`/required: removed "content" (breaking: property no longer required)`},
		{"property retyped", `{"type":"object","properties":{"content":{"type":"array"},"size":{"type":"integer"}},"required":["content"]}`,
			`/properties/content/type: "string" → "array" (breaking: property retyped)`},
		{"property added (widened)", `{"type":"object","properties":{"content":{"type":"string"},"size":{"type":"integer"},"mtime":{"type":"string"}},"required":["content"]}`,
			`/properties/mtime: added {"type":"string"} (review: property added)`},
		{"schema removed", ``, `removed {…} (breaking: output schema removed)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			member := ""
			if c.cur != "" {
				member = `,"outputSchema":` + c.cur
			}
			got := compare(t, rev, `[{"name":"t","outputSchema":`+base+`}]`, rev, `[{"name":"t"`+member+`}]`)
			lines := strings.Split(got, "\n")
			if len(lines) != 2 || strings.TrimPrefix(lines[1], "  output_schema ") != c.want {
				t.Errorf("got\n%s\nwant the one output_schema diff\n%s", got, c.want)
			}
		})
	}
	got := compare(t, rev, `[{"name":"t"}]`, rev, `[{"name":"t","outputSchema":`+base+`}]`)
	if !strings.Contains(got, "t changed review") || !strings.Contains(got, "output schema added") {
		t.Errorf("an output schema declared where none was:\n%s", got)
	}
}

func TestCompareToolsTextAndIcons(t *testing.T) {
	t.Parallel()
	old := `[{"name":"a","description":"Reads","title":"A"},{"name":"gone"},{"name":"pic","icons":[{"src":"a.png"},{"src":"b.png"}]}]`
	cur := `[{"name":"a","description":"Reads and writes","title":"A tool"},{"name":"new"},{"name":"pic","icons":[{"src":"b.png"},{"src":"a.png"}]}]`
	want := strings.Join([]string{
		"a changed review",
		`  description "Reads" → "Reads and writes" (review)`,
		`  title "A" → "A tool" (review)`,
		"gone removed breaking",
		"new added info",
		"pic changed info",
		`  icons /0/src: "a.png" → "b.png" (info)`,
		`  icons /1/src: "b.png" → "a.png" (info)`,
	}, "\n")
	if got := compare(t, rev, old, rev, cur); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCompareSkipsFieldsTheBaselineDoesNotRecord(t *testing.T) {
	t.Parallel()
	o := listing(t, "", `[{"name":"t","description":"old"}]`)
	o.Missing = mcpsnoopV1Missing
	n := listing(t, rev, `[{"name":"t","description":"new","title":"T","annotations":{"readOnlyHint":true},"outputSchema":{"type":"object"},"icons":[{"src":"x"}]}]`)
	want := "t changed review\n  description \"old\" → \"new\" (review)"
	if got := changesOf(Compare(&o, &n)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFromToolSetSkipsNamelessAndDuplicates(t *testing.T) {
	t.Parallel()
	d := listing(t, rev, `[{"name":"b","description":"first"},{"description":"no name"},{"name":"a"},{"name":"b","description":"second"}]`)
	if len(d.Tools) != 2 || d.Tools[0].Name != "a" || d.Tools[1].Name != "b" || d.Tools[1].Description != "first" {
		t.Errorf("tools %+v", d.Tools)
	}
}

func TestSummaryShowsTierFieldsAndAPointer(t *testing.T) {
	t.Parallel()
	o := listing(t, rev, `[{"name":"rm","description":"Remove","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}},"annotations":{"readOnlyHint":true}}]`)
	n := listing(t, rev, `[{"name":"rm","description":"Remove files","inputSchema":{"type":"object","properties":{"path":{"type":"array"}}},"annotations":{"readOnlyHint":false}}]`)
	cs := Compare(&o, &n)
	got := cs[0].Summary(func(s string) string { return fmt.Sprintf("%q", s) })
	want := `tool "rm" changed since the baseline (breaking): description review ("Remove" → "Remove files"); input_schema breaking (/properties/path/type: "string" → "array", argument retyped); annotations breaking (/readOnlyHint: true → false, no longer read-only)`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
