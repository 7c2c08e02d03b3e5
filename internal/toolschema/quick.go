package toolschema

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// The quick check proves common values valid straight from their bytes:
// no decoding, no allocation for the usual arguments and results. It only
// ever answers "certainly valid" or "not sure"; a violation, and anything
// it does not handle (oneOf, not, if, patternProperties, multipleOf, …),
// is "not sure", and the validator of the library decides. So it can make
// validation faster, never different: every keyword it handles is checked
// at least as strictly as the library checks it.

// quickNode mirrors one compiled schema.
type quickNode struct {
	unsupported bool // a keyword the quick check does not handle
	always      bool // the true schema
	never       bool // the false schema

	ref          *quickNode
	types        uint8 // allowed types (typeBit); 0: any
	enum         []quickValue
	hasEnum      bool
	allOf, anyOf []*quickNode

	minLength, maxLength int // -1: none
	pattern              jsonschema.Regexp

	bounds [4]quickBound // minimum, exclusiveMinimum, maximum, exclusiveMaximum

	properties         map[string]*quickNode
	required           map[string]int // name → bit in a uint64
	additional         *quickNode     // nil: any additional property is fine
	noAdditional       bool
	minProps, maxProps int

	items              *quickNode
	minItems, maxItems int
	uniqueItems        bool
}

const (
	typeNull = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

var typeBits = map[string]uint8{"null": typeNull, "boolean": typeBoolean, "number": typeNumber,
	"integer": typeInteger, "string": typeString, "array": typeArray, "object": typeObject}

// quickValue is an enum or const member the quick check compares: a
// string, or the JSON text of a number or literal.
type quickValue struct {
	kind byte // '"' string, 'n' number, 'l' literal
	text string
}

type quickBound struct {
	set bool
	v   float64
}

// maxQuickDepth bounds the nesting the quick check follows (a recursive
// $ref through a deep value); deeper is "not sure".
const maxQuickDepth = 64

// buildQuick mirrors a compiled schema, following references once each.
func buildQuick(s *jsonschema.Schema) *quickNode {
	return (&quickBuilder{nodes: map[*jsonschema.Schema]*quickNode{}}).node(s)
}

type quickBuilder struct {
	nodes map[*jsonschema.Schema]*quickNode
}

func (b *quickBuilder) node(s *jsonschema.Schema) *quickNode {
	if n, ok := b.nodes[s]; ok {
		return n
	}
	n := &quickNode{minLength: -1, maxLength: -1, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1}
	b.nodes[s] = n // before recursing: references may lead back here
	if s.Bool != nil {
		n.always, n.never = *s.Bool, !*s.Bool
		return n
	}
	if s.RecursiveRef != nil || s.DynamicRef != nil || s.Not != nil || len(s.OneOf) > 0 ||
		s.If != nil || s.Then != nil || s.Else != nil ||
		len(s.Dependencies) > 0 || len(s.DependentRequired) > 0 || len(s.DependentSchemas) > 0 ||
		s.PropertyNames != nil || len(s.PatternProperties) > 0 || s.UnevaluatedProperties != nil ||
		s.Contains != nil || s.MinContains != nil || s.MaxContains != nil || len(s.PrefixItems) > 0 ||
		s.UnevaluatedItems != nil || s.MultipleOf != nil ||
		s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil ||
		len(s.Extensions) > 0 || s.DraftVersion < 6 {
		n.unsupported = true
		return n
	}
	if s.Format != nil && (s.Format.Name == "regex" || !annotationFormat[s.Format.Name]) {
		n.unsupported = true
		return n
	}
	if s.Ref != nil {
		n.ref = b.node(s.Ref)
	}
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			n.types |= typeBits[t]
		}
	}
	if s.Enum != nil {
		n.hasEnum = true
		for _, v := range s.Enum.Values {
			n.enum = append(n.enum, quickValueOf(v))
		}
	}
	if s.Const != nil {
		n.hasEnum = true
		n.enum = append(n.enum, quickValueOf(*s.Const))
	}
	for _, sub := range s.AllOf {
		n.allOf = append(n.allOf, b.node(sub))
	}
	for _, sub := range s.AnyOf {
		n.anyOf = append(n.anyOf, b.node(sub))
	}
	n.minLength, n.maxLength = intOr(s.MinLength), intOr(s.MaxLength)
	n.pattern = s.Pattern
	for i, r := range []*big.Rat{s.Minimum, s.ExclusiveMinimum, s.Maximum, s.ExclusiveMaximum} {
		if r == nil {
			continue
		}
		f, exact := r.Float64()
		if !exact {
			n.unsupported = true
			return n
		}
		n.bounds[i] = quickBound{true, f}
	}
	if len(s.Properties) > 0 {
		n.properties = make(map[string]*quickNode, len(s.Properties))
		for name, sub := range s.Properties {
			n.properties[name] = b.node(sub)
		}
	}
	if len(s.Required) > 64 {
		n.unsupported = true
		return n
	}
	if len(s.Required) > 0 {
		n.required = make(map[string]int, len(s.Required))
		for _, name := range s.Required {
			if _, dup := n.required[name]; !dup {
				n.required[name] = len(n.required)
			}
		}
	}
	switch a := s.AdditionalProperties.(type) {
	case bool:
		n.noAdditional = !a
	case *jsonschema.Schema:
		n.additional = b.node(a)
	}
	n.minProps, n.maxProps = intOr(s.MinProperties), intOr(s.MaxProperties)
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		n.items = b.node(it)
	case nil:
		if s.AdditionalItems != nil {
			n.unsupported = true // meaningful only after tuple items
		}
	default:
		n.unsupported = true // tuple items
	}
	if s.Items2020 != nil {
		n.items = b.node(s.Items2020)
	}
	n.minItems, n.maxItems = intOr(s.MinItems), intOr(s.MaxItems)
	n.uniqueItems = s.UniqueItems
	return n
}

