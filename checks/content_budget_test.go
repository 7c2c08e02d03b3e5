package checks_test

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/dfa"
	"github.com/mcpcheck/mcpcheck/internal/poisoning"
	"github.com/mcpcheck/mcpcheck/internal/secrets"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"
	"github.com/mcpcheck/mcpcheck/session/sessiontest"

	. "github.com/mcpcheck/mcpcheck/checks"
)

// The content rules' cost budgets (issues 21 and 26), counted on the
// generated busy CI capture (sessiontest.Calls, the capture mcpbench
// measures) rather than timed, so that they hold on a shared machine: a
// change that makes a rule look at more bytes, or look closely more often,
// fails here.

var (
	budgetOnce    sync.Once
	budgetCapture []byte
)

// budgetCalls is 20,000 tool calls of the generator's mix in one session.
func budgetCalls(t *testing.T) []byte {
	t.Helper()
	budgetOnce.Do(func() {
		budgetCapture, _ = io.ReadAll(sessiontest.Calls(20_000, 20_000))
	})
	if len(budgetCapture) == 0 {
		t.Fatal("no generated capture")
	}
	return budgetCapture
}

// TestSecretLeakBudget: secret-leak's prefilter looks at each byte of the
// capture at most once (0.75 today: the strings of a frame are found in
// one walk, not scanned again); its second stage looks at no more than
// 7.3 of each kilobyte's 125 steps of eight bytes (7.05 today: the first
// stage knows the byte pairs a pattern's start implies, where it knew
// single bytes and looked at 13.3, and it looks at a text's last bytes
// only when they hold such a pair, where it looked at them always and
// at 8.16 steps) and checks a pattern's start there at most 4.2 times a
// kilobyte (3.95 today, nearly all of them the colons of JSON members).
func TestSecretLeakBudget(t *testing.T) {
	data := budgetCalls(t)
	before := secrets.Counters.Snapshot()
	checkBytes(t, data, rulesByID(t, "secret-leak"))
	after := secrets.Counters.Snapshot()
	kb := float64(len(data)) / 1000
	perByte := float64(after.Bytes-before.Bytes) / float64(len(data))
	blocksPerKB := float64(after.Blocks-before.Blocks) / kb
	closerPerKB := float64(after.Closer-before.Closer) / kb
	t.Logf("%d bytes: %d prefilter calls, %d bytes scanned (%.2f a capture byte), %d steps looked at closely (%.2f a KB), %d starts checked (%.2f a KB)",
		len(data), after.Calls-before.Calls, after.Bytes-before.Bytes, perByte, after.Blocks-before.Blocks, blocksPerKB, after.Closer-before.Closer, closerPerKB)
	if perByte > 0.8 {
		t.Errorf("secret-leak scanned %.2f bytes a capture byte; the budget is 0.8", perByte)
	}
	if blocksPerKB > 7.3 {
		t.Errorf("secret-leak's second stage looked at %.2f steps a KB; the budget is 7.3", blocksPerKB)
	}
	if closerPerKB > 4.2 {
		t.Errorf("secret-leak checked a pattern's start %.2f times a KB; the budget is 4.2", closerPerKB)
	}
}

func rulesByID(t *testing.T, ids ...string) []*Rule {
	t.Helper()
	var out []*Rule
	for _, id := range ids {
		r := Lookup(All(), id)
		if r == nil {
			t.Fatalf("no rule %s", id)
		}
		out = append(out, r)
	}
	return out
}

