package main

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/report"
	"github.com/mcpcheck/mcpcheck/result"
)

// ruleDocsPath is the rule reference SARIF's helpUri links to, one heading
// per rule id (GitHub makes each an anchor of the same name).
const ruleDocsPath = "docs/rules.md"

// ruleDocs renders docs/rules.md from the catalogue, so the page a code
// scanning alert links to always says what explain says.
func ruleDocs(rules []*checks.Rule) string {
	gate, _ := result.ParseGate(checks.DefaultGate, rules)
	var b strings.Builder
	b.WriteString("<!-- Generated from the rule catalogue by `go test ./cmd/mcpcheck -run TestRuleDocs -update`; do not edit. -->\n\n")
	b.WriteString("# mcpcheck rules\n\n")
	b.WriteString("Every rule runs on every check; `--fail-on` decides which findings fail the gate. ")
	b.WriteString("`mcpcheck explain RULE` prints the same text.\n\n")
	b.WriteString(checks.MarkdownTable(rules))
	for _, r := range rules {
		gated := "no"
		if gate.Selects(r) {
			gated = "yes"
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", r.ID, r.Doc.Summary)
		fmt.Fprintf(&b, "signal `%s` (fails the default gate: %s) · severity `%s` · revisions %s · since %s\n\n", r.Signal, gated, r.Severity, r.Revisions, r.Doc.Since)
		for _, o := range r.Options {
			fmt.Fprintf(&b, "- option `%s`: %s\n", o.OptionName(), o.OptionDoc())
		}
		if len(r.Options) > 0 {
			b.WriteString("\n")
		}
		b.WriteString(r.Doc.Markdown())
		b.WriteString("\n")
	}
	id, doc := report.TruncatedRuleDoc()
	fmt.Fprintf(&b, "\n## %s\n\n%s\n\nSARIF only; signal `incomplete`, never gated.\n\n%s\n", id, doc.Summary, doc.Markdown())
	return b.String()
}
