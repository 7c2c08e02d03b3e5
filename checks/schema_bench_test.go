package checks_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/toolschema"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/result"
	"slices"
)

// schemaTools are the tools of the generated schema capture: input and
// output schemas of the shapes real servers list (required members, enums,
// arrays of objects, a $ref into $defs, anyOf, additionalProperties false).
var schemaTools = []struct {
	name, input, output string
	args                func(i int) string
	result              func(i int) string
}{
	{"read_text_file",
		`{"type":"object","properties":{"path":{"type":"string","description":"Path of the file"},"head":{"type":"integer","minimum":1},"tail":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`,
		`{"type":"object","properties":{"content":{"type":"string"}},"required":["content"]}`,
		func(i int) string {
			return fmt.Sprintf(`{"path":"/srv/sandbox/notes/file-%d.md","head":%d}`, i, 1+i%40)
		},
		func(i int) string {
			return fmt.Sprintf(`{"content":"# Notes %d\nA line of the file's contents, long enough to look like real text.\n"}`, i)
		}},
	{"search_files",
		`{"type":"object","properties":{"path":{"type":"string"},"pattern":{"type":"string"},"excludePatterns":{"type":"array","items":{"type":"string"},"default":[]}},"required":["path","pattern"]}`,
		`{"type":"object","properties":{"matches":{"type":"array","items":{"type":"string"}}},"required":["matches"]}`,
		func(i int) string {
			return fmt.Sprintf(`{"path":"/srv/sandbox","pattern":"*-%d.md","excludePatterns":["node_modules",".git"]}`, i%97)
		},
		func(i int) string {
			return fmt.Sprintf(`{"matches":["/srv/sandbox/notes/file-%d.md","/srv/sandbox/archive/file-%d.md"]}`, i%97, i%97)
		}},
	{"edit_file",
		`{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["oldText","newText"],"additionalProperties":false}},"dryRun":{"type":"boolean","default":false}},"required":["path","edits"]}`,
		`{"type":"object","properties":{"diff":{"type":"string"}},"required":["diff"]}`,
		func(i int) string {
			return fmt.Sprintf(`{"path":"/srv/sandbox/notes/file-%d.md","edits":[{"oldText":"- draft %d","newText":"- final %d"}],"dryRun":false}`, i, i, i)
		},
		func(i int) string { return fmt.Sprintf(`{"diff":"@@ -1 +1 @@\n-- draft %d\n+- final %d\n"}`, i, i) }},
	{"get_weather",
		`{"type":"object","properties":{"location":{"type":"string","enum":["New York","Chicago","Los Angeles","Berlin","Tokyo"]},"units":{"type":"string","enum":["metric","imperial"],"default":"metric"}},"required":["location"]}`,
		`{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"},"humidity":{"type":"number","minimum":0,"maximum":100}},"required":["temperature","conditions","humidity"],"additionalProperties":false}`,
		func(i int) string {
			return fmt.Sprintf(`{"location":%q,"units":"metric"}`, []string{"New York", "Chicago", "Los Angeles", "Berlin", "Tokyo"}[i%5])
		},
		func(i int) string {
			return fmt.Sprintf(`{"temperature":%d.5,"conditions":"Cloudy","humidity":%d}`, i%35, i%100)
		}},
	{"create_issue",
		`{"type":"object","$defs":{"label":{"type":"string","pattern":"^[a-z][a-z0-9-]*$"}},"properties":{"title":{"type":"string","minLength":1},"body":{"type":"string"},"labels":{"type":"array","items":{"$ref":"#/$defs/label"},"uniqueItems":true},"assignee":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["title"]}`,
		`{"type":"object","properties":{"number":{"type":"integer"},"url":{"type":"string","format":"uri"}},"required":["number","url"]}`,
		func(i int) string {
			return fmt.Sprintf(`{"title":"Flaky test %d","body":"Seen in CI run %d.","labels":["bug","ci-%d"],"assignee":null}`, i, i, i%7)
		},
		func(i int) string {
			return fmt.Sprintf(`{"number":%d,"url":"https://git.example.com/issues/%d"}`, i, i)
		}},
}

