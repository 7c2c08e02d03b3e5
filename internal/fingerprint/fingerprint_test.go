package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
)

// A fingerprint is the first half, in hexadecimal, of the SHA-256 of its
// fields as released: label, rule, subject and occurrence separated by NUL,
// then "session N" for a session past the first of its label. Changing the
// form would unsuppress every accepted finding and reopen every alert.
func TestFingerprintForm(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("subject ", 100) // past any fixed buffer
	for _, c := range []struct {
		label, rule, subject string
		ordinal, occurrence  int
	}{
		{"dev-server", "tool-error", "tools/call build", 0, 0},
		{"dev-server", "tool-error", "tools/call build", 3, 17},
		{"", "invalid-frame", "", 0, 0},
		{"é\x00label", "progress", long, 1, 123456789},
	} {
		text := c.label + "\x00" + c.rule + "\x00" + c.subject + "\x00" + strconv.Itoa(c.occurrence)
		if c.ordinal > 0 {
			text += "\x00session " + strconv.Itoa(c.ordinal)
		}
		sum := sha256.Sum256([]byte(text))
		want := hex.EncodeToString(sum[:])[:Len]
		if got := Of(c.label, c.ordinal, c.rule, c.subject, c.occurrence); got != want {
			t.Errorf("fingerprint of %q = %s, want %s", text, got, want)
		}
	}
}

// Valid accepts the form Of writes, and nothing else.
func TestValid(t *testing.T) {
	t.Parallel()
	if !Valid(Of("a", 0, "r", "s", 0)) {
		t.Error("a fingerprint is not valid")
	}
	for _, s := range []string{"", "0123456789ABCDEF0123456789ABCDEF", "0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcdeg"} {
		if Valid(s) {
			t.Errorf("%q is valid", s)
		}
	}
}
