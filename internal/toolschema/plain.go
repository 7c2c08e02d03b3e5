package toolschema

import "github.com/mcpcheck/mcpcheck/internal/jsonscan"

// Most listed schemas are plain: objects of typed properties, described,
// some required. Such a schema compiles under every dialect and uses no
// construct, so its verdict is known from its bytes; a listing's rules
// need no compilation for it. plain is deliberately narrow: whatever it
// does not know (another keyword, a value of another shape, a duplicate
// name) sends the schema to the compiler, so it can save time and never
// change a verdict.

// maxPlainDepth bounds the nesting plain follows; deeper is compiled.
const maxPlainDepth = 32

// plainTypes are the type names every dialect knows.
var plainTypes = map[string]bool{`"object"`: true, `"string"`: true, `"integer"`: true,
	`"number"`: true, `"boolean"`: true, `"array"`: true, `"null"`: true}

// plain reports whether raw is a plain schema: it compiles, with no
// construct and no $schema, under every dialect.
func plain(raw []byte) bool {
	if len(raw) > MaxSize {
		return false
	}
	ok := true
	dup, err := jsonscan.EachMemberStrict(raw, true, func(name, val []byte) {
		ok = ok && plainMember(string(name), val, 0)
	})
	return ok && dup == nil && err == nil
}

// plainNode is plain for a nested schema, which must be an object.
func plainNode(raw []byte, depth int) bool {
	if depth > maxPlainDepth {
		return false
	}
	ok := true
	err := jsonscan.EachMember(raw, func(name, val []byte) {
		ok = ok && plainMember(string(name), val, depth)
	})
	return ok && err == nil
}

func plainMember(name string, val []byte, depth int) bool {
	switch name {
	case "type":
		return plainTypes[string(val)]
	case "description", "title":
		return jsonscan.FirstByte(val) == '"'
	case "additionalProperties":
		return string(val) == "true" || string(val) == "false"
	case "items":
		return jsonscan.FirstByte(val) == '{' && plainNode(val, depth+1)
	case "properties":
		return plainProperties(val, depth+1)
	case "required":
		return plainRequired(val)
	}
	return false
}

// plainProperties: an object of plain schemas, each with a type (an
// untyped property is a construct).
func plainProperties(val []byte, depth int) bool {
	if jsonscan.FirstByte(val) != '{' {
		return false
	}
	ok := true
	err := jsonscan.EachMember(val, func(_, sub []byte) {
		ok = ok && jsonscan.FirstByte(sub) == '{' && hasType(sub) && plainNode(sub, depth)
	})
	return ok && err == nil
}

func hasType(raw []byte) bool {
	found := false
	_ = jsonscan.EachMember(raw, func(name, _ []byte) { found = found || string(name) == "type" })
	return found
}

// plainRequired: a non-empty array (draft-04 wants one) of distinct names
// of printable ASCII without escapes, so that distinct bytes are distinct
// names.
func plainRequired(val []byte) bool {
	if jsonscan.FirstByte(val) != '[' {
		return false
	}
	names := jsonscan.Elements(val)
	if len(names) == 0 {
		return false
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if len(n) < 2 || n[0] != '"' || n[len(n)-1] != '"' || seen[string(n)] {
			return false
		}
		for _, c := range n[1 : len(n)-1] {
			if c < 0x20 || c > 0x7e || c == '\\' {
				return false
			}
		}
		seen[string(n)] = true
	}
	return true
}
