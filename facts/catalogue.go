package facts

import (
	"strings"

	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

// Catalogue follows what a server offers: its tools, prompts and resources
// as their list requests showed them, pages accumulated until the last one
// (no nextCursor), refreshed by later listings and made stale by a
// list_changed notification.
var Catalogue = define("catalogue", nil, func(*session.Session, Source) *CatalogueTracker {
	return &CatalogueTracker{}
})

// CatalogueTracker is one session's catalogue.
type CatalogueTracker struct {
	Tools     Listing[*mcp.ToolSet]
	Prompts   Listing[map[string]bool] // prompt names
	Resources Listing[map[string]bool] // resource URIs
	Templates Listing[map[string]bool] // resource templates' uriTemplate
}

// Listing is what the list requests of one kind showed.
type Listing[T any] struct {
	// Current is the latest complete listing; its zero value when none
	// was recorded.
	Current T
	// Complete reports that a complete listing was recorded.
	Complete bool
	// Line is where the last page of Current arrived.
	Line int
	// Stale reports a list_changed notification (or a listing the capture
	// cut or redacted) since Current: what the server offers now is unknown.
	Stale bool
	// Generation counts complete listings, so a rule can tell a refresh.
	Generation int
	// Pending counts list requests sent and not answered yet: a listing in
	// flight, whose answer the recorder may write after the calls it made
	// possible.
	Pending int

	building T                      // pages of the listing being assembled
	started  bool                   // the first page of building arrived
	open     map[*session.Call]bool // open list requests: whether each asked for a later page
}

// page adds one answered page; first reports a request without a cursor.
func (l *Listing[T]) page(first, last bool, line int, begin func() T, add func(T)) {
	if first {
		l.building, l.started = begin(), true
	}
	if !l.started {
		return // a continuation whose first page the capture does not show
	}
	add(l.building)
	if last {
		var zero T
		l.Current, l.building, l.started = l.building, zero, false
		l.Complete, l.Stale, l.Line = true, false, line
		l.Generation++
	}
}

// unknown forgets the listing being assembled: a page could not be read.
func (l *Listing[T]) unknown() {
	var zero T
	l.building, l.started, l.Stale = zero, false, true
}

func (l *Listing[T]) request(c *session.Call, cursor bool) {
	if l.open == nil {
		l.open = map[*session.Call]bool{}
	}
	if _, seen := l.open[c]; !seen {
		l.Pending++
	}
	l.open[c] = cursor
}

// settled reports whether c was one of this kind's open list requests and
// whether it asked for a later page, and closes it.
func (l *Listing[T]) settled(c *session.Call) (first, ok bool) {
	cursor, ok := l.open[c]
	if !ok {
		return false, false
	}
	delete(l.open, c)
	l.Pending--
	return !cursor, true
}

func (t *CatalogueTracker) Frame(f *session.Frame) {
	m := &f.Msg
	switch {
	case m.Kind == session.Request && f.Call != nil:
		switch m.Method {
		case "tools/list":
			t.Tools.request(f.Call, f.View().HasCursor())
		case "prompts/list":
			t.Prompts.request(f.Call, f.View().HasCursor())
		case "resources/list":
			t.Resources.request(f.Call, f.View().HasCursor())
		case "resources/templates/list":
			t.Templates.request(f.Call, f.View().HasCursor())
		}
	case m.Kind == session.Notification:
		switch m.Method {
		case "notifications/tools/list_changed":
			t.Tools.Stale = true
		case "notifications/prompts/list_changed":
			t.Prompts.Stale = true
		case "notifications/resources/list_changed":
			t.Resources.Stale, t.Templates.Stale = true, true
		}
	case f.Call != nil && f.Pairing != session.Duplicate:
		t.answer(f)
	}
}

// answer takes a page of a listing from the answer to a list request.
func (t *CatalogueTracker) answer(f *session.Frame) {
	c := f.Call
	if !strings.HasSuffix(c.Method, "/list") {
		return
	}
	ok := f.Msg.Kind == session.Response && f.Msg.Error == nil && f.View().Result() != nil && !f.Truncated && !f.Redacted
	v := f.View()
	switch c.Method {
	case "tools/list":
		first, open := t.Tools.settled(c)
		if !open {
			return
		}
		r, isList := v.ListTools()
		if !ok || !isList || r.Malformed {
			t.Tools.unknown()
			return
		}
		gen := t.Tools.Generation
		t.Tools.page(first, !r.HasCursor, f.Line, func() *mcp.ToolSet { return &mcp.ToolSet{} },
			func(set *mcp.ToolSet) { set.AddPage(&r.Tools, f.Lasting()) })
		if t.Tools.Generation != gen { // complete: the same as other sessions' listing, often
			t.Tools.Current = listings.share(t.Tools.Current)
		}
	case "prompts/list":
		first, open := t.Prompts.settled(c)
		if !open {
			return
		}
		r, isList := v.ListPrompts()
		if !ok || !isList || r.Malformed {
			t.Prompts.unknown()
			return
		}
		t.Prompts.page(first, !r.HasCursor, f.Line, newNameSet, func(set map[string]bool) {
			for _, p := range r.Prompts {
				set[p.Name] = true
			}
		})
	case "resources/list":
		first, open := t.Resources.settled(c)
		if !open {
			return
		}
		r, isList := v.ListResources()
		if !ok || !isList || r.Malformed {
			t.Resources.unknown()
			return
		}
		t.Resources.page(first, !r.HasCursor, f.Line, newNameSet, func(set map[string]bool) {
			for _, res := range r.Resources {
				set[res.URI] = true
			}
		})
	case "resources/templates/list":
		first, open := t.Templates.settled(c)
		if !open {
			return
		}
		page := mcp.Listed.Of(v)
		if !ok || page == nil {
			t.Templates.unknown()
			return
		}
		_, more := v.NextCursor()
		t.Templates.page(first, !more, f.Line, newNameSet, func(set map[string]bool) {
			for _, it := range page.Items {
				if it.Key != "" {
					set[it.Key] = true
				}
			}
		})
	}
}

func newNameSet() map[string]bool { return map[string]bool{} }
