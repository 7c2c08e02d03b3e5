package jsonscan

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// refSkipString is the scan SkipString had before it read eight bytes at a
// time: one byte a step, nothing shared with it but scanError and isHex4.
// SkipString must agree with it on every input, end offset and error alike.
func refSkipString(b []byte, i int) (int, error) {
	start := i
	i++
	for {
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
			i++
		}
		if i >= len(b) {
			return i, &scanError{start, "unterminated string"}
		}
		switch b[i] {
		case '"':
			return i + 1, nil
		case '\\':
			if i+1 >= len(b) {
				return i, &scanError{i, "unterminated string"}
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex4(b[i+2:i+6]) {
					return i, &scanError{i, `invalid \u escape in string`}
				}
				i += 6
			default:
				return i, &scanError{i, fmt.Sprintf("invalid escape %q in string", b[i+1])}
			}
		default:
			return i, &scanError{i, "control character in string"}
		}
	}
}

// refPlainEnd is plainEnd a byte at a time.
func refPlainEnd(b []byte, i int) int {
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		i++
	}
	return i
}

// sameAsReference fails t unless SkipString and plainEnd (from every
// offset) agree with the references on b.
func sameAsReference(t *testing.T, b []byte) {
	t.Helper()
	sameSkip(t, b)
	for i := 0; i <= len(b); i++ {
		if got, want := plainEnd(b, i), refPlainEnd(b, i); got != want {
			t.Fatalf("plainEnd(%q, %d) = %d, want %d", b, i, got, want)
		}
	}
}

// sameSkip is sameAsReference for SkipString alone.
func sameSkip(t *testing.T, b []byte) {
	t.Helper()
	end, err := SkipString(b, 0)
	wantEnd, wantErr := refSkipString(b, 0)
	if end != wantEnd || !sameError(err, wantErr) {
		t.Fatalf("SkipString(%q) = %d, %v; want %d, %v", b, end, err, wantEnd, wantErr)
	}
}

// sameError tells whether two scan errors (or nils) say the same at the
// same offset.
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, okX := a.(*scanError)
	y, okY := b.(*scanError)
	return okX && okY && *x == *y
}

// fillers are the plain bytes around the byte under test: ASCII, the
// neighbours of the special bytes, and bytes >= 0x80, among them 0xA2 and
// 0xDC ('"' and '\\' with the top bit set), which a word scan that forgets
// the top bit takes for specials.
var fillers = []byte{'a', ' ', '!', '#', '[', ']', 0x7F, 0x80, 0xA0, 0xA2, 0xDC, 0xFF}

// quoted is '"' + body, closed with a '"' and what may follow when closed.
func quoted(body []byte, closed bool) []byte {
	b := append([]byte{'"'}, body...)
	if closed {
		b = append(b, `"}`...)
	}
	return b
}

// TestSkipStringEveryByteEveryPlace puts each of the 256 byte values at
// each position of bodies of 0..40 bytes (so on both sides of every 8-byte
// boundary), among plain bytes of each kind, closed and unterminated. Only
// SkipString is compared: a body is alike but for one byte, so the other
// lengths and positions stand for plainEnd started inside it.
func TestSkipStringEveryByteEveryPlace(t *testing.T) {
	t.Parallel()
	for n := 0; n <= 40; n++ {
		for _, fill := range fillers {
			closed := quoted([]byte(strings.Repeat(string([]byte{fill}), n)), true)
			open, body := closed[:1+n], closed[1:1+n] // the same bytes, in place
			sameAsReference(t, closed)
			sameAsReference(t, open) // unterminated at every length
			for p := range body {
				for c := 0; c < 256; c++ {
					body[p] = byte(c)
					sameSkip(t, closed)
					sameSkip(t, open)
				}
				body[p] = fill
			}
		}
	}
}

// TestSkipStringPairs puts two bytes among the specials and their
// neighbours at every pair of positions: a word scan flags bytes above a
// real special falsely (a subtraction's borrow), and must still find the
// lowest.
func TestSkipStringPairs(t *testing.T) {
	t.Parallel()
	tricky := []byte{'"', '\\', 0x00, 0x01, 0x1F, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x80, 0x9F, 0xA0, 0xA2, 0xDC, 0xFF}
	for n := 2; n <= 24; n++ {
		body := []byte(strings.Repeat("a", n))
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				for _, c := range tricky {
					for _, d := range tricky {
						body[p], body[q] = c, d
						sameAsReference(t, quoted(body, true))
					}
				}
				body[p], body[q] = 'a', 'a'
			}
		}
	}
}

// TestSkipStringEscapes places each escape, valid or not, at every offset
// around the word boundaries, with plain bytes after it or the string cut
// short inside and after it.
func TestSkipStringEscapes(t *testing.T) {
	t.Parallel()
	escapes := []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00e9`, `\uABCD`, `\uD83D\uDE42`,
		`\u12G4`, `\u12`, `\u`, `\x`, `\'`, `\U0041`, `\` + "\x00", `\` + "\xa2", `\\\"`, `\\"`}
	for _, esc := range escapes {
		for k := 0; k <= 40; k++ { // past the first word and a step of two
			for m := 0; m <= 9; m++ {
				body := []byte(strings.Repeat("a", k) + esc + strings.Repeat("é", m))
				sameAsReference(t, quoted(body, true))
				for cut := 0; cut <= len(body); cut++ {
					sameAsReference(t, quoted(body[:cut], false))
				}
			}
		}
	}
}

// TestSkipStringRandom compares the two on strings of random lengths drawn
// mostly from plain bytes, each cut short at random as well.
func TestSkipStringRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 8))
	alphabet := []byte("abc xyz\"\\\x00\x1f\x7f\x80\xa2\xdc\xff/bfnrtu0aF")
	for range 20000 {
		n := rng.IntN(200)
		body := make([]byte, n)
		for j := range body {
			if rng.IntN(16) == 0 {
				body[j] = alphabet[rng.IntN(len(alphabet))]
			} else {
				body[j] = byte(rng.IntN(256))
			}
			if body[j] < 0x20 && rng.IntN(4) != 0 {
				body[j] = 'q' // keep most strings long enough to matter
			}
		}
		sameAsReference(t, quoted(body, true))
		sameAsReference(t, quoted(body[:rng.IntN(n+1)], false))
	}
}

// FuzzSkipString compares SkipString with the byte-at-a-time reference on
// any input (its first byte taken for the opening quote, as callers do).
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{
		`"plain"`, `"`, `""`, `"abcdefg"`, `"abcdefgh"`, `"abcdefghi`,
		`"1234567\"8"`, `"123456\u00e9x"`, `"1234567\u12"`, `"résumé — 日本語 🙂"`,
		"\"1234567\xa2\xdc\"", "\"\xa2\xa2\xa2\xa2\xa2\xa2\xa2\xa2\\n\"", "\"abcdefg\x1f\"", "\"\x00\"",
		`"abc\x"`, `"abcdefgh\`, `"abcdefgh\u00"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return // plainEnd is checked from every offset: keep it quick
		}
		sameAsReference(t, data)
	})
}
