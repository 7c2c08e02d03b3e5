package checks

import "testing"

// An Mcp-Param header and its integer argument compare as numbers.
func TestSameNumber(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		header, arg string
		same        bool
	}{
		{"42", "42.0", true}, {"42", "4.2e1", true}, {"9007199254740991", "9007199254740991", true},
		{"9007199254740991", "9007199254740990", false}, {"41", "42", false}, {"forty-two", "42", false}, {"-0", "0", true},
	} {
		if got := sameNumber(c.header, c.arg); got != c.same {
			t.Errorf("sameNumber(%q, %q) = %v", c.header, c.arg, got)
		}
	}
}
