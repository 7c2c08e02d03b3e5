package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/session"
)

// The job summary draws each failing session: its findings by rule and a
// Mermaid sequence diagram of the exchanges that failed the gate, which
// GitHub renders in Markdown. Both are bounded so the page stays readable.
const (
	ghDiagramSessions = 10 // failing sessions drawn
	ghDiagramArrows   = 24 // arrows and notes per diagram
	ghMermaidTextMax  = 80 // runes of capture text in one arrow or note
)

// failingSessionsSection adds the failing sessions to the summary, as many
// as the budget allows.
func (g *GitHub) failingSessionsSection(s *ghSummary, r *result.Result) {
	blocks, more := g.failingSessions(r)
	if len(blocks) == 0 {
		return
	}
	s.line("")
	s.line("### Failing sessions")
	for i := range blocks {
		blocks[i] = "\n" + blocks[i]
	}
	if n := s.rows(blocks) + more; n > 0 {
		s.line("")
		s.line("%s not drawn.", countNoun(n, "more failing session", "more failing sessions"))
	}
}

// failingSessions is one block of Markdown per failing session.
func (g *GitHub) failingSessions(r *result.Result) (blocks []string, more int) {
	for s := range r.AllSessions() {
		if s.Passed() {
			continue
		}
		if len(blocks) == ghDiagramSessions {
			more++
			continue
		}
		blocks = append(blocks, g.failingSession(s))
	}
	return blocks, more
}

