package jsonscan

import (
	"fmt"
	"strings"
	"testing"
)

// readingCases are envelopes around a member "raw": valid, broken inside
// raw, broken after it, with names used twice inside and outside, raw not
// an object, raw nested as deep as allowed and one level deeper.
func readingCases() []string {
	deep := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	return []string{
		`{"session_id":"s","raw":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi \"there\" \u00e9"}]}},"seq":2}`,
		`{"raw":{"id":1,"id":2}}`,
		`{"raw":{"result":{"a":{"b":1,"b":2}}},"x":1}`,
		`{"raw":{"a":1},"raw":{"b":2}}`,
		`{"raw":[1,2,{"a":1}],"s":"x"}`,
		`{"raw":"text","n":null}`,
		`{"raw":null}`,
		`{"raw":  {"a" : [ 1 , 2 ] } , "b":true}`,
		`{"raw":{"a":1,}}`,
		`{"raw":{"a":"unterminated}}`,
		`{"raw":{"a":1} "b":2}`,
		`{"raw":{"a":1}`,
		`{"raw":`,
		`{"raw":{"a":tru}}`,
		`{"raw":{"a":"\x"}}`,
		`{"raw":` + deep(MaxDepth-1) + `}`,
		`{"raw":` + deep(MaxDepth) + `}`,
		`{"raw":` + deep(MaxDepth+1) + `}`,
		`{"a":1,"a":2,"raw":{"a":1}}`,
		`{"raw":{"a":1}} trailing`,
		`{"r\u0061w":{"id":1}}`,
	}
}

// describe is what a walk found, for comparing two walks.
func describe(dup *Duplicate, err error, members []string) string {
	return fmt.Sprintf("dup=%+v err=%v members=%q", dup, err, members)
}

// TestEachMemberReadingIsEachMemberStrict: reading raw with ObjectAt in
// place of skipping it finds the same members, duplicates and errors as
// EachMemberStrict of the envelope followed by EachMemberStrict (deep) of
// its raw value.
func TestEachMemberReadingIsEachMemberStrict(t *testing.T) {
	t.Parallel()
	for _, c := range readingCases() {
		compareReading(t, []byte(c))
	}
}

func compareReading(t *testing.T, b []byte) {
	t.Helper()
	// the reference: the envelope walked, then raw walked alone
	var wantMembers []string
	var wantRaw []byte
	wantDup, wantErr := EachMemberStrict(b, false, func(name, val []byte) {
		wantMembers = append(wantMembers, string(name)+"="+string(val))
		if string(name) == "raw" {
			wantRaw = val
		}
	})
	var wantInner string
	if wantErr == nil && FirstByte(wantRaw) == '{' {
		var inner []string
		dup, err := EachMemberStrict(wantRaw, true, func(name, val []byte) { inner = append(inner, string(name)+"="+string(val)) })
		wantInner = describe(dup, err, inner)
	}

	var gotMembers []string
	var gotInner string
	read := func(b []byte, i, depth int) (int, error) {
		if i >= len(b) || b[i] != '{' {
			gotInner = ""
			return SkipValue(b, i, depth)
		}
		var inner []string
		end, dup, err := ObjectAt(b, i, depth+1, true, func(name, val []byte) { inner = append(inner, string(name)+"="+string(val)) })
		if err == nil {
			gotInner = describe(dup, nil, inner)
		}
		return end, err
	}
	gotDup, gotErr := EachMemberReading(b, "raw", read, func(name, val []byte) {
		gotMembers = append(gotMembers, string(name)+"="+string(val))
	})
	if got, want := describe(gotDup, gotErr, gotMembers), describe(wantDup, wantErr, wantMembers); got != want {
		t.Errorf("%.80s:\nreading: %s\nstrict:  %s", b, got, want)
	}
	if wantErr == nil && gotInner != wantInner {
		t.Errorf("%.80s: raw read in place:\n%s\nraw alone:\n%s", b, gotInner, wantInner)
	}
}

// FuzzEachMemberReading compares the in-place read with the two walks.
func FuzzEachMemberReading(f *testing.F) {
	for _, c := range readingCases() {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { compareReading(t, b) })
}
