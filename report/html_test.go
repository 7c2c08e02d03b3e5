package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
)

// withCalls adds to the sample's first session the calls a run records:
// answered, failed, cancelled with progress, never answered, and a tool
// table.
func withCalls(r *result.Result) *result.Result {
	t0 := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	r.Sessions[0].Calls = &result.Calls{
		Total: 40, Failed: 1, Unanswered: 2, Cancelled: 1, Progress: 3,
		First: t0, Last: t0.Add(2 * time.Second),
		Drawn: []result.Call{
			{Method: "tools/call", Name: "echo", ID: "2", From: "client", Line: 9, Start: t0, Duration: 12 * time.Millisecond,
				Outcome: "error -32603", Failed: true, Answered: true, AnswerLine: 10,
				Request: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`, Answer: `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"boom"}}`},
			{Method: "tools/call", Name: "slow", ID: "7", From: "client", Line: 20, Start: t0.Add(100 * time.Millisecond), Duration: -1,
				Outcome: "cancelled before an answer", Cancelled: true, Progress: 3, Request: `{"id":7}`},
			{Method: "ping", ID: "6", From: "server", Line: 19, Start: t0.Add(time.Second), Duration: -1, Outcome: "never answered", Request: `{"id":6,"method":"ping"}`},
			{Method: "tools/list", ID: "1", From: "client", Line: 5, Start: t0.Add(1500 * time.Millisecond), Duration: 500 * time.Millisecond,
				Outcome: "result", Answered: true, AnswerLine: 6, Request: `{"id":1}`, Answer: `{"id":1,"result":{"tools":[]}}`, Clipped: true},
		},
		NotDrawn: 36,
		Tools: []result.ToolStats{
			{Name: "tools/call echo", Calls: 30, Errors: 1, Timed: 30, P50: 3 * time.Millisecond, P95: 11 * time.Millisecond, Max: 12 * time.Millisecond},
			{Name: "ping", Calls: 10},
		},
	}
	return r
}

func TestHTMLGolden(t *testing.T) {
	t.Parallel()
	golden(t, "html-sample.golden", render(t, "html", testOptions(), withCalls(sampleResult(t))))
	golden(t, "html-empty.golden", render(t, "html", testOptions(), emptyResult(t)))
}

// ownTags are the only elements the page writes; anything else that looks
// like a tag came from a capture.
var ownTags = map[string]bool{
	"!DOCTYPE": true, "html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
	"header": true, "main": true, "h1": true, "h2": true, "h3": true, "h4": true, "p": true, "span": true,
	"ul": true, "li": true, "b": true, "code": true, "pre": true, "section": true, "div": true, "label": true,
	"select": true, "option": true, "input": true, "table": true, "thead": true, "tbody": true, "tr": true,
	"th": true, "td": true, "a": true, "i": true, "svg": true, "g": true, "title ": true, "rect": true,
	"text": true, "line": true, "script": true,
}

var tagRE = regexp.MustCompile(`<(/?)([!A-Za-z][A-Za-z0-9]*)`)

// checkOwnMarkup fails for an element the page does not write, a second
// script or style, an event-handler attribute, a link that is not to the
// page itself, and anything that would load a resource.
func checkOwnMarkup(t *testing.T, page string) {
	t.Helper()
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		if !ownTags[m[2]] {
			t.Errorf("element <%s%s> is not one the page writes", m[1], m[2])
		}
	}
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d script elements, want the page's one", n)
	}
	if n := strings.Count(page, "<style"); n != 1 {
		t.Errorf("%d style elements, want the page's one", n)
	}
	// Text has every < escaped: each < left starts one of the page's tags;
	// in those, attribute values have every quote escaped: what is left
	// between the quotes is a value, not an attribute.
	tags := strings.Join(regexp.MustCompile(`<[^>]*>`).FindAllString(page, -1), "\n")
	tags = regexp.MustCompile(`="[^"]*"`).ReplaceAllString(tags, `=""`)
	if m := regexp.MustCompile(`\son[a-z]+\s*=`).FindString(tags); m != "" {
		t.Errorf("an event-handler attribute: %q", m)
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !regexp.MustCompile(`^#s[0-9]+$`).MatchString(m[1]) {
			t.Errorf("a link to %q, not to a section of the page", m[1])
		}
	}
	for _, load := range []string{" src=", "<link", "<iframe", "<img", "<object", "<embed", "http://", "https://", "autofocus"} {
		if strings.Contains(tags, load) {
			t.Errorf("a tag of the page holds %q: it must load nothing", load)
		}
	}
	for _, load := range []string{"url(", "@import"} {
		if strings.Contains(htmlCSS, load) {
			t.Errorf("the style holds %q: it must load nothing", load)
		}
	}
}