func intOr(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func quickValueOf(v any) quickValue {
	switch v := v.(type) {
	case string:
		return quickValue{'"', v}
	case nil:
		return quickValue{'l', "null"}
	case bool:
		return quickValue{'l', strconv.FormatBool(v)}
	case interface{ String() string }: // json.Number
		return quickValue{'n', v.String()}
	}
	return quickValue{} // an object or array: never matched quickly
}

// valid reports whether raw is certainly valid against n.
func (n *quickNode) valid(raw []byte, depth int) bool {
	if n.unsupported || n.never || depth > maxQuickDepth {
		return false
	}
	if n.always {
		return true
	}
	i := jsonscan.SkipSpace(raw, 0)
	if i >= len(raw) {
		return false
	}
	raw = raw[i:]
	if n.ref != nil && !n.ref.valid(raw, depth+1) {
		return false
	}
	kind := raw[0]
	var t uint8
	switch {
	case kind == '{':
		t = typeObject
	case kind == '[':
		t = typeArray
	case kind == '"':
		t = typeString
	case kind == 't' || kind == 'f':
		t = typeBoolean
	case kind == 'n':
		t = typeNull
	default:
		t = typeNumber
	}
	if n.types != 0 && n.types&t == 0 {
		if t != typeNumber || n.types&typeInteger == 0 || !integerToken(raw) {
			return false
		}
	}
	if n.hasEnum && !n.inEnum(raw, t) {
		return false
	}
	for _, sub := range n.allOf {
		if !sub.valid(raw, depth+1) {
			return false
		}
	}
	if len(n.anyOf) > 0 {
		ok := false
		for _, sub := range n.anyOf {
			if sub.valid(raw, depth+1) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	switch t {
	case typeString:
		return n.validString(raw)
	case typeNumber:
		return n.validNumber(raw)
	case typeObject:
		return n.validObject(raw, depth)
	case typeArray:
		return n.validArray(raw, depth)
	}
	return true
}

// integerToken reports a number written as an integer (no fraction, no
// exponent); 1.0 is an integer to the library too, but not surely here.
func integerToken(raw []byte) bool {
	for _, c := range raw {
		switch c {
		case '.', 'e', 'E':
			return false
		case ' ', '\t', '\r', '\n', ',', '}', ']':
			return true
		}
	}
	return true
}

func (n *quickNode) inEnum(raw []byte, t uint8) bool {
	switch t {
	case typeString:
		end, err := jsonscan.SkipString(raw, 0)
		if err != nil {
			return false
		}
		s, plain := stringBytes(raw[:end])
		for _, e := range n.enum {
			if e.kind == '"' && ((plain && string(s) == e.text) || (!plain && decodedEquals(raw[:end], e.text))) {
				return true
			}
		}
	case typeNumber, typeBoolean, typeNull:
		end, err := jsonscan.SkipValue(raw, 0, 0)
		if err != nil {
			return false
		}
		for _, e := range n.enum {
			if (e.kind == 'n' || e.kind == 'l') && string(raw[:end]) == e.text {
				return true // the same text is the same value
			}
		}
	}
	return false
}

// stringBytes is the content of a JSON string token, and whether it has no
// escapes (then the bytes are the string).
func stringBytes(tok []byte) ([]byte, bool) {
	inner := tok[1 : len(tok)-1]
	for _, c := range inner {
		if c == '\\' {
			return inner, false
		}
	}
	return inner, true
}

func decodedEquals(tok []byte, s string) bool {
	d, ok := jsonscan.String(tok)
	return ok && d == s
}

// matcher is a regexp that matches bytes without a string conversion.
type matcher interface{ Match([]byte) bool }

var _ matcher = (*regexp.Regexp)(nil)

func (n *quickNode) validString(raw []byte) bool {
	if n.minLength < 0 && n.maxLength < 0 && n.pattern == nil {
		return true
	}
	end, err := jsonscan.SkipString(raw, 0)
	if err != nil {
		return false
	}
	s, plain := stringBytes(raw[:end])
	if !plain {
		d, ok := jsonscan.String(raw[:end])
		if !ok {
			return false
		}
		s = []byte(d)
	}
	count := utf8.RuneCount(s)
	if (n.minLength >= 0 && count < n.minLength) || (n.maxLength >= 0 && count > n.maxLength) {
		return false
	}
	if n.pattern != nil {
		if m, ok := n.pattern.(matcher); ok {
			return m.Match(s)
		}
		return n.pattern.MatchString(string(s))
	}
	return true
}

func (n *quickNode) validNumber(raw []byte) bool {
	if n.bounds == [4]quickBound{} {
		return true
	}
	end, err := jsonscan.SkipValue(raw, 0, 0)
	if err != nil {
		return false
	}
	v, exact := parseNumber(raw[:end])
	for i, b := range n.bounds {
		if !b.set {
			continue
		}
		// Unless the value is exact, keep clear of the bound: a rounded
		// value that lands near it is not sure.
		margin := 0.0
		if !exact {
			margin = 1e-9 * (1 + math.Abs(b.v))
		}
		var ok bool
		switch i {
		case 0:
			ok = v-margin >= b.v
		case 1:
			ok = v-margin > b.v
		case 2:
			ok = v+margin <= b.v
		case 3:
			ok = v+margin < b.v
		}
		if !ok {
			return false
		}
	}
	return true
}

// parseNumber reads a JSON number; exact reports that the float is the
// number itself (an integer of at most 15 digits).
func parseNumber(tok []byte) (float64, bool) {
	if integerToken(tok) {
		digits := tok
		if len(digits) > 0 && digits[0] == '-' {
			digits = digits[1:]
		}
		if len(digits) <= 15 {
			var n int64
			for _, c := range digits {
				n = n*10 + int64(c-'0')
			}
			if tok[0] == '-' {
				n = -n
			}
			return float64(n), true
		}
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return math.NaN(), false // compares false with every bound
	}
	return f, false
}

func (n *quickNode) validObject(raw []byte, depth int) bool {
	if n.properties == nil && n.required == nil && !n.noAdditional && n.additional == nil && n.minProps < 0 && n.maxProps < 0 {
		return true
	}
	var seen uint64
	count := 0
	ok := eachMember(raw, func(key, val []byte) bool {
		count++
		name, plain := stringBytes(key)
		if !plain {
			return false // an escaped member name: not sure
		}
		if bit, req := n.required[string(name)]; req {
			seen |= 1 << bit
		}
		if sub, known := n.properties[string(name)]; known {
			return sub.valid(val, depth+1)
		}
		if n.noAdditional {
			return false
		}
		if n.additional != nil {
			return n.additional.valid(val, depth+1)
		}
		return true
	})
	if !ok {
		return false
	}
	if all := uint64(1)<<len(n.required) - 1; seen != all { // 1<<64 - 1 wraps to every bit
		return false
	}
	return (n.minProps < 0 || count >= n.minProps) && (n.maxProps < 0 || count <= n.maxProps)
}

// maxQuickUnique bounds the items uniqueItems is checked for quickly.
const maxQuickUnique = 32

func (n *quickNode) validArray(raw []byte, depth int) bool {
	if n.items == nil && n.minItems < 0 && n.maxItems < 0 && !n.uniqueItems {
		return true
	}
	var elems [maxQuickUnique][]byte
	count := 0
	ok := eachElement(raw, func(val []byte) bool {
		if n.uniqueItems {
			if count >= maxQuickUnique || !uniqueComparable(val) {
				return false
			}
			for _, e := range elems[:count] {
				if string(e) == string(val) {
					return false
				}
			}
			elems[count] = val
		}
		count++
		return n.items == nil || n.items.valid(val, depth+1)
	})
	return ok && (n.minItems < 0 || count >= n.minItems) && (n.maxItems < 0 || count <= n.maxItems)
}

// uniqueComparable reports an item whose JSON text is its identity: a
// string without escapes, a literal, an integer other than -0. Two such
// items are equal exactly when their texts are.
func uniqueComparable(val []byte) bool {
	switch c := val[0]; {
	case c == '"':
		_, plain := stringBytes(val)
		return plain
	case c == 't' || c == 'f' || c == 'n':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return integerToken(val) && string(val) != "-0"
	}
	return false
}

// eachMember calls fn with each member's name token and value of the JSON
// object at raw, until fn returns false; it reports whether all returned
// true and the object read well.
func eachMember(raw []byte, fn func(key, val []byte) bool) bool {
	i := 1
	for {
		i = jsonscan.SkipSpace(raw, i)
		if i >= len(raw) {
			return false
		}
		if raw[i] == '}' {
			return true
		}
		if raw[i] == ',' {
			i = jsonscan.SkipSpace(raw, i+1)
		}
		kend, err := jsonscan.SkipString(raw, i)
		if err != nil {
			return false
		}
		key := raw[i:kend]
		i = jsonscan.SkipSpace(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = jsonscan.SkipSpace(raw, i+1)
		vend, err := jsonscan.SkipValue(raw, i, 1)
		if err != nil {
			return false
		}
		if !fn(key, raw[i:vend]) {
			return false
		}
		i = vend
	}
}

// eachElement is eachMember for the elements of a JSON array.
func eachElement(raw []byte, fn func(val []byte) bool) bool {
	i := 1
	for {
		i = jsonscan.SkipSpace(raw, i)
		if i >= len(raw) {
			return false
		}
		if raw[i] == ']' {
			return true
		}
		if raw[i] == ',' {
			i = jsonscan.SkipSpace(raw, i+1)
		}
		vend, err := jsonscan.SkipValue(raw, i, 1)
		if err != nil {
			return false
		}
		if !fn(raw[i:vend]) {
			return false
		}
		i = vend
	}
}
