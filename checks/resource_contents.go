package checks

import (
	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
	"github.com/mcpcheck/mcpcheck/mcp"
	"github.com/mcpcheck/mcpcheck/session"
)

var ruleResourceContents = &Rule{
	ID:       "resource-contents",
	Signal:   SignalWarn,
	Severity: SeverityError,
	Sees:     Kinds(session.Response),
	Doc: Doc{
		Summary: "A resources/read result without a contents array, or a contents item without uri or without text or blob",
		Why: `A resources/read result carries a contents array; every item names its uri and
carries the resource either as text (a string) or as blob (base64), in every
revision's schema. A client cannot show or pass on an item without either, nor
tell which resource an item without a uri belongs to. A multi round-trip
(input_required) answer of 2026-07-28 is not a read result and is not judged.`,
		Fix:   `Answer with {"contents":[{"uri":…,"mimeType":…,"text":…}]} (or "blob" for binary data).`,
		Bad:   `{"jsonrpc":"2.0","id":5,"result":{"contents":[{"uri":"file:///srv/a.txt","mimeType":"text/plain"}]}}`,
		Good:  `{"jsonrpc":"2.0","id":5,"result":{"contents":[{"uri":"file:///srv/a.txt","mimeType":"text/plain","text":"hello"}]}}`,
		Since: "0.2.0",
	},
	CountsJudged: true, // resources/read results
	New: EachFrame(func(p *Pass, f *session.Frame) {
		m := &f.Msg
		c := f.Call
		if m.Kind != session.Response || c == nil || c.Method != "resources/read" || m.Error != nil || !judgeable(f) || f.Redacted ||
			(f.Pairing != session.Answered && f.Pairing != session.Late) || !completeResult(f.View().ResultFields()) {
			return
		}
		p.Judged()
		subject := "resources/read " + c.Name
		contents := mcp.Member(f.View().Result(), "contents")
		items := jsonscan.Elements(contents)
		if items == nil {
			p.Report(f, subject, "%s answered %s without a contents array", f.Direction.Sender(), callName(c)).
				Relate(c.File, c.Line, "request sent here")
			return
		}
		for i, item := range items {
			uri, hasURI := jsonscan.String(mcp.Member(item, "uri"))
			_, hasText := jsonscan.String(mcp.Member(item, "text"))
			_, hasBlob := jsonscan.String(mcp.Member(item, "blob"))
			switch {
			case !hasURI:
				p.Report(f, subject, "%s answered %s with contents item %d, which has no uri", f.Direction.Sender(), callName(c), i+1).
					Relate(c.File, c.Line, "request sent here")
			case !hasText && !hasBlob:
				p.Report(f, subject, "%s answered %s with contents item %d (%s), which has neither text nor blob", f.Direction.Sender(), callName(c), i+1, quoteName(uri)).
					Relate(c.File, c.Line, "request sent here")
			default:
				continue
			}
			return // one finding per result
		}
	}),
}
