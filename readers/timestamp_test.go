package readers

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// sameAsUnmarshalText fails t unless utcTimestamp, where it reads b,
// reads the time time.Time's UnmarshalText does, to the bit (location
// included), and turns away what UnmarshalText turns away.
func sameAsUnmarshalText(t *testing.T, b []byte) bool {
	t.Helper()
	got, ok := utcTimestamp(b)
	var want time.Time
	err := want.UnmarshalText(b)
	if ok && (err != nil || got != want) {
		t.Fatalf("utcTimestamp(%q) = %v; UnmarshalText: %v, %v", b, got, want, err)
	}
	return ok
}

// TestUTCTimestampIsUnmarshalText: every day of years around leap-year
// rules and the ends of the range, at random times and fractions of up
// to twelve digits, reads as UnmarshalText reads it; days that do not
// exist, fields out of range, offsets and other separators are left to
// UnmarshalText.
func TestUTCTimestampIsUnmarshalText(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 21))
	read := 0
	for _, year := range []int{0, 1, 4, 99, 100, 399, 400, 1582, 1900, 1969, 1970, 2000, 2024, 2025, 2026, 2100, 9999} {
		for month := 1; month <= 12; month++ {
			for day := 1; day <= 32; day++ {
				frac := ""
				if n := rng.IntN(13); n > 0 {
					frac = "."
					for range n {
						frac += string(rune('0' + rng.IntN(10)))
					}
				}
				s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d%sZ", year, month, day, rng.IntN(24), rng.IntN(60), rng.IntN(60), frac)
				ok := sameAsUnmarshalText(t, []byte(s))
				if exists := day <= daysIn(month, year); ok != exists {
					t.Errorf("utcTimestamp(%q) read it: %v", s, ok)
				}
				if ok {
					read++
				}
			}
		}
	}
	for _, s := range []string{
		"2026-09-01T24:00:00Z", "2026-09-01T23:60:00Z", "2026-09-01T23:59:60Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
		"2026-09-00T00:00:00Z", "2026-09-01T10:00:00+02:00", "2026-09-01T10:00:00.Z", "2026-09-01T10:00:00,5Z",
		"2026-09-01 10:00:00Z", "2026-09-01T10:00:00z", "2026-9-01T10:00:00Z", "+026-09-01T10:00:00Z", "2026-09-01T10:00:00.5xZ",
		"2026-09-01T10:00:00.\u0661Z", "2026-09-01T10:00Z", "",
	} {
		if sameAsUnmarshalText(t, []byte(s)) {
			t.Errorf("utcTimestamp read %q", s)
		}
	}
	if read < 17*365 {
		t.Fatalf("only %d timestamps read", read)
	}
}

// FuzzUTCTimestamp: on any input, what utcTimestamp reads is what
// UnmarshalText reads.
func FuzzUTCTimestamp(f *testing.F) {
	for _, s := range []string{"2026-09-01T10:00:00.001500Z", "2024-02-29T23:59:59Z", "0000-01-01T00:00:00.123456789123Z", "2026-09-01T10:00:00+02:00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { sameAsUnmarshalText(t, b) })
}
