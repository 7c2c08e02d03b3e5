package report

import (
	"maps"
	"slices"
	"strconv"

	"github.com/owenrumney/go-sarif/v2/sarif"
)

// A SARIF log's results are written by hand, as encoding/json with
// SetEscapeHTML(false) and SetIndent(prefix, "  ") writes go-sarif's types
// (the members each type declares, in its order, omitempty as its tags
// say), byte for byte: through reflection and a second pass to indent, a
// result cost about 200,000 instructions, most of a busy run's SARIF
// report. A result that uses a member this writer does not know is left
// to encoding/json (sarifResultJSON says which), as are the log's run and
// rules, written once. TestSARIFResultWriterIsEncodingJSON holds the two
// together.

// sarifResultJSON appends res, indented under prefix, when every member it
// sets is one this writer knows; false leaves it to encoding/json.
func sarifResultJSON(b []byte, res *sarif.Result, prefix string) ([]byte, bool) {
	if !plainResult(res) {
		return b, false
	}
	w := &jsonIndenter{b: b, prefix: prefix}
	w.object(func(o *jsonObject) {
		sarifPropertiesJSON(o, res.Properties)
		o.str("ruleId", res.RuleID)
		o.uint("ruleIndex", res.RuleIndex)
		o.str("level", res.Level)
		sarifMessageJSON(o.key("message"), &res.Message)
		sarifLocationsJSON(o, "locations", res.Locations)
		if len(res.PartialFingerprints) > 0 {
			sarifMapJSON(o.key("partialFingerprints"), res.PartialFingerprints)
		}
		sarifLocationsJSON(o, "relatedLocations", res.RelatedLocations)
		if len(res.Suppressions) > 0 {
			w := o.key("suppressions")
			w.array(len(res.Suppressions), func(i int) { sarifSuppressionJSON(w, res.Suppressions[i]) })
		}
		o.str("baselineState", res.BaselineState)
	})
	return w.b, true
}

// plainResult reports whether res sets only members sarifResultJSON
// writes, with property values it writes (strings and ints) and
// fingerprints that are strings.
func plainResult(res *sarif.Result) bool {
	if res.Guid != nil || res.CorrelationGuid != nil || res.Rule != nil || len(res.Taxa) > 0 || res.Kind != nil ||
		res.AnalysisTarget != nil || res.WebRequest != nil || res.WebResponse != nil || len(res.Fingerprints) > 0 ||
		len(res.CodeFlows) > 0 || len(res.Graphs) > 0 || len(res.GraphTraversals) > 0 || len(res.Stacks) > 0 ||
		res.Rank != nil || len(res.Attachments) > 0 || len(res.WorkItemUris) > 0 || res.HostedViewerUri != nil ||
		res.Provenance != nil || len(res.Fixes) > 0 || res.OccurrenceCount != nil {
		return false
	}
	if !plainProperties(res.Properties) || !plainMessage(&res.Message) {
		return false
	}
	for _, v := range res.PartialFingerprints {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	for _, l := range slices.Concat(res.Locations, res.RelatedLocations) {
		if !plainLocation(l) {
			return false
		}
	}
	for _, s := range res.Suppressions {
		if s == nil || !plainProperties(s.Properties) || s.Location != nil && !plainLocation(s.Location) {
			return false
		}
	}
	return true
}

func plainProperties(p sarif.Properties) bool {
	for _, v := range p {
		switch v.(type) {
		case string, int, int64:
		default:
			return false
		}
	}
	return true
}

func plainMessage(m *sarif.Message) bool {
	return m == nil || m.Markdown == nil && m.ID == nil && len(m.Arguments) == 0 && len(m.Properties) == 0
}

func plainLocation(l *sarif.Location) bool {
	if l == nil || l.Id != nil || len(l.LogicalLocations) > 0 || len(l.Annotations) > 0 || len(l.Relationships) > 0 ||
		len(l.Properties) > 0 || !plainMessage(l.Message) {
		return false
	}
	p := l.PhysicalLocation
	if p == nil {
		return true
	}
	if p.ContextRegion != nil || p.Address != nil || len(p.Properties) > 0 {
		return false
	}
	if a := p.ArtifactLocation; a != nil && (a.Index != nil || a.Description != nil || len(a.Properties) > 0) {
		return false
	}
	r := p.Region
	return r == nil || r.EndColumn == nil && r.CharOffset == nil && r.CharLength == nil && r.ByteOffset == nil &&
		r.ByteLength == nil && r.Snippet == nil && r.Message == nil && r.SourceLanguage == nil && len(r.Properties) == 0
}

// sarifPropertiesJSON writes a property bag, when it has members.
func sarifPropertiesJSON(o *jsonObject, p sarif.Properties) {
	if len(p) > 0 {
		sarifMapJSON(o.key("properties"), p)
	}
}

// sarifMapJSON writes a map of strings and ints (a property bag, the
// fingerprints), keys sorted as encoding/json sorts a map's.
func sarifMapJSON(w *jsonIndenter, m map[string]any) {
	keys := slices.Sorted(maps.Keys(m))
	w.object(func(o *jsonObject) {
		for _, k := range keys {
			w := o.key(k)
			switch v := m[k].(type) {
			case string:
				w.b = appendJSONString(w.b, v)
			case int:
				w.b = strconv.AppendInt(w.b, int64(v), 10)
			case int64:
				w.b = strconv.AppendInt(w.b, v, 10)
			}
		}
	})
}

func sarifMessageJSON(w *jsonIndenter, m *sarif.Message) {
	w.object(func(o *jsonObject) { o.str("text", m.Text) })
}

func sarifLocationsJSON(o *jsonObject, name string, ls []*sarif.Location) {
	if len(ls) == 0 {
		return
	}
	w := o.key(name)
	w.array(len(ls), func(i int) { sarifLocationJSON(w, ls[i]) })
}

func sarifLocationJSON(w *jsonIndenter, l *sarif.Location) {
	if l == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.object(func(o *jsonObject) {
		if p := l.PhysicalLocation; p != nil {
			o.key("physicalLocation").object(func(o *jsonObject) {
				if a := p.ArtifactLocation; a != nil {
					o.key("artifactLocation").object(func(o *jsonObject) {
						o.str("uri", a.URI)
						o.str("uriBaseId", a.URIBaseId)
					})
				}
				if r := p.Region; r != nil {
					o.key("region").object(func(o *jsonObject) {
						o.int("startLine", r.StartLine)
						o.int("startColumn", r.StartColumn)
						o.int("endLine", r.EndLine)
					})
				}
			})
		}
		if l.Message != nil {
			sarifMessageJSON(o.key("message"), l.Message)
		}
	})
}

// suppression writes one suppression; its members have no omitempty, so an
// unset one is null.
func sarifSuppressionJSON(w *jsonIndenter, s *sarif.Suppression) {
	w.object(func(o *jsonObject) {
		w := o.key("kind")
		w.b = appendJSONString(w.b, s.Kind)
		nullable(o, "status", s.Status)
		if w := o.key("location"); s.Location != nil {
			sarifLocationJSON(w, s.Location)
		} else {
			w.b = append(w.b, "null"...)
		}
		nullable(o, "guid", s.Guid)
		nullable(o, "justification", s.Justification)
		sarifPropertiesJSON(o, s.Properties)
	})
}

func nullable(o *jsonObject, name string, v *string) {
	w := o.key(name)
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = appendJSONString(w.b, *v)
}
