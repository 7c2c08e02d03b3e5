package report

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/result"
	"github.com/mcpcheck/mcpcheck/usage"
)

func init() { Register("html", func(o Options) Reporter { return &HTML{opts: o} }) }

// The page's only style and script, inline: the Content-Security-Policy
// allows exactly these two (by hash) and no load of any kind, so the file
// works from disk or a CI artifact viewer with no network, and nothing a
// capture wrote can run even if it escaped its escaping.
var (
	//go:embed html/report.css
	htmlCSS string
	//go:embed html/report.js
	htmlJS string

	htmlCSP = "default-src 'none'; style-src '" + cspHash(htmlCSS) + "'; script-src '" + cspHash(htmlJS) +
		"'; img-src 'none'; base-uri 'none'; form-action 'none'"
)

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// HTMLContentSecurityPolicy is the policy every HTML report carries.
func HTMLContentSecurityPolicy() string { return htmlCSP }

// Bounds of the page, whatever the run's size: the findings table lists
// the gated findings first, up to MaxHTMLFindings; sessions past
// MaxHTMLSessions are counted, not drawn. Each drawn session's calls are
// bounded by result.Calls.
const (
	MaxHTMLFindings = 5000
	MaxHTMLSessions = 200
	maxHTMLFiles    = 50 // capture names in the header
)

// HTML renders one self-contained page for people (spec §7.6): the
// verdict and counts, a filterable findings table, and per session a
// timeline of its calls, their excerpts, a per-tool table and the drift.
// It streams: what it holds is one session at a time.
type HTML struct{ opts Options }

// esc is capture text as HTML: controls and bidirectional overrides shown
// as \uXXXX (printable), then every character HTML gives meaning to
// escaped; it serves text and quoted attribute values alike.
func esc(s string) string { return html.EscapeString(printable(s)) }

// DrawsCalls says the page draws each session's calls: the run must
// record them (engine.Config.RecordCalls).
func (*HTML) DrawsCalls() bool { return true }

