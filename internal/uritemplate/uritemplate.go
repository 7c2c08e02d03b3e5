// Package uritemplate tells whether a URI is one a URI template (RFC 6570,
// as resources/templates/list gives them) expands to.
package uritemplate

import (
	"regexp"
	"strings"
)

// Template is a compiled URI template; the zero value matches nothing.
type Template struct{ re *regexp.Regexp }

// Compile reads a template; ok is false for one that is not well formed
// (an unclosed or empty expression), which then matches nothing.
func Compile(template string) (t Template, ok bool) {
	var b strings.Builder
	b.WriteString("^")
	for rest := template; rest != ""; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		b.WriteString(regexp.QuoteMeta(rest[:open]))
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return Template{}, false
		}
		expr := rest[open+1 : open+end]
		if expr == "" {
			return Template{}, false
		}
		b.WriteString(expression(expr))
		rest = rest[open+end+1:]
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return Template{}, false
	}
	return Template{re: re}, true
}

// expression is what one {…} may expand to, by its operator: generously
// (any number of values, exploded or not), since only the shape matters.
func expression(expr string) string {
	switch expr[0] {
	case '+', '#': // reserved expansion: slashes and all
		return `.*`
	case '/':
		return `(?:/[^/?#]*)*`
	case '.':
		return `(?:\.[^/?#.]*)*`
	case ';':
		return `(?:;[^/?#]*)*`
	case '?', '&':
		return `(?:[?&][^#]*)?`
	}
	return `[^/?#]*` // simple string expansion: one segment's worth
}

// Match reports whether uri is an expansion of t.
func (t Template) Match(uri string) bool {
	return t.re != nil && t.re.MatchString(uri)
}
