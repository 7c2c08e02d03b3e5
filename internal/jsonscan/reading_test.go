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

// nestedRecorder opens every member named in open and records what it
// sees: a line per opened object, then its members (ObjectAtNested).
type nestedRecorder struct {
	open []string
	seen []string
}

func (r *nestedRecorder) Open(member []byte) bool {
	for _, o := range r.open {
		if string(member) == o {
			r.seen = append(r.seen, "open "+o)
			return true
		}
	}
	return false
}

func (r *nestedRecorder) Member(name, val []byte) {
	r.seen = append(r.seen, string(name)+"="+string(val))
}

// TestObjectAtNestedIsObjectAt: the one walk that also reads some members'
// objects finds what ObjectAt finds, and each opened object's members are
// EachMember's of that object alone.
func TestObjectAtNestedIsObjectAt(t *testing.T) {
	t.Parallel()
	for _, c := range append(readingCases(), `{"result":{"a":1},"result":[1],"params":{"x":{"y":1,"y":2}}}`, `{"params":{"a":`) {
		compareNested(t, []byte(c))
	}
}

func compareNested(t *testing.T, b []byte) {
	t.Helper()
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	open := []string{"raw", "result", "params", "a"}
	var wantMembers, wantNested []string
	wantEnd, wantDup, wantErr := ObjectAt(b, i, 1, true, func(name, val []byte) {
		wantMembers = append(wantMembers, string(name)+"="+string(val))
		for _, o := range open {
			if string(name) == o && FirstByte(val) == '{' {
				wantNested = append(wantNested, "open "+o)
				_ = EachMember(val, func(n, v []byte) { wantNested = append(wantNested, string(n)+"="+string(v)) })
			}
		}
	})
	var gotMembers []string
	rec := &nestedRecorder{open: open}
	gotEnd, gotDup, gotErr := ObjectAtNested(b, i, 1, true, func(name, val []byte) {
		gotMembers = append(gotMembers, string(name)+"="+string(val))
	}, rec.Open, rec.Member)
	if got, want := fmt.Sprint(gotEnd, " ", describe(gotDup, gotErr, gotMembers)), fmt.Sprint(wantEnd, " ", describe(wantDup, wantErr, wantMembers)); got != want {
		t.Errorf("%.80s:\nnested:    %s\nObjectAt:  %s", b, got, want)
	}
	if wantErr == nil && fmt.Sprint(rec.seen) != fmt.Sprint(wantNested) {
		t.Errorf("%.80s: opened in the walk:\n%q\nalone:\n%q", b, rec.seen, wantNested)
	}
}

// FuzzObjectAtNested compares the nested walk with ObjectAt and EachMember.
func FuzzObjectAtNested(f *testing.F) {
	for _, c := range readingCases() {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { compareNested(t, b) })
}
