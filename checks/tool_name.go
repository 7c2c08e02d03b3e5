package checks

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/facts"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleToolName = &Rule{
	ID:       "tool-name",
	Signal:   SignalWarn,
	Severity: SeverityWarning,
	Doc: Doc{
		Summary: "A tool name outside the spec's rules, or two tools with the same name in one listing",
		Why: `From 2025-11-25 on the specification says a tool name should be 1 to 128
characters of A-Z, a-z, 0-9, underscore, hyphen and dot: clients map tool names to
model function names, which allow little else, and a name with spaces, slashes or
other characters is renamed, truncated or dropped. Earlier revisions set no
character rules, so only missing names and duplicates are judged there. Two tools
with the same name in one listing (its pages together) make every call of that name
ambiguous, in every revision.

Each problem is reported once per session, at the tools/list answer that completed
the listing.`,
		Fix: `Rename the tool: use letters, digits, "_", "-" and "." (for example
"files.read_text" instead of "files/read text"), and give every tool of a server a
distinct name.`,
		Bad:   `{"tools":[{"name":"read file","inputSchema":{"type":"object"}}]}`,
		Good:  `{"tools":[{"name":"read_file","inputSchema":{"type":"object"}}]}`,
		Since: "0.2.0",
	},
	Facts: []facts.Fact{facts.Catalogue},
	New:   func() Checker { return &toolName{} },
}

// toolNameRevision is the first revision with rules for the characters of
// a tool name.
const toolNameRevision = "2025-11-25"

const maxToolName = 128

type toolName struct {
	Base
	watch    listingWatch
	reported onceSet
}

func (r *toolName) Frame(p *Pass, f *session.Frame) {
	set := r.watch.next(p)
	if set == nil {
		return
	}
	_, rev := dialectFor(p, f)
	charset := rev >= toolNameRevision
	count := make(map[string]int, len(set.Tools))
	for i := range set.Tools {
		t := &set.Tools[i]
		if !t.HasName {
			if r.reported.first(definitionKey(t.Raw, "nameless")) {
				p.Report(f, "tools/list nameless tool", "a tool in the listing has no name")
			}
			continue
		}
		count[t.Name]++
		if count[t.Name] > 1 || !charset {
			continue
		}
		if problem := nameProblem(t.Name); problem != "" && r.reported.first("name\x00"+t.Name) {
			p.Report(f, "tool "+t.Name, "tool name %s %s", quoteName(t.Name), problem)
		}
	}
	for i := range set.Tools {
		name := set.Tools[i].Name
		if n := count[name]; n > 1 && set.Tools[i].HasName {
			count[name] = 0 // once per name
			if r.reported.first("dup\x00" + name) {
				p.Report(f, "tool "+name, "tool name %s is listed %d times in one tools/list", quoteName(name), n)
			}
		}
	}
}

// nameProblem says how name breaks the rules of 2025-11-25; "" when it
// does not.
func nameProblem(name string) string {
	n := utf8.RuneCountInString(name)
	switch {
	case n == 0:
		return "is empty; a name is 1 to 128 characters"
	case n > maxToolName:
		return fmt.Sprintf("is %d characters long; at most %d are allowed", n, maxToolName)
	}
	var bad []string
	for _, c := range name {
		if !toolNameChar(c) {
			q := fmt.Sprintf("%q", string(c))
			if c == ' ' {
				q = "space"
			}
			if !containsString(bad, q) && len(bad) < 5 {
				bad = append(bad, q)
			}
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return "has characters other than A-Z a-z 0-9 _ - . (" + strings.Join(bad, ", ") + ")"
}

func toolNameChar(c rune) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
