package checks

import "strings"

// Doc is a rule's documentation: one source for explain, the README table
// and SARIF help.
type Doc struct {
	Summary string // one line: what the rule finds
	Why     string // why it matters (paragraphs)
	Fix     string // how to fix it
	Bad     string // a capture excerpt the rule reports, one line
	Good    string // its corrected form, one line
	Since   string // the mcpcheck version that introduced the rule
}

// Text renders the documentation as plain text, for explain and SARIF.
func (d Doc) Text() string {
	var b strings.Builder
	for _, p := range paragraphs(d.Why) {
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	b.WriteString("Fix: " + strings.Join(paragraphs(d.Fix), " "))
	b.WriteString("\n\nBad:  " + d.Bad + "\nGood: " + d.Good)
	return b.String()
}

// Markdown renders the documentation for SARIF help: prose escaped and
// unwrapped, the examples verbatim in a fenced code block.
func (d Doc) Markdown() string {
	var blocks []string
	for _, p := range paragraphs(d.Why) {
		blocks = append(blocks, markdownEscape(p))
	}
	blocks = append(blocks, "**Fix:** "+markdownEscape(strings.Join(paragraphs(d.Fix), " ")))
	blocks = append(blocks, codeBlock("Bad:  "+d.Bad, "Good: "+d.Good))
	return strings.Join(blocks, "\n\n")
}

// FirstParagraph is the opening paragraph of Why on one line.
func (d Doc) FirstParagraph() string {
	if ps := paragraphs(d.Why); len(ps) > 0 {
		return ps[0]
	}
	return d.Summary
}

// paragraphs splits text at blank lines and unwraps each paragraph.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// codeBlock fences lines with more backticks than any run inside them.
func codeBlock(lines ...string) string {
	fence := "```"
	for _, l := range lines {
		for strings.Contains(l, fence) {
			fence += "`"
		}
	}
	return fence + "\n" + strings.Join(lines, "\n") + "\n" + fence
}

// markdownEscaper backslash-escapes the ASCII punctuation Markdown (and
// GitHub's dialect) gives meaning inside a paragraph.
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`<`, `\<`, `>`, `\>`, `#`, `\#`, `&`, `\&`, `|`, `\|`, `~`, `\~`,
)

// markdownEscape escapes prose for Markdown, including a paragraph start
// that would read as a list item, heading underline or numbered item.
func markdownEscape(s string) string {
	s = markdownEscaper.Replace(s)
	if s != "" && strings.ContainsRune("-+=", rune(s[0])) {
		return `\` + s
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && (s[i] == '.' || s[i] == ')') {
		return s[:i] + `\` + s[i:]
	}
	return s
}
