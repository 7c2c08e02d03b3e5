package jsonscan

import "errors"

// TooDeep reports whether err is the error of a value nested past MaxDepth:
// a limit of the checker, not broken JSON.
func TooDeep(err error) bool {
	var se *scanError
	return errors.As(err, &se) && se.msg == tooDeep
}

const tooDeep = "JSON nested too deeply"

// ClipLevel is the nesting level ClipDepth empties containers at: a little
// under MaxDepth, so that the clipped text reads within it wherever a
// reader starts counting.
const ClipLevel = MaxDepth - 8

// ClipDepth rewrites b in place so that no container nests deeper than
// level: a container at that level keeps nothing inside ("[…]" becomes
// "[]"). It tracks only strings and brackets; broken JSON stays broken.
// The result is never longer than b and shares its array.
func ClipDepth(b []byte, level int) []byte {
	w, depth, skip := 0, 0, 0
	inString, escaped := false, false
	for r := 0; r < len(b); r++ {
		c := b[r]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if skip == 0 && depth == level {
				b[w] = c
				w++
				skip = depth
				continue
			}
		case c == '}' || c == ']':
			if skip == depth {
				skip = 0
			}
			depth--
		}
		if skip == 0 {
			b[w] = c
			w++
		}
	}
	return b[:w]
}

// ClipPrefix turns b, the start of a JSON text cut at an arbitrary byte,
// into a valid JSON text: it is cut back to the end of the last complete
// element or member (or just after the last opening bracket) and the
// containers open there are closed. A string, number or literal cut in
// half is left out, so nothing is read that the text did not hold. It
// works in place (b's array is reused when it has room) and returns nil
// when b holds no complete opening of a container.
func ClipPrefix(b []byte) []byte {
	var stack []byte // the open containers' closers
	safe, safeDepth := -1, 0
	expectKey := false
	done := func(end int) {
		if len(stack) > 0 {
			safe, safeDepth = end, len(stack)
		}
	}
	i := 0
scan:
	for i < len(b) {
		c := b[i]
		switch c {
		case ' ', '\t', '\r', '\n', ':':
			i++
		case ',':
			i++
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '}'
		case '{', '[':
			closer := byte(']')
			if c == '{' {
				closer = '}'
			}
			stack = append(stack, closer)
			i++
			safe, safeDepth, expectKey = i, len(stack), c == '{'
		case '}', ']':
			if len(stack) == 0 {
				break scan
			}
			stack = stack[:len(stack)-1]
			i++
			if len(stack) == 0 {
				return b[:i] // the text was whole
			}
			expectKey = false
			done(i)
		case '"':
			end, err := SkipString(b, i)
			if err != nil {
				break scan // cut inside the string
			}
			i = end
			if expectKey {
				expectKey = false // a member name: its value is to come
				continue
			}
			done(i)
		default:
			j := i
			for j < len(b) && !delimiter(b[j]) {
				j++
			}
			if j == len(b) {
				break scan // cut inside a number or literal
			}
			i = j
			done(i)
		}
	}
	if safe < 0 {
		return nil
	}
	out := b[:safe]
	for k := safeDepth - 1; k >= 0; k-- {
		out = append(out, stack[k])
	}
	return out
}

func delimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}
