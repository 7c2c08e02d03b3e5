package checks_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/racedetect"
)

// hostileCapture is a session whose server lists a tool with a schema of
// about size bytes, and calls it.
func hostileCapture(size int) []byte {
	var schema strings.Builder
	schema.WriteString(`{"type":"object","properties":{`)
	for i := 0; schema.Len() < size; i++ {
		if i > 0 {
			schema.WriteByte(',')
		}
		fmt.Fprintf(&schema, `"field_%d":{"type":"string","pattern":"^(a+)+$","description":"%s"}`, i, strings.Repeat("generated ", 20))
	}
	schema.WriteString(`},"required":["field_0"]}`)
	var b bytes.Buffer
	env := func(seq int, dir, raw string) {
		fmt.Fprintf(&b, `{"session_id":"hostile-1","server_label":"hostile","seq":%d,"ts":"2026-09-01T10:00:0%d.000Z","direction":%q,"transport":"stdio","raw":%s}`+"\n", seq, seq, dir, raw)
	}
	env(1, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci-agent","version":"1.0.0"}}}`)
	env(2, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1.0.0"}}}`)
	env(3, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	env(4, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	env(5, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"huge","inputSchema":`+schema.String()+`}]}}`)
	env(6, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"huge","arguments":{"field_1":"`+strings.Repeat("a", 50000)+`!"}}}`)
	env(7, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}`)
	return b.Bytes()
}

// A 10 MB tool schema is not decoded or compiled: the check's memory stays
// a small multiple of the capture (reading it holds the frame, the
// catalogue a copy of the tool), and the schema is noted as unexamined.
// The drift rules, which canonicalise every tool definition for the
// baseline, are measured apart from the schema rules. Not parallel: it
// measures the process's memory.
func TestHostileSchemaCostsBoundedMemory(t *testing.T) {
	racedetect.SkipUnderRace(t)
	data := hostileCapture(10 << 20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := checkBytes(t, data, withoutRules("tool-drift", "baseline"))
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8*uint64(len(data)) {
		t.Errorf("checking a %d-byte capture allocated %d bytes", len(data), grew)
	}
	var got []string
	for _, f := range res.Sessions[0].Findings {
		got = append(got, f.Rule+": "+f.Message)
	}
	if len(got) != 1 || !strings.Contains(got[0], `schema-construct: tool "huge": its inputSchema was not examined: it is`) {
		t.Errorf("findings %q", got)
	}
}