// TestSecretLeakPrefilterRunsOnce: read by two goroutines, secret-leak's
// first look at each part of a frame is taken once, on the reader's side
// (the frame's prescan), and the rule reads the answer instead of scanning
// again: the prefilter scans as many bytes as in a sequential read, and
// the findings are the same.
func TestSecretLeakPrefilterRunsOnce(t *testing.T) {
	data := budgetCalls(t)[:4<<20]
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	src := bytesSource("calls.jsonl", data)
	rules := rulesByID(t, "secret-leak")
	scan := func(mode session.PipelineMode) (int64, []gotFinding) {
		before := secrets.Counters.Snapshot().Bytes
		got, err := runSourceWith(src, rules, nil, readers.Options{Limits: session.Limits{Pipeline: mode}})
		if err != nil {
			t.Fatal(err)
		}
		after := secrets.Counters.Snapshot().Bytes
		return after - before, got
	}
	seqBytes, seqFound := scan(session.PipelineNever)
	for _, mode := range []session.PipelineMode{session.PipelineAlways, session.PipelineTiny} {
		n, found := scan(mode)
		if n != seqBytes || seqBytes == 0 {
			t.Errorf("pipeline mode %d: the prefilter scanned %d bytes, %d in a sequential read", mode, n, seqBytes)
		}
		if !reflect.DeepEqual(found, seqFound) {
			t.Errorf("pipeline mode %d: findings %v, sequential %v", mode, found, seqFound)
		}
	}
}

// TestToolPoisoningBudget: tool-poisoning reads a listing's descriptions
// in one pass, and its instruction patterns as one pass of their automata
// (internal/dfa) over text holding a word they need: over none of a 4 MB
// description of plain documentation, a tenth at most of the busy CI
// capture's listings (5.6% today: the descriptions that say "user" or
// "https:"), and all of a 4 MB description dense with those words, where
// the automata make at most a state every 500 bytes, past their first 256
// (each costs an NFA
// step; the rest a table lookup a byte) and the regexps, which find a
// match's evidence, run over a window around each match the automata saw:
// at most 1% of the text. They used to run over all of it, about a
// megabyte a second.
func TestToolPoisoningBudget(t *testing.T) {
	word := "Returns the contents of a file as text, with line numbers added for each line of it. "
	plain := strings.Repeat(word, 4<<20/len(word))
	rules := rulesByID(t, "tool-poisoning")
	for _, c := range []struct {
		name     string
		data     []byte
		percent  int64 // of the bytes looked at, the most the automata may run over
		findings int
	}{
		{"a 4 MB description", []byte(listingOf(plain)), 0, 0},
		{"a 4 MB description dense with the patterns' words", []byte(listingOf(sessiontest.DenseDescription(4 << 20))), 100, 0},
		{"the busy CI capture", budgetCalls(t), 10, -1},
	} {
		in0, pat0, win0 := poisoning.Counters.Snapshot()
		_, made0 := dfa.Counters.Snapshot()
		res := checkBytes(t, c.data, rules)
		in1, pat1, win1 := poisoning.Counters.Snapshot()
		_, made1 := dfa.Counters.Snapshot()
		inspected, patterned, windowed, made := in1-in0, pat1-pat0, win1-win0, made1-made0
		t.Logf("%s: %d bytes looked at, %d by the automata, %d by the regexps; %d states made", c.name, inspected, patterned, windowed, made)
		if inspected == 0 {
			t.Errorf("%s: tool-poisoning looked at nothing", c.name)
		}
		if inspected > int64(len(c.data)) {
			t.Errorf("%s: tool-poisoning looked at %d bytes of a %d-byte capture", c.name, inspected, len(c.data))
		}
		if patterned*100 > inspected*c.percent {
			t.Errorf("%s: the automata ran over %d of %d bytes; the budget is %d%%", c.name, patterned, inspected, c.percent)
		}
		if windowed*100 > inspected {
			t.Errorf("%s: the regexps ran over %d of %d bytes; the budget is 1%%", c.name, windowed, inspected)
		}
		if made > 256+inspected/500 {
			t.Errorf("%s: the automata made %d states over %d bytes; the budget is 256 and one every 500 bytes", c.name, made, inspected)
		}
		if n := res.NumFindings(); c.findings >= 0 && n != c.findings {
			t.Errorf("%s: %d findings, want %d", c.name, n, c.findings)
		}
	}
}

// listingOf is a capture whose one tool has the description desc.
func listingOf(desc string) string {
	return `{"session_id":"s","seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"session_id":"s","seq":2,"direction":"s2c","raw":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"session_id":"s","seq":3,"direction":"c2s","raw":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"session_id":"s","seq":4,"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"session_id":"s","seq":5,"direction":"s2c","raw":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read","description":"` + desc + `","inputSchema":{"type":"object"}}]}}}
`
}
