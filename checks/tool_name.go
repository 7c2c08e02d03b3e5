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
with the same name in one listing make every call of that name ambiguous, in every
revision: within one page, or across the pages of a traversal in which each page
answered the cursor the page before issued (a client that retries a page or sends a
cursor of its own gets tools again that were not listed twice).

Each problem is reported once per session: a name's characters at the tools/list
answer that completed the listing, a duplicate at the page that repeats it.`,
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
	pages    pageChain
}

func (r *toolName) Frame(p *Pass, f *session.Frame) {
	r.pages.frame(p, f, r)
	set := r.watch.next(p)
	if set == nil {
		return
	}
	_, rev := dialectFor(p, f)
	if rev < toolNameRevision {
		for i := range set.Len() {
			if _, named := set.Name(i); !named && r.reported.first(definitionKey(set.Raw(i), "nameless")) {
				p.Report(f, "tools/list nameless tool", "a tool in the listing has no name")
			}
		}
		return
	}
	judged := make(map[string]bool, set.Len())
	for i := range set.Len() {
		t := set.Tool(i)
		if !t.HasName {
			if r.reported.first(definitionKey(t.Raw, "nameless")) {
				p.Report(f, "tools/list nameless tool", "a tool in the listing has no name")
			}
			continue
		}
		if judged[t.Name] {
			continue
		}
		judged[t.Name] = true
		if problem := nameProblem(t.Name); problem != "" && r.reported.first("name\x00"+t.Name) {
			p.Report(f, "tool "+t.Name, "tool name %s %s", quoteName(t.Name), problem)
		}
	}
}

// maxOpenListRequests bounds the tools/list requests a pageChain waits on.
const maxOpenListRequests = 64

// pageChain follows one tools/list traversal page by page, for duplicate
// names. A name twice in one page is a duplicate; across pages only when
// each page answered the cursor the page before issued: a client that
// retries a page, or sends a cursor of its own, makes the server send
// tools again without listing them twice.
type pageChain struct {
	open   map[*session.Call]string // tools/list requests in flight: their cursor ("" for the first page)
	names  map[string]int           // the traversal's names, counted
	expect string                   // the cursor the next page must answer
	clean  bool                     // every page so far answered the cursor issued before it
}

func (c *pageChain) frame(p *Pass, f *session.Frame, r *toolName) {
	switch {
	case f.Msg.Kind == session.Request && f.Msg.Method == "tools/list" && f.Call != nil:
		if c.open == nil {
			c.open = map[*session.Call]string{}
		}
		if len(c.open) >= maxOpenListRequests {
			clear(c.open) // requests never answered; their pages are judged as strays
		}
		cursor, _ := f.View().Cursor()
		c.open[f.Call] = cursor
	case f.Msg.Kind == session.Response && f.Call != nil && f.Call.Method == "tools/list" && f.Pairing == session.Answered:
		cursor, asked := c.open[f.Call]
		delete(c.open, f.Call)
		page, ok := f.View().ListTools()
		if !asked || !ok || page.Malformed || f.Msg.Error != nil || f.Truncated || f.Redacted {
			c.clean = false
			return
		}
		if cursor == "" {
			c.names, c.clean = map[string]int{}, true
		} else if c.names == nil || cursor != c.expect {
			c.names, c.clean = map[string]int{}, false
		}
		c.expect = page.NextCursor
		tools := &page.Tools
		inPage := make(map[string]int, tools.Len())
		for i := range tools.Len() {
			if name, ok := tools.Name(i); ok {
				inPage[name]++
			}
		}
		for i := range tools.Len() {
			name, _ := tools.Name(i)
			n := inPage[name]
			if n == 0 {
				continue // counted already
			}
			inPage[name] = 0
			before := c.names[name]
			c.names[name] = before + n
			if c.clean {
				n += before
			}
			if n > 1 && r.reported.first("dup\x00"+name) {
				p.Report(f, "tool "+name, "tool name %s is listed %d times in one tools/list", quoteName(name), n)
			}
		}
		if !page.HasCursor {
			c.names = nil // the traversal is over: no later page is counted with it
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
