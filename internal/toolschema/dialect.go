package toolschema

import (
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Dialect is a JSON Schema draft.
type Dialect uint8

const (
	DialectUnknown Dialect = iota
	Draft4
	Draft6
	Draft7
	Draft2019
	Draft2020
)

var dialectNames = [...]string{"unknown", "draft-04", "draft-06", "draft-07", "2019-09", "2020-12"}

func (d Dialect) String() string {
	if int(d) < len(dialectNames) {
		return dialectNames[d]
	}
	return "unknown"
}

func (d Dialect) draft() *jsonschema.Draft {
	switch d {
	case Draft4:
		return jsonschema.Draft4
	case Draft6:
		return jsonschema.Draft6
	case Draft7:
		return jsonschema.Draft7
	case Draft2019:
		return jsonschema.Draft2019
	}
	return jsonschema.Draft2020
}

// defsKeyword is where the dialect keeps reusable schemas.
func (d Dialect) defsKeyword() string {
	if d >= Draft2019 {
		return "$defs"
	}
	return "definitions"
}

// idKeyword is the keyword that names a schema resource.
func (d Dialect) idKeyword() string {
	if d == Draft4 {
		return "id"
	}
	return "$id"
}

// modernRevision is the first revision whose embedded schemas default to
// 2020-12 (MCP 2025-11-25, SEP-1613).
const modernRevision = "2025-11-25"

// DefaultDialect is the dialect of a tool schema without $schema under
// protocol revision rev: 2020-12 from 2025-11-25 on, draft-07 before. An
// unknown revision ("") compiles as 2020-12, the current specification's
// default; callers that judge the dialect itself stay silent then.
func DefaultDialect(rev string) Dialect {
	if rev != "" && rev < modernRevision {
		return Draft7
	}
	return Draft2020
}

// DialectOf maps a $schema URL to the draft it names; ok is false for a URL
// that names no draft this package knows (a custom metaschema).
func DialectOf(url string) (d Dialect, ok bool) {
	u := strings.TrimSuffix(strings.TrimSpace(url), "#")
	if rest, cut := strings.CutPrefix(u, "http://"); cut {
		u = rest
	} else {
		u = strings.TrimPrefix(u, "https://")
	}
	switch u {
	case "json-schema.org/draft-04/schema":
		return Draft4, true
	case "json-schema.org/draft-06/schema":
		return Draft6, true
	case "json-schema.org/draft-07/schema":
		return Draft7, true
	case "json-schema.org/draft/2019-09/schema":
		return Draft2019, true
	case "json-schema.org/draft/2020-12/schema", "json-schema.org/schema":
		return Draft2020, true
	}
	return DialectUnknown, false
}
