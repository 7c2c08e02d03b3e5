package report

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The hand-written JSON of the SARIF results and of the json report share
// this indenter: it writes what encoding/json with SetEscapeHTML(false) and
// SetIndent(prefix, "  ") writes, before jsonSafe.

// jsonIndenter writes one indented JSON value.
type jsonIndenter struct {
	b      []byte
	prefix string
	depth  int
	err    error // the first value encoding/json refused (encoded)
}

func (w *jsonIndenter) newline() {
	w.b = append(w.b, '\n')
	w.b = append(w.b, w.prefix...)
	for range w.depth {
		w.b = append(w.b, "  "...)
	}
}

// object writes the members members adds, between braces; {} when it adds
// none.
func (w *jsonIndenter) object(members func(o *jsonObject)) {
	o := jsonObject{jsonItems{w: w}}
	w.open('{')
	members(&o)
	w.close('}', o.n)
}

// elements writes the values values adds, each after next, between
// brackets; [] when it adds none.
func (w *jsonIndenter) elements(values func(a *jsonItems)) {
	a := jsonItems{w: w}
	w.open('[')
	values(&a)
	w.close(']', a.n)
}

// array writes n values, each by value(i); [] when n is 0.
func (w *jsonIndenter) array(n int, value func(i int)) {
	w.elements(func(a *jsonItems) {
		for i := range n {
			a.next()
			value(i)
		}
	})
}

func (w *jsonIndenter) open(bracket byte) {
	w.b = append(w.b, bracket)
	w.depth++
}

// close ends what open began, on a line of its own unless it is empty.
func (w *jsonIndenter) close(bracket byte, items int) {
	w.depth--
	if items > 0 {
		w.newline()
	}
	w.b = append(w.b, bracket)
}

func (w *jsonIndenter) text(s string) { w.b = appendJSONString(w.b, s) }

func (w *jsonIndenter) integer(n int64) { w.b = strconv.AppendInt(w.b, n, 10) }

func (w *jsonIndenter) boolean(v bool) { w.b = strconv.AppendBool(w.b, v) }

func (w *jsonIndenter) null() { w.b = append(w.b, "null"...) }

// encoded writes v through encoding/json, indented where it stands: for
// values written once a run, or rarely, that are not worth spelling out.
func (w *jsonIndenter) encoded(v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(w.prefix+strings.Repeat("  ", w.depth), "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		if w.err == nil {
			w.err = err
		}
		return
	}
	w.b = append(w.b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// jsonList writes xs, each by value, or null for a nil slice, as
// encoding/json writes a slice.
func jsonList[T any](w *jsonIndenter, xs []T, value func(w *jsonIndenter, x *T)) {
	if xs == nil {
		w.null()
		return
	}
	w.array(len(xs), func(i int) { value(w, &xs[i]) })
}

func textJSON(w *jsonIndenter, s *string) { w.text(*s) }

// jsonItems counts the members of one object or the elements of one
// array, for the commas between them.
type jsonItems struct {
	w *jsonIndenter
	n int
}

// next starts a member or an element, on a line of its own.
func (l *jsonItems) next() *jsonIndenter {
	if l.n > 0 {
		l.w.b = append(l.w.b, ',')
	}
	l.n++
	l.w.newline()
	return l.w
}

// jsonObject writes the members of one object.
type jsonObject struct{ jsonItems }

// key starts a member.
func (o *jsonObject) key(name string) *jsonIndenter {
	w := o.next()
	w.b = appendJSONString(w.b, name)
	w.b = append(w.b, ": "...)
	return w
}

func (o *jsonObject) str(name string, v *string) {
	if v != nil {
		w := o.key(name)
		w.b = appendJSONString(w.b, *v)
	}
}

func (o *jsonObject) int(name string, v *int) {
	if v != nil {
		w := o.key(name)
		w.b = strconv.AppendInt(w.b, int64(*v), 10)
	}
}

func (o *jsonObject) uint(name string, v *uint) {
	if v != nil {
		w := o.key(name)
		w.b = strconv.AppendUint(w.b, uint64(*v), 10)
	}
}

// appendJSONString is encoding/json's string with HTML left unescaped:
// quotes, backslashes and control characters escaped, invalid UTF-8 as
// U+FFFD, and U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	done := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[done:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			done = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[done:i]...)
			b = append(b, `\ufffd`...)
			i += size
			done = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[done:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			done = i
			continue
		}
		i += size
	}
	b = append(b, s[done:]...)
	return append(b, '"')
}