// Done when: one self-contained file whose Content-Security-Policy forbids
// every load and allows exactly the page's own style and script (by
// hash), which it holds inline.
func TestHTMLIsSelfContained(t *testing.T) {
	t.Parallel()
	page := string(render(t, "html", testOptions(), withCalls(sampleResult(t))))
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if csp == nil {
		t.Fatal("no Content-Security-Policy meta element")
	}
	for _, want := range []string{"default-src 'none'", "style-src '" + cspHash(htmlCSS) + "'", "script-src '" + cspHash(htmlJS) + "'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(csp[1], want) {
			t.Errorf("the policy %q lacks %q", csp[1], want)
		}
	}
	if strings.Contains(csp[1], "unsafe") {
		t.Errorf("the policy allows unsafe sources: %q", csp[1])
	}
	if !strings.Contains(page, "<style>"+htmlCSS+"</style>") || !strings.Contains(page, "<script>"+htmlJS+"</script>") {
		t.Error("the style and script are not inline as hashed")
	}
	if strings.Index(page, "Content-Security-Policy") > strings.Index(page, "<style>") {
		t.Error("the policy comes after the style it governs")
	}
	checkOwnMarkup(t, page)
}

// htmlHostile are strings a capture may carry to break out of HTML, an
// attribute, a textarea, a script or a URL, or to reorder what is shown.
var htmlHostile = []string{
	`<script>window.__pwned=1</script>`,
	`</textarea><img src=x onerror="window.__pwned=2">`,
	`javascript:window.__pwned=3`,
	`" onmouseover="window.__pwned=4" x="`,
	`' autofocus onfocus='window.__pwned=5`,
	`</script><script>window.__pwned=6</script>`,
	"<!-- \u202eevil\u2066 -->",
	`]]><svg onload="window.__pwned=7">`,
}

// htmlHostileResult carries hostile text in every string of a capture the page
// shows: session id and label, file, revision, transport, messages,
// subjects, rule-facing text, suppression reasons, assertions, call
// names, ids, outcomes, excerpts and tool names.
func htmlHostileResult(t testing.TB) *result.Result {
	r := escapeResult(t)
	s := r.Sessions[0]
	h := strings.Join(htmlHostile, " ")
	s.ID, s.Label, s.Revision, s.Transport = "id "+h, "label "+h, "rev "+h, "tr "+h
	for _, f := range s.Findings {
		f.Message += " " + h
		f.Session = s.ID
	}
	s.Findings[2].Suppressed.Reason += h
	s.Assertions[0].Arg += h
	s.Assertions[0].Message += h
	t0 := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	s.Calls = &result.Calls{Total: 1, Failed: 1, First: t0, Last: t0.Add(time.Second),
		Drawn: []result.Call{{Method: "tools/call " + h, Name: h, ID: h, From: h, Line: 3, Start: t0, Duration: time.Second,
			Outcome: h, Failed: true, Answered: true, Request: h, Answer: h}},
		Tools: []result.ToolStats{{Name: h, Calls: 1, Errors: 1}}}
	return r
}

