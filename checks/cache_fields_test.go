package checks

import "testing"

func TestBadTTL(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{"0": "", "60000": "", "60000.0": "", "-1": "is negative (-1)", "1.5": "is not an integer (1.5)", `"60"`: "is a JSON string, not an integer", "null": "is a JSON null, not an integer"} {
		if got := badTTL([]byte(v)); got != want {
			t.Errorf("badTTL(%s) = %q, want %q", v, got, want)
		}
	}
}