// Report writes the page.
func (h *HTML) Report(w io.Writer, r *result.Result) error {
	bw := bufio.NewWriterSize(w, writeBufferSize)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	t := htmlTotals(r)
	verdict, class := "check failed", "failed"
	if r.Passed {
		verdict, class = "check passed", "passed"
	}
	p("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p("<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", htmlCSP)
	p("<meta name=\"referrer\" content=\"no-referrer\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	p("<title>mcpcheck: %s</title>\n<style>%s</style>\n</head>\n<body>\n", verdict, htmlCSS)

	p("<header>\n<h1>mcpcheck report</h1>\n<p><span class=\"verdict %s\" id=\"verdict\">%s</span></p>\n", class, verdict)
	p("<p class=\"meta\">%d %s, %d %s; gate <code>%s</code>; %d gated %s, %d other %s%s", len(r.Files), plural(len(r.Files), "capture", "captures"),
		t.sessions, plural(t.sessions, "session", "sessions"), esc(r.Gate.String()),
		t.gated, plural(t.gated, "finding", "findings"), t.other, plural(t.other, "finding", "findings"), h.version())
	p("</p>\n<ul class=\"counts\" id=\"counts\">\n")
	for _, sig := range checks.Signals() {
		if n := t.signals[sig]; n > 0 {
			gated := ""
			if r.Gate.SelectsSignal(sig) {
				gated = " class=\"gated\""
			}
			p("<li%s data-signal=\"%s\"><b>%d</b> %s</li>\n", gated, sig, n, sig)
		}
	}
	if t.suppressed > 0 {
		p("<li data-signal=\"suppressed\"><b>%d</b> suppressed</li>\n", t.suppressed)
	}
	if t.failedAssertions > 0 {
		p("<li class=\"gated\" data-signal=\"assertion\"><b>%d</b> failed %s</li>\n", t.failedAssertions, plural(t.failedAssertions, "assertion", "assertions"))
	}
	p("</ul>\n<p class=\"meta\">Captures: ")
	for i, f := range r.Files {
		if i == maxHTMLFiles {
			p(" and %d more", len(r.Files)-i)
			break
		}
		if i > 0 {
			p(", ")
		}
		p("<code>%s</code>", esc(placeName(f)))
	}
	p("</p>\n</header>\n<main>\n")

	h.coverage(bw, r)
	if err := h.findings(bw, r, t); err != nil {
		return err
	}
	i := 0
	for s := range r.AllSessions() {
		if i == MaxHTMLSessions {
			break
		}
		h.session(bw, s, i)
		i++
	}
	if t.sessions > MaxHTMLSessions {
		p("<p class=\"note\">%d more sessions are counted above but not drawn (the page draws the first %d).</p>\n", t.sessions-MaxHTMLSessions, MaxHTMLSessions)
	}
	p("</main>\n<script>%s</script>\n</body>\n</html>\n", htmlJS)
	if err := r.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

func (h *HTML) version() string {
	if h.opts.Version == "" {
		return ""
	}
	return "; mcpcheck " + esc(h.opts.Version)
}

// maxHTMLNeverCalled bounds the names a coverage row lists; the rest are
// counted.
const maxHTMLNeverCalled = 50

// coverage is the run's coverage per server label (spec §5.2): what each
// advertised, called and called successfully, and what it never called.
// A result without it (made by hand) draws nothing.
func (h *HTML) coverage(w *bufio.Writer, r *result.Result) {
	if r.Usage == nil || len(r.Usage.Servers) == 0 {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("<section id=\"coverage\">\n<h2>Coverage</h2>\n<table class=\"coverage\">\n<thead><tr><th>server</th><th>kind</th><th class=\"num\">advertised</th><th class=\"num\">called</th><th class=\"num\">succeeded</th><th class=\"num\">share</th><th>never called</th></tr></thead>\n<tbody>\n")
	for i := range r.Usage.Servers {
		sv := &r.Usage.Servers[i]
		for _, k := range []struct {
			kind string
			c    *usage.Coverage
		}{{"tools", &sv.Tools}, {"prompts", &sv.Prompts}, {"resources", &sv.Resources}, {"resource templates", &sv.Templates}} {
			if !k.c.Listed {
				continue
			}
			share := "–"
			if k.c.Advertised > 0 {
				share = fmt.Sprintf("%.0f%%", 100*float64(k.c.Succeeded)/float64(k.c.Advertised))
			}
			names := k.c.NeverCalled
			more := 0
			if len(names) > maxHTMLNeverCalled {
				names, more = names[:maxHTMLNeverCalled], len(names)-maxHTMLNeverCalled
			}
			var list strings.Builder
			for j, n := range names {
				if j > 0 {
					list.WriteString(", ")
				}
				list.WriteString("<code>" + esc(n) + "</code>")
			}
			if more > 0 {
				fmt.Fprintf(&list, " and %d more", more)
			}
			p("<tr><td>%s</td><td>%s</td><td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">%s</td><td>%s</td></tr>\n",
				esc(sv.Label), k.kind, k.c.Advertised, k.c.Called, k.c.Succeeded, share, list.String())
		}
	}
	p("</tbody>\n</table>\n")
	if n := r.Usage.LabelCapNote(); n != "" {
		p("<p class=\"note\">%s.</p>\n", esc(n))
	}
	p("</section>\n")
}

type htmlCounts struct {
	sessions, gated, other, suppressed, failedAssertions int
	signals                                              [checks.NumSignals]int
}

func htmlTotals(r *result.Result) htmlCounts {
	var t htmlCounts
	for s := range r.AllSessions() {
		t.sessions++
		for _, sig := range checks.Signals() {
			t.signals[sig] += s.Count(sig)
		}
		t.suppressed += s.CountSuppressed()
		for _, f := range s.Findings {
			if f.Gated {
				t.gated += 1 + f.Also
			} else if f.Suppressed == nil {
				t.other += 1 + f.Also
			}
		}
		for _, a := range s.Assertions {
			if !a.Passed {
				t.failedAssertions++
			}
		}
	}
	return t
}

// findings writes the table, gated findings first, each row linking to
// its session's section when the page draws it.
func (h *HTML) findings(w *bufio.Writer, r *result.Result, t htmlCounts) error {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	total := r.NumFindings()
	p("<h2 id=\"findings-title\">Findings</h2>\n")
	if total == 0 {
		p("<p id=\"no-findings\">No findings.</p>\n")
		return nil
	}
	p("<div class=\"filters\">\n")
	for _, k := range []string{"severity", "signal", "rule", "server"} {
		p("<label>%s <select id=\"filter-%s\"><option value=\"*\">all</option></select></label>\n", k, k)
	}
	p("<input id=\"filter-search\" type=\"search\" placeholder=\"search messages, rules, files\" aria-label=\"search findings\">\n")
	p("<span id=\"findings-shown\" class=\"meta\"></span>\n</div>\n")
	p("<table id=\"findings\">\n<thead><tr><th>level</th><th>severity</th><th>signal</th><th>rule</th><th>server</th><th>session</th><th>location</th><th>message</th></tr></thead>\n<tbody>\n")
	n := 0
	for _, gated := range []bool{true, false} {
		si := 0
		for s := range r.AllSessions() {
			for _, f := range s.Findings {
				if f.Gated != gated {
					continue
				}
				if n == MaxHTMLFindings {
					break
				}
				n++
				h.findingRow(w, f, s, si)
			}
			si++
		}
	}
	p("</tbody>\n</table>\n")
	if total > n {
		p("<p class=\"note\" id=\"findings-left-out\">%d more findings are not listed (the page lists %d, gated first); the text, JSON and JUnit reports list them all.</p>\n", total-n, n)
	}
	return r.Err()
}

func (h *HTML) findingRow(w *bufio.Writer, f *result.Finding, s *result.SessionResult, si int) {
	level, class := f.Level(), ""
	if f.Gated {
		class = " class=\"gated\""
	}
	if f.Suppressed != nil {
		level = "suppressed"
	}
	msg := esc(f.Message)
	if f.Also > 0 {
		msg += fmt.Sprintf(" <span class=\"note\">(and %d more like it)</span>", f.Also)
	}
	if f.Suppressed != nil {
		msg += " <span class=\"note\">suppressed: " + esc(f.Suppressed.Reason) + "</span>"
	}
	session := esc(s.ID)
	if si < MaxHTMLSessions {
		session = fmt.Sprintf("<a href=\"#s%d\">%s</a>", si+1, session)
	}
	fmt.Fprintf(w, "<tr%s data-severity=\"%s\" data-signal=\"%s\" data-rule=\"%s\" data-server=\"%s\"><td>%s</td><td class=\"sev-%s\">%s</td><td>%s</td><td><code>%s</code></td><td>%s</td><td>%s</td><td><code>%s</code></td><td class=\"msg\">%s</td></tr>\n",
		class, f.Severity, f.Signal, esc(f.Rule), esc(s.Label), level, f.Severity, f.Severity, f.Signal, esc(f.Rule), esc(s.Label),
		session, esc(location(placeName(f.File), f.Line)), msg)
}

// session writes one session's section: its header, assertions, calls
// (timeline, excerpts, per-tool table) and drift.
func (h *HTML) session(w *bufio.Writer, s *result.SessionResult, i int) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	id := fmt.Sprintf("s%d", i+1)
	verdict := "passed"
	if !s.Passed() {
		verdict = "failed"
	}
	p("<section class=\"session\" id=\"%s\">\n<h2>Session <code>%s</code> <span class=\"verdict %s\">%s</span></h2>\n", id, esc(s.ID), verdict, verdict)
	p("<p class=\"meta\">server <b>%s</b> · <code>%s</code> · revision %s · %s · %d frames",
		orNone(s.Label), esc(location(placeName(s.File), s.FirstLine)), orNone(s.Revision), orNone(s.Transport), s.Frames)
	if s.MissingFrames > 0 {
		p(" · <b>%d missing frames</b>", s.MissingFrames)
	}
	p("</p>\n<p class=\"meta\"><code>%s</code></p>\n", esc(SummaryLine(s)))
	if len(s.Assertions) > 0 {
		p("<h3>Assertions</h3>\n<ul>\n")
		for _, a := range s.Assertions {
			mark := "held"
			if !a.Passed {
				mark = "<b class=\"sev-error\">failed</b>"
			}
			p("<li>%s <code>--%s %s</code>: %s</li>\n", mark, esc(a.Name), esc(a.Arg), esc(a.Message))
		}
		p("</ul>\n")
	}
	if c := s.Calls; c != nil {
		h.calls(w, c, id)
	} else {
		p("<p class=\"note\">No requests in this session.</p>\n")
	}
	if lines := DriftBlock(s); len(lines) > 0 {
		p("<h3>Drift</h3>\n<pre class=\"drift\">")
		for _, l := range lines {
			p("%s\n", html.EscapeString(l)) // DriftBlock's lines are printable already
		}
		p("</pre>\n")
	}
	p("</section>\n")
}

func orNone(s string) string {
	if s == "" {
		return "<span class=\"note\">unknown</span>"
	}
	return esc(s)
}

// Timeline geometry, in SVG user units.
const (
	tlLabel  = 300 // the label column
	tlWidth  = 1000
	tlRow    = 16
	tlAxis   = 22
	tlLabelN = 42 // characters of a label shown
)

func (h *HTML) calls(w *bufio.Writer, c *result.Calls, id string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("<h3>Calls</h3>\n<p class=\"meta calls-summary\">%d %s: %d failed, %d unanswered, %d cancelled, %d progress %s",
		c.Total, plural64(c.Total, "call", "calls"), c.Failed, c.Unanswered, c.Cancelled, c.Progress, plural64(c.Progress, "notification", "notifications"))
	if c.NotDrawn > 0 {
		p("; drawn: the %d failing, unanswered or cancelled and the slowest, %d more counted, not drawn", len(c.Drawn), c.NotDrawn)
	}
	p("</p>\n")
	if len(c.Drawn) > 0 {
		h.timeline(w, c, id)
		for j := range c.Drawn {
			h.excerpt(w, &c.Drawn[j], fmt.Sprintf("%s-c%d", id, j+1))
		}
	}
	if len(c.Tools) > 0 {
		p("<h3>Per tool</h3>\n<table class=\"tools\">\n<thead><tr><th>tool or method</th><th class=\"num\">calls</th><th class=\"num\">errors</th><th class=\"num\">p50</th><th class=\"num\">p95</th><th class=\"num\">max</th></tr></thead>\n<tbody>\n")
		for _, t := range c.Tools {
			p50, p95, mx := "–", "–", "–"
			if t.Timed > 0 {
				p50, p95, mx = htmlDuration(t.P50), htmlDuration(t.P95), htmlDuration(t.Max)
			}
			errs := fmt.Sprint(t.Errors)
			if t.Errors > 0 {
				errs = "<b class=\"sev-error\">" + errs + "</b>"
			}
			p("<tr><td><code>%s</code></td><td class=\"num\">%d</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td></tr>\n",
				esc(t.Name), t.Calls, errs, p50, p95, mx)
		}
		p("</tbody>\n</table>\n")
	}
}

// timeline draws the kept calls on the session's time axis: one row a
// call, its bar from request to answer; a call without timestamps is
// drawn in order, a call never answered to the end of the axis.
func (h *HTML) timeline(w *bufio.Writer, c *result.Calls, id string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	span := c.Last.Sub(c.First)
	timed := !c.First.IsZero() && span > 0
	n := len(c.Drawn)
	height := tlAxis + n*tlRow + 4
	p("<p class=\"legend\"><span><i></i>answered</span><span><i class=\"failed\"></i>failed</span><span><i class=\"cancelled\"></i>cancelled</span><span><i class=\"unanswered\"></i>never answered</span><span>▲ progress · ✕ cancelled · click a call for its request and answer</span></p>\n")
	p("<svg class=\"timeline\" id=\"%s-timeline\" viewBox=\"0 0 %d %d\" role=\"list\" aria-label=\"calls on a time axis\">\n", id, tlLabel+tlWidth+60, height)
	if timed {
		for k := 0; k <= 4; k++ {
			x := tlLabel + k*tlWidth/4
			p("<line class=\"tick\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"></line><text class=\"tick\" x=\"%d\" y=\"12\">+%s</text>\n",
				x, tlAxis-6, x, height, x+2, htmlDuration(span*time.Duration(k)/4))
		}
	} else {
		p("<text class=\"tick\" x=\"%d\" y=\"12\">no timestamps: calls in the order they were sent</text>\n", tlLabel)
	}
	for j := range c.Drawn {
		call := &c.Drawn[j]
		y := tlAxis + j*tlRow
		x, bw := tlLabel, 6
		if timed {
			x = tlLabel + int(float64(call.Start.Sub(c.First))/float64(span)*tlWidth)
			switch {
			case call.Duration >= 0:
				bw = max(int(float64(call.Duration)/float64(span)*tlWidth), 2)
			case !call.Answered:
				bw = max(tlLabel+tlWidth-x, 2)
			}
		} else {
			x = tlLabel + j*tlWidth/max(n, 1)
			bw = max(tlWidth/max(n, 1), 2)
		}
		x = min(max(x, tlLabel), tlLabel+tlWidth)
		class := "call"
		switch {
		case call.Failed:
			class += " failed"
		case call.Cancelled:
			class += " cancelled"
		case !call.Answered:
			class += " unanswered"
		}
		label := call.Method
		if call.Name != "" {
			label += " " + call.Name
		}
		p("<g class=\"%s\" data-call=\"%s-c%d\" tabindex=\"0\" role=\"listitem\"><title>%s</title>", class, id, j+1, esc(callTitle(call)))
		p("<rect class=\"row\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"></rect>", y, tlLabel+tlWidth+60, tlRow)
		labelClass := "label"
		if call.Failed {
			labelClass += " failed"
		}
		p("<text class=\"%s\" x=\"4\" y=\"%d\">%s</text>", labelClass, y+12, esc(clipRunes(label, tlLabelN)))
		p("<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"></rect>", x, y+3, bw, tlRow-6)
		mx := min(x+bw+3, tlLabel+tlWidth+4)
		if call.Progress > 0 {
			p("<text class=\"mark\" x=\"%d\" y=\"%d\">▲%d</text>", mx, y+12, call.Progress)
			mx += 28
		}
		if call.Cancelled {
			p("<text class=\"mark\" x=\"%d\" y=\"%d\">✕</text>", mx, y+12)
		}
		p("</g>\n")
	}
	p("</svg>\n")
}

func callTitle(c *result.Call) string {
	s := c.Method
	if c.Name != "" {
		s += " " + fmt.Sprintf("%q", c.Name)
	}
	s += " (id " + c.ID + "): " + c.Outcome
	if c.Duration >= 0 {
		s += " in " + htmlDuration(c.Duration)
	}
	return s
}

// excerpt is a call's request and answer, shown when the call is clicked.
func (h *HTML) excerpt(w *bufio.Writer, c *result.Call, id string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("<div class=\"excerpt\" id=\"%s\" hidden>\n<h4>%s</h4>\n", id, esc(callTitle(c)))
	p("<p class=\"meta\">sent by the %s at line %d", esc(c.From), c.Line)
	if !c.Start.IsZero() {
		p(", %s", c.Start.UTC().Format("2006-01-02T15:04:05.000Z"))
	}
	if c.AnswerLine > 0 {
		p("; answered at line %d", c.AnswerLine)
	}
	if c.Progress > 0 {
		p("; %d progress %s", c.Progress, plural(c.Progress, "notification", "notifications"))
	}
	p("</p>\n<pre class=\"request\">%s</pre>\n", esc(c.Request))
	if c.Answer != "" {
		p("<pre class=\"answer\">%s</pre>\n", esc(c.Answer))
	} else {
		p("<p class=\"note\">%s</p>\n", esc(c.Outcome))
	}
	if c.Clipped {
		p("<p class=\"note\">Excerpts are cut at %d bytes; secrets are masked.</p>\n", result.MaxExcerpt)
	}
	p("</div>\n")
}

// htmlDuration is a latency for people: µs, ms or s with three digits.
func htmlDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.3gms", float64(d)/float64(time.Millisecond))
	case d < time.Minute:
		return fmt.Sprintf("%.3gs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// clipRunes cuts s to n characters, marking the cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	var b strings.Builder
	k := 0
	for _, r := range s {
		if k == n-1 {
			break
		}
		b.WriteRune(r)
		k++
	}
	return b.String() + "…"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func plural64(n int64, one, many string) string { return plural(int(min(n, 2)), one, many) }
