// Package fingerprint is the identity of a finding across runs (spec §3,
// §7.3): how it is hashed, and the form it is written in. The engine makes
// fingerprints; the suppressions file and the reports check their form.
package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// Len is the length of a fingerprint in hexadecimal digits.
const Len = 32

// Of hashes a finding's identity. ordinal counts the earlier sessions of
// the same label in the same file (not in the run, so adding a capture to
// a job changes nothing). The first session's fingerprints are hashed
// without it, as before ordinals existed, so existing suppressions keep
// matching; the others end in a field no occurrence number can spell.
func Of(label string, ordinal int, rule, subject string, occurrence int) string {
	// Every finding of a run is fingerprinted as its session ends: one
	// string made, no hash or formatting state on the heap.
	var buf [256]byte
	b := append(buf[:0], label...)
	b = append(append(append(append(b, 0), rule...), 0), subject...)
	b = strconv.AppendInt(append(b, 0), int64(occurrence), 10)
	if ordinal > 0 {
		b = strconv.AppendInt(append(b, "\x00session "...), int64(ordinal), 10)
	}
	sum := sha256.Sum256(b)
	var out [Len]byte
	hex.Encode(out[:], sum[:Len/2])
	return string(out[:])
}

// Valid reports whether s has the form of a fingerprint as mcpcheck
// writes them (lower-case hexadecimal).
func Valid(s string) bool {
	if len(s) != Len {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
