package facts

import (
	"github.com/mcpcheck/mcpcheck/baseline"
	"github.com/mcpcheck/mcpcheck/session"
)

// maxToolListings bounds the listings a session keeps: a server that
// keeps changing its tools shows its first listing, the changes in
// between, and its latest.
const maxToolListings = 16

// ToolListings keeps the complete tool listings of a session in the form
// a baseline compares (canonical, sorted, tagged with the revision they
// were listed under): the first, then each that differs from the one
// before it.
var ToolListings = define("tool-listings", []Fact{Catalogue}, func(s *session.Session, deps Source) *ToolListingsTracker {
	return &ToolListingsTracker{s: s, cat: Catalogue.Of(deps)}
})

// ToolListing is one complete listing.
type ToolListing struct {
	Definitions baseline.Definitions
	Line        int   // where its last page arrived
	Seq         int64 // that frame's seq
}

// ToolListingsTracker is one session's listings.
type ToolListingsTracker struct {
	List []ToolListing

	s   *session.Session
	cat *CatalogueTracker
	gen int
}

func (t *ToolListingsTracker) Frame(f *session.Frame) {
	tools := &t.cat.Tools
	if tools.Generation == t.gen {
		return
	}
	t.gen = tools.Generation
	l := ToolListing{Definitions: listings.definitions(tools.Current, f.Revision(t.s)), Line: tools.Line, Seq: f.Seq}
	if n := len(t.List); n > 0 && t.List[n-1].Definitions.Equal(&l.Definitions) {
		return // listed again unchanged
	}
	if len(t.List) == maxToolListings {
		t.List[len(t.List)-1] = l
		return
	}
	t.List = append(t.List, l)
}