// schemaCapture is a capture of sessions of a server whose tools declare
// input and output schemas: initialize, tools/list, then calls with
// results carrying structuredContent. One call in 500 has a wrong
// argument; one in 1000 fails with isError. Calls are spread over sessions
// of perSession calls.
func schemaCapture(calls, perSession int) []byte {
	var b bytes.Buffer
	clock := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	sess, seq := 0, 0
	env := func(dir, raw string) {
		seq++
		clock = clock.Add(1500 * time.Microsecond)
		fmt.Fprintf(&b, `{"session_id":"schema-bench-%d","server_label":"workbench","seq":%d,"ts":%q,"direction":%q,"transport":"stdio","raw":%s}`+"\n",
			sess, seq, clock.Format(time.RFC3339Nano), dir, raw)
	}
	var defs []string
	for _, t := range schemaTools {
		defs = append(defs, fmt.Sprintf(`{"name":%q,"description":"Workbench tool %s","inputSchema":%s,"outputSchema":%s}`, t.name, t.name, t.input, t.output))
	}
	listing := `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.Join(defs, ",") + `]}}`
	for i := 0; i < calls; i++ {
		if i%perSession == 0 {
			sess, seq = sess+1, 0
			env("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-client","version":"1.0.0"}}}`)
			env("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"workbench","version":"3.1.0"}}}`)
			env("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			env("c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			env("s2c", listing)
		}
		t := schemaTools[i%len(schemaTools)]
		id := i + 2
		args := t.args(i)
		if i%500 == 499 {
			args = `{"path":17}` // the model got it wrong
		}
		env("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, t.name, args))
		if i%1000 == 999 {
			env("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"upstream unavailable"}],"isError":true}}`, id))
			continue
		}
		structured := t.result(i)
		env("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}],"structuredContent":%s}}`, id, structured, structured))
	}
	return b.Bytes()
}

// largeListing is one session listing n tools, each with an input and an
// output schema of its own: every 97th input uses oneOf, every 89th output
// does not compile.
func largeListing(n int) []byte {
	var b bytes.Buffer
	seq := 0
	env := func(dir, raw string) {
		seq++
		fmt.Fprintf(&b, `{"session_id":"listing-1","server_label":"catalogue","seq":%d,"ts":"2026-09-01T10:00:%02d.000Z","direction":%q,"transport":"stdio","raw":%s}`+"\n", seq, seq, dir, raw)
	}
	env("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`)
	env("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"catalogue","version":"1"}}}`)
	env("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	env("c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	defs := make([]string, n)
	for i := range defs {
		input := fmt.Sprintf(`{"type":"object","properties":{"path_%d":{"type":"string"}}}`, i)
		if i%97 == 0 {
			input = fmt.Sprintf(`{"type":"object","properties":{"path_%d":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, i)
		}
		output := fmt.Sprintf(`{"type":"object","properties":{"text_%d":{"type":"string"}}}`, i)
		if i%89 == 0 {
			output = fmt.Sprintf(`{"type":"object","properties":{"text_%d":{"type":"strin"}}}`, i)
		}
		defs[i] = fmt.Sprintf(`{"name":"tool_%d","description":"Tool %d","inputSchema":%s,"outputSchema":%s}`, i, i, input, output)
	}
	env("s2c", `{"jsonrpc":"2.0","id":1,"result":{"tools":[`+strings.Join(defs, ",")+`]}}`)
	return b.Bytes()
}

// TestALargeListingIsCompiledOnce: the 3,000 schemas of a listing of 1,500
// tools, more than the shared cache of 1,024 holds, are compiled once for
// tool-schema-invalid and schema-construct together (each compiled them
// all, 6,000 compilations), and both still find what the listing holds.
// Not parallel: it counts compilations on toolschema's process-wide counter.
func TestALargeListingIsCompiledOnce(t *testing.T) {
	const n = 1500
	data := largeListing(n)
	before := toolschema.Compilations()
	res := checkBytes(t, data, All())
	if c := toolschema.Compilations() - before; c > 2*n {
		t.Errorf("%d compilations for the %d schemas of a listing", c, 2*n)
	}
	got := map[string][]string{}
	for s := range res.AllSessions() {
		for _, f := range s.Findings {
			got[f.Rule] = append(got[f.Rule], f.Subject)
		}
	}
	want := map[string][]string{}
	for i := range n {
		if i%89 == 0 {
			want["tool-schema-invalid"] = append(want["tool-schema-invalid"], fmt.Sprintf("tool tool_%d outputSchema", i))
		}
		if i%97 == 0 {
			want["schema-construct"] = append(want["schema-construct"], fmt.Sprintf("tool tool_%d oneOf", i))
		}
	}
	for _, subjects := range want {
		slices.Sort(subjects) // as findings are listed
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("findings\n%v\nwant\n%v", got, want)
	}
}

// withoutRules is the catalogue with rules turned off, as --disable does.
func withoutRules(ids ...string) []*Rule {
	var out []*Rule
	for _, r := range All() {
		if !slices.Contains(ids, r.ID) {
			out = append(out, r)
		}
	}
	return out
}

func checkBytes(tb testing.TB, data []byte, rules []*Rule) *result.Result {
	src := readers.Source{Name: "schema-bench.jsonl", Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
	gate, _ := result.ParseGate(DefaultGate, All())
	res, err := engine.Run([]readers.Source{src}, engine.Config{Rules: rules, Gate: gate})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// BenchmarkSchemaRules measures what input-schema and output-schema cost:
// the whole check of a generated 100,000-call capture with every rule,
// against the same check with --disable input-schema --disable
// output-schema, alternating in one run. It reports each in wall time and
// in CPU time per check, and their ratios (the budget: under 1.5);
// CPU time is the steadier measure on a machine other processes share.
func BenchmarkSchemaRules(b *testing.B) {
	data := schemaCapture(100_000, 10_000)
	all, without := All(), withoutRules("input-schema", "output-schema")
	checkBytes(b, data, all) // compile the schemas before timing
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var wallAll, wallWithout, cpuAll, cpuWithout time.Duration
	n := 0
	for b.Loop() {
		w0, c0 := time.Now(), cpuTime()
		checkBytes(b, data, all)
		w1, c1 := time.Now(), cpuTime()
		checkBytes(b, data, without)
		w2, c2 := time.Now(), cpuTime()
		wallAll, wallWithout = wallAll+w1.Sub(w0), wallWithout+w2.Sub(w1)
		cpuAll, cpuWithout = cpuAll+c1-c0, cpuWithout+c2-c1
		n++
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) }
	b.ReportMetric(per(wallAll), "every-rule-ns/op")
	b.ReportMetric(per(wallWithout), "without-ns/op")
	b.ReportMetric(float64(wallAll)/float64(wallWithout), "wall-ratio")
	b.ReportMetric(per(cpuAll), "every-rule-cpu-ns/op")
	b.ReportMetric(per(cpuWithout), "without-cpu-ns/op")
	b.ReportMetric(float64(cpuAll)/float64(cpuWithout), "cpu-ratio")
}

// TestSchemaCaptureCompilesOnce: 20,000 calls over four sessions compile
// each of the ten schemas at most once, and the rules judge what the
// generator put in (one wrong call in 500, every other result conforming).
// Not parallel: it counts compilations on toolschema's process-wide counter.
func TestSchemaCaptureCompilesOnce(t *testing.T) {
	data := schemaCapture(20_000, 5_000)
	before := toolschema.Compilations()
	res := checkBytes(t, data, All())
	if n := toolschema.Compilations() - before; n > int64(2*len(schemaTools)) {
		t.Errorf("%d compilations for %d schemas", n, 2*len(schemaTools))
	}
	counts := map[string]int{}
	for s := range res.AllSessions() {
		for _, f := range s.Findings {
			counts[f.Rule]++
		}
	}
	// create_issue uses anyOf and $ref: schema-construct, once per session.
	// One failing call repeats arguments another session's call succeeded
	// with: flaky-call across the sessions (issue 24).
	want := map[string]int{"input-schema": 40, "tool-error": 20, "schema-construct": 2 * 4, "flaky-call": 1}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("findings %v, want %v", counts, want)
	}
}
