package checks_test

import (
	"io"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/readers"
	"github.com/mcpcheck/mcpcheck/session"

	. "github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/engine"
	"github.com/mcpcheck/mcpcheck/result"
)

// runCapture checks capture text with rules and returns every finding.
func runCapture(t *testing.T, capture string, cfg engine.Config) []*result.Finding {
	t.Helper()
	if cfg.Catalogue == nil {
		cfg.Catalogue = cfg.Rules
	}
	src := readers.Source{Name: "t.jsonl", Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(capture)), nil }}
	res, err := engine.Run([]readers.Source{src}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []*result.Finding
	for s := range res.AllSessions() {
		out = append(out, s.Findings...)
	}
	return out
}

func envelope(seq, dir, raw string) string {
	return `{"session_id":"s","server_label":"srv","seq":` + seq + `,"ts":"2026-09-01T10:00:00Z","direction":"` + dir + `","transport":"stdio","raw":` + raw + "}\n"
}

// A request is judged by its own revision: a rule for 2026-07-28 sees the
// requests that declare it, and those that declare none once the session
// accepted a 2026-07-28 request; a request before that stays unknown.
func TestRevisionsAreJudgedPerRequest(t *testing.T) {
	t.Parallel()
	seen := []string{}
	modern := &Rule{ID: "test-modern", Doc: testDoc("sees 2026-07-28 requests"), Signal: SignalWarn,
		Revisions: Revisions{Since: "2026-07-28"},
		New: EachFrame(func(p *Pass, f *session.Frame) {
			if f.Msg.Kind == session.Request {
				seen = append(seen, f.Msg.Method)
			}
		})}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	capture := envelope("1", "c2s", `{"jsonrpc":"2.0","id":0,"method":"ping"}`) + // no revision shown, none known yet
		envelope("2", "s2c", `{"jsonrpc":"2.0","id":0,"result":{}}`) +
		envelope("3", "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`) +
		envelope("4", "s2c", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`) +
		envelope("5", "c2s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`) + // the session's revision, learnt from tools/list
		envelope("6", "s2c", `{"jsonrpc":"2.0","id":2,"result":{}}`) +
		envelope("7", "c2s", `{"jsonrpc":"2.0","id":3,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"draft"}}}`) +
		envelope("8", "s2c", `{"jsonrpc":"2.0","id":3,"result":{"prompts":[]}}`)
	runCapture(t, capture, engine.Config{Rules: []*Rule{modern}})
	if strings.Join(seen, ",") != "tools/list,ping,prompts/list" {
		t.Errorf("the 2026-07-28 rule saw %v", seen)
	}
	for _, c := range []struct {
		r    Revisions
		rev  string
		want bool
	}{
		{AllRevisions, "", true}, {Revisions{Until: "2025-11-25"}, "", true}, {Revisions{Since: "2025-03-26"}, "", false},
		{Revisions{Since: "2025-03-26", Until: "2025-06-18"}, "2025-06-18", true}, {Revisions{Until: "2025-06-18"}, "2025-11-25", false},
	} {
		if got := c.r.Includes(c.rev); got != c.want {
			t.Errorf("%v.Includes(%q) = %v", c.r, c.rev, got)
		}
	}
}

var testLimit = &Option[int]{Name: "limit", Doc: "how many", Default: 3}

// Options are typed, set in code, read by the rules that declare them.
func TestOptions(t *testing.T) {
	t.Parallel()
	var got []int
	reader := &Rule{ID: "test-reads-option", Doc: testDoc("reads an option"), Signal: SignalWarn, Options: []Setting{testLimit},
		New: EachFrame(func(p *Pass, f *session.Frame) { got = append(got, testLimit.Get(p)) })}
	capture := envelope("1", "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	runCapture(t, capture, engine.Config{Rules: []*Rule{reader}})
	cfg := engine.Config{Rules: []*Rule{reader}}
	testLimit.Set(&cfg, 9)
	runCapture(t, capture, cfg)
	if len(got) != 2 || got[0] != 3 || got[1] != 9 {
		t.Errorf("option values %v, want the default 3 then 9", got)
	}

	sneaky := &Rule{ID: "test-undeclared", Doc: testDoc("reads what it did not declare"), Signal: SignalWarn,
		New: EachFrame(func(p *Pass, f *session.Frame) {
			testLimit.Get(p)
		})}
	factReader := &Rule{ID: "test-undeclared-fact", Doc: testDoc("reads a fact it did not declare"), Signal: SignalWarn,
		New: EachFrame(func(p *Pass, f *session.Frame) {
			_ = facts.Catalogue.Of(p)
		})}
	fs := runCapture(t, capture, engine.Config{Rules: []*Rule{sneaky, factReader, RuleInternalError}})
	if len(fs) != 2 || !strings.Contains(fs[0].Message+fs[1].Message, "reads option limit without declaring it") ||
		!strings.Contains(fs[0].Message+fs[1].Message, "reads fact catalogue without declaring it") {
		for _, f := range fs {
			t.Log(f.Rule, f.Message)
		}
		t.Error("reading an undeclared option or fact must fail the rule as internal-error")
	}
}

func TestValidateCatalogue(t *testing.T) {
	t.Parallel()
	if err := Validate(All()); err != nil {
		t.Fatal(err)
	}
	bad := &Rule{ID: "Bad_ID", Doc: Doc{Summary: "two\nlines", Since: "soon"}, Revisions: Revisions{Since: "2026-07-28", Until: "2025-01-01"},
		Options: []Setting{&Option[bool]{Name: "x"}}}
	err := Validate([]*Rule{bad})
	for _, want := range []string{"kebab-case", "one line", "Doc.Why is empty", "Doc.Fix is empty", "Doc.Bad is empty", "is not a version", "the range is empty", "no checker", `option "x" is not documented`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate misses %q: %v", want, err)
		}
	}
}
