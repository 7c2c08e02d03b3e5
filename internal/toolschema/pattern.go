package toolschema

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// JSON Schema patterns are ECMA-262 regular expressions; Go's regexp is
// RE2, which is linear in time (a pattern that would backtrack for minutes
// elsewhere costs nothing here) but reads a slightly different syntax. A
// pattern is compiled as written, else after rewriting the ECMA-262 escapes
// RE2 spells differently; one that needs what RE2 cannot do (lookaround,
// backreferences, counts over 1000) is valid ECMA-262 and so not an invalid
// schema: its keyword is skipped and the pattern recorded. Anything else
// that does not compile is an invalid pattern.

// patterns is the regexp engine of one compilation.
type patterns struct {
	skipped []string // ECMA-262 patterns RE2 cannot run, in order, without repeats
}

func (e *patterns) compile(s string) (jsonschema.Regexp, error) {
	re, err := regexp.Compile(s)
	if err == nil {
		return re, nil
	}
	if t, changed := translateECMA(s); changed {
		if re, terr := regexp.Compile(t); terr == nil {
			return ecmaRegexp{re, s}, nil
		}
	}
	var serr *syntax.Error
	if needsBacktracking(s) || (errors.As(err, &serr) && serr.Code == syntax.ErrInvalidRepeatSize) {
		e.skip(s)
		return skippedRegexp(s), nil
	}
	return nil, err
}

func (e *patterns) skip(s string) {
	for _, p := range e.skipped {
		if p == s {
			return
		}
	}
	e.skipped = append(e.skipped, s)
}

// ecmaRegexp is a pattern RE2 runs after translation; it prints as written.
type ecmaRegexp struct {
	*regexp.Regexp
	src string
}

func (r ecmaRegexp) String() string { return r.src }

// skippedRegexp stands for a pattern RE2 cannot run: it matches everything,
// so its keyword never fails.
type skippedRegexp string

func (r skippedRegexp) MatchString(string) bool { return true }
func (r skippedRegexp) Match([]byte) bool       { return true }
func (r skippedRegexp) String() string          { return string(r) }

// goEscapes are the letters RE2 gives a meaning after a backslash; ECMA-262
// (Annex B) reads any other escaped letter as the letter itself.
const goEscapes = "afnrtvxdDsSwWbBAzpPQE"

// translateECMA rewrites the ECMA-262 escapes RE2 spells differently:
// \uXXXX and \u{X…} (RE2: \x{…}), \cX, \0, [^] (any character), [] (none)
// and identity escapes of letters. changed is false when nothing applied.
func translateECMA(s string) (out string, changed bool) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '[' && !inClass:
			switch {
			case strings.HasPrefix(s[i:], "[^]"):
				b.WriteString(`[\x{0}-\x{10FFFF}]`)
				i += 2
				changed = true
				continue
			case strings.HasPrefix(s[i:], "[]"):
				b.WriteString(`[^\x{0}-\x{10FFFF}]`)
				i++
				changed = true
				continue
			}
			inClass = true
		case c == ']' && inClass:
			inClass = false
		case c == '\\' && i+1 < len(s):
			n := s[i+1]
			switch {
			case n == 'u' && i+2 < len(s) && s[i+2] == '{':
				if end := strings.IndexByte(s[i+2:], '}'); end > 0 && isHex(s[i+3:i+2+end]) {
					b.WriteString(`\x{` + s[i+3:i+2+end] + `}`)
					i += 2 + end
					changed = true
					continue
				}
			case n == 'u' && i+6 <= len(s) && isHex(s[i+2:i+6]):
				b.WriteString(`\x{` + s[i+2:i+6] + `}`)
				i += 5
				changed = true
				continue
			case n == 'c' && i+2 < len(s) && isLetter(s[i+2]):
				fmt.Fprintf(&b, `\x{%x}`, s[i+2]%32)
				i += 2
				changed = true
				continue
			case n == '0' && (i+2 >= len(s) || s[i+2] < '0' || s[i+2] > '9'):
				b.WriteString(`\x{0}`)
				i++
				changed = true
				continue
			case isLetter(n) && !strings.ContainsRune(goEscapes, rune(n)) && n != 'k':
				b.WriteByte(n) // an identity escape: the letter itself
				i++
				changed = true
				continue
			}
			b.WriteByte(c)
			b.WriteByte(n)
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), changed
}

// needsBacktracking reports ECMA-262 constructs RE2 does not offer:
// lookahead, lookbehind and backreferences (numbered or named).
func needsBacktracking(s string) bool {
	inClass := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			n := s[i+1]
			if !inClass && ((n >= '1' && n <= '9') || (n == 'k' && i+2 < len(s) && s[i+2] == '<')) {
				return true
			}
			i++
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '(' && !inClass:
			rest := s[i+1:]
			for _, look := range []string{"?=", "?!", "?<=", "?<!"} {
				if strings.HasPrefix(rest, look) {
					return true
				}
			}
		}
	}
	return false
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