// Done when: every string from a capture is escaped — no element,
// attribute, link or script of a capture reaches the page, and its text
// is shown as written (escaped), bidirectional controls as \uXXXX.
func TestHTMLEscapesHostileText(t *testing.T) {
	t.Parallel()
	page := string(render(t, "html", testOptions(), htmlHostileResult(t)))
	checkOwnMarkup(t, page)
	for _, h := range htmlHostile {
		if strings.ContainsAny(h, `<>"'`) && strings.Contains(page, h) {
			t.Errorf("the page holds %q raw", h)
		}
	}
	for _, want := range []string{"&lt;script&gt;window.__pwned=1&lt;/script&gt;", "&lt;/textarea&gt;", "javascript:window.__pwned=3", `\u202e`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
}

// manyResult is a run past every bound of the page: sessions, findings,
// and each session's calls at their own bounds.
func manyResult(t testing.TB, sessions, findingsEach int) *result.Result {
	rules := testCatalogue()
	gate, err := result.ParseGate(checks.DefaultGate, rules)
	if err != nil {
		t.Fatal(err)
	}
	r := &result.Result{Gate: gate, Rules: rules, ExitCode: 1, Files: []string{"/work/project/big.jsonl"}}
	for i := 1; i < sessions; i++ { // a file a session: the header names only the first ones
		r.Files = append(r.Files, fmt.Sprintf("/work/project/more/capture-%04d.jsonl", i))
	}
	t0 := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; i < sessions; i++ {
		s := &result.SessionResult{ID: fmt.Sprintf("s-%d", i), Label: "srv", File: r.Files[0], FirstLine: 1, Frames: 2_000_000}
		for j := 0; j < findingsEach; j++ {
			s.Findings = append(s.Findings, finding(rules, gate, "fake-tool-failure", s.File, j+2, fmt.Sprintf("tools/call t #%d", j), fmt.Sprintf("tool %q (id %d) reported an error", "t", j)))
		}
		c := &result.Calls{Total: 1_000_000, Failed: 1000, First: t0, Last: t0.Add(time.Hour), NotDrawn: 1_000_000 - result.MaxNotableCalls - result.MaxSlowCalls}
		for k := 0; k < result.MaxNotableCalls+result.MaxSlowCalls; k++ {
			c.Drawn = append(c.Drawn, result.Call{Method: "tools/call", Name: "t", ID: fmt.Sprint(k), Line: 2 * k, Start: t0.Add(time.Duration(k) * time.Second),
				Duration: time.Second, Failed: k < result.MaxNotableCalls, Answered: true, Outcome: "result",
				Request: strings.Repeat("q", result.MaxExcerpt), Answer: strings.Repeat("a", result.MaxExcerpt)})
		}
		for k := 0; k <= result.MaxToolRows; k++ {
			c.Tools = append(c.Tools, result.ToolStats{Name: fmt.Sprintf("tools/call t%d", k), Calls: 5000, Timed: 5000, P50: time.Millisecond, P95: time.Second, Max: time.Second})
		}
		s.Calls = c
		s.Recount()
		r.Sessions = append(r.Sessions, s)
	}
	return r
}

// Done when: the page is bounded whatever the run: findings past
// MaxHTMLFindings and sessions past MaxHTMLSessions are counted, not
// drawn, so a run twice as large gives no larger a page. (Counted in
// bytes, rows and sections.)
func TestHTMLIsBounded(t *testing.T) {
	t.Parallel()
	small := render(t, "html", testOptions(), manyResult(t, MaxHTMLSessions, MaxHTMLFindings/MaxHTMLSessions+5))
	big := render(t, "html", testOptions(), manyResult(t, 2*MaxHTMLSessions, 2*MaxHTMLFindings/MaxHTMLSessions))
	for name, page := range map[string][]byte{"small": small, "big": big} {
		p := string(page)
		if n := strings.Count(p, "<tr data-severity") + strings.Count(p, "<tr class=\"gated\" data-severity"); n != MaxHTMLFindings {
			t.Errorf("%s: %d finding rows, want %d", name, n, MaxHTMLFindings)
		}
		if n := strings.Count(p, "<section class=\"session\""); n != MaxHTMLSessions {
			t.Errorf("%s: %d sessions drawn, want %d", name, n, MaxHTMLSessions)
		}
		if !strings.Contains(p, "more findings are not listed") {
			t.Errorf("%s: the page does not say findings were left out", name)
		}
	}
	if !strings.Contains(string(big), fmt.Sprintf("%d more sessions are counted above but not drawn", MaxHTMLSessions)) {
		t.Error("the big page does not say how many sessions it left out")
	}
	if !strings.Contains(string(big), fmt.Sprintf(" and %d more", 2*MaxHTMLSessions-maxHTMLFiles)) {
		t.Error("the big page does not say how many more captures were read")
	}
	// Same bound for both: the big run adds only the notes that count.
	if d := len(big) - len(small); d > 4096 || d < -4096 {
		t.Errorf("pages of %d and %d bytes: a run twice as large changed the page by %d bytes", len(small), len(big), d)
	}
	const limit = 200 << 20
	if len(big) > limit {
		t.Errorf("the page is %d MiB, over %d MiB", len(big)>>20, limit>>20)
	}
	t.Logf("a page at every bound: %d KiB", len(big)>>10)
}