func (g *GitHub) failingSession(s *result.SessionResult) string {
	var b strings.Builder
	title := "session " + s.ID
	if s.Label != "" {
		title += " (" + s.Label + ")"
	}
	fmt.Fprintf(&b, "#### %s\n\n", ghMarkdown(title))
	if s.File != "" {
		fmt.Fprintf(&b, "Capture: %s\n\n", ghMarkdown(g.summaryPath(s.File)))
	}
	if rows := ghRuleRows(s); len(rows) > 0 {
		b.WriteString("| rule | signal | findings | failing the gate |\n|---|---|--:|--:|\n")
		for _, row := range rows {
			b.WriteString(row)
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	if d := ghSequenceDiagram(s); d != "" {
		b.WriteString(d)
	} else {
		b.WriteString("No request–answer exchange among the findings that failed the gate.\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// summaryPath names a capture as the findings table does.
func (g *GitHub) summaryPath(file string) string {
	if file == session.StdinName {
		return file
	}
	return g.path(file)
}

// ghRuleRows counts the session's findings by rule, rules that fail the
// gate first; suppressed findings are counted in the totals table only.
func ghRuleRows(s *result.SessionResult) []string {
	type count struct {
		rule   string
		signal checks.Signal
		all    int
		gated  int
	}
	var order []*count
	byRule := map[string]*count{}
	for _, f := range s.Findings {
		if f.Suppressed != nil {
			continue
		}
		c := byRule[f.Rule]
		if c == nil {
			c = &count{rule: f.Rule, signal: f.Signal}
			byRule[f.Rule] = c
			order = append(order, c)
		}
		c.all += 1 + f.Also
		if f.Gated {
			c.gated += 1 + f.Also
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return (order[i].gated > 0) && order[j].gated == 0 })
	rows := make([]string, len(order))
	for i, c := range order {
		gated := fmt.Sprint(c.gated)
		if c.gated > 0 {
			gated = "**" + gated + "**"
		}
		rows[i] = fmt.Sprintf("| %s | %s | %d | %s |", ghMarkdown(c.rule), ghMarkdown(c.signal.String()), c.all, gated)
	}
	return rows
}

// ghRequest is one failing request to draw: its answers (or notes on the
// lack of one), each with the rules that found it failing.
type ghRequest struct {
	ex      *result.Exchange // the first finding's view of it
	answers []*ghAnswer
}

type ghAnswer struct {
	ex    *result.Exchange
	rules []string
}

// ghFailingRequests groups the exchanges of the findings that fail the
// gate by request, in the order of the requests; an answer found failing by
// several rules is drawn once.
func ghFailingRequests(s *result.SessionResult) []*ghRequest {
	var out []*ghRequest
	byLine := map[int]*ghRequest{}
	for _, f := range s.Findings {
		if !f.Gated || f.Exchange == nil {
			continue
		}
		ex := f.Exchange
		req := byLine[ex.Line]
		if req == nil {
			req = &ghRequest{ex: ex}
			byLine[ex.Line] = req
			out = append(out, req)
		}
		var ans *ghAnswer
		for _, a := range req.answers {
			if a.ex.Answer == ex.Answer && a.ex.Note == ex.Note && a.ex.Answered.Equal(ex.Answered) {
				ans = a
			}
		}
		if ans == nil {
			ans = &ghAnswer{ex: ex}
			req.answers = append(req.answers, ans)
		}
		if !slices.Contains(ans.rules, f.Rule) {
			ans.rules = append(ans.rules, f.Rule)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ex.Line < out[j].ex.Line })
	return out
}

// ghSequenceDiagram draws the failing exchanges as a Mermaid sequence
// diagram in a fenced block: each request once, then each answer found
// failing (a crossed arrow when it was an error) with its latency, or a
// note saying why none came. At most ghDiagramArrows arrows and notes are
// drawn; a last note counts the requests left out. Every capture string is
// escaped for Mermaid, so nothing can end a statement or close the fence.
func ghSequenceDiagram(s *result.SessionResult) string {
	requests := ghFailingRequests(s)
	if len(requests) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("```mermaid\nsequenceDiagram\n")
	b.WriteString("    participant C as client\n")
	server := "server"
	if s.Label != "" {
		server += " " + s.Label
	}
	fmt.Fprintf(&b, "    participant S as %s\n", ghMermaid(server, ghMermaidTextMax))
	arrows, drawn := 0, 0
	for _, req := range requests {
		if arrows+1+len(req.answers) > ghDiagramArrows && drawn > 0 {
			break
		}
		drawn++
		ex := req.ex
		from, to := "C", "S"
		if ex.From == session.ServerToClient {
			from, to = "S", "C"
		}
		what := ex.Method
		if ex.Name != "" {
			what += " " + ex.Name
		}
		if ex.ID != "" {
			what += " (id " + ex.ID + ")"
		}
		fmt.Fprintf(&b, "    %s->>%s: %s, line %d\n", from, to, ghMermaid(what, ghMermaidTextMax), ex.Line)
		arrows++
		for _, a := range req.answers {
			if arrows == ghDiagramArrows {
				break // one request with more answers than arrows: the rest are in the tables
			}
			arrows++
			rules := ghMermaid(strings.Join(a.rules, ", "), ghMermaidTextMax)
			if a.ex.Answer == "" {
				why := a.ex.Note
				if why == "" {
					why = "no answer"
				}
				fmt.Fprintf(&b, "    Note over %s: %s: %s\n", to, ghMermaid(why, ghMermaidTextMax), rules)
				continue
			}
			answer := a.ex.Answer
			if a.ex.Note != "" {
				answer += ", " + a.ex.Note
			}
			if d, ok := a.ex.Latency(); ok {
				answer += " after " + ghDuration(d)
			}
			arrow := "-->>"
			if ghFailedAnswer(a.ex.Answer) {
				arrow = "--x"
			}
			fmt.Fprintf(&b, "    %s%s%s: %s: %s\n", to, arrow, from, ghMermaid(answer, ghMermaidTextMax), rules)
		}
	}
	if n := len(requests) - drawn; n > 0 {
		fmt.Fprintf(&b, "    Note over C,S: %s not drawn\n", countNoun(n, "more failing request", "more failing requests"))
	}
	b.WriteString("```\n")
	return b.String()
}

func ghFailedAnswer(answer string) bool {
	return answer != "result" && answer != "answer" && answer != "task" && answer != "input_required"
}

// ghDuration rounds a latency for people: microseconds under a millisecond,
// else milliseconds.
func ghDuration(d time.Duration) string {
	if d < 0 {
		if d == math.MinInt64 {
			d++ // its negation would overflow (times decades apart saturate Sub)
		}
		return "-" + ghDuration(-d)
	}
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// ghMermaidSafe are the characters left as they are in Mermaid text
// besides letters, digits and the space: none of them starts a comment,
// an entity, a statement, a directive, HTML or Markdown.
const ghMermaidSafe = ".,/()=+-_'!?@"

// ghMermaid makes capture text safe in a Mermaid message, note or
// participant alias: at most max runes, white space folded into spaces,
// and every character that Mermaid, its HTML labels or the Markdown fence
// could read (;, #, %, :, <, >, &, quotes, backticks, brackets, braces,
// control and format characters) written as a Mermaid entity code #N;.
func ghMermaid(s string, max int) string {
	var b strings.Builder
	for _, r := range ghTruncate(strings.Join(strings.Fields(s), " "), max) {
		if r == ' ' || unicode.IsLetter(r) || unicode.IsDigit(r) || r < unicode.MaxASCII && strings.ContainsRune(ghMermaidSafe, r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	return b.String()
}
