package spill

import (
	"bytes"
	"io"
	"math"
	"testing"
	"time"
)

// Every kind of value reads back as written, over a byte slice and over a
// string.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	zoned := time.Date(2026, 9, 1, 10, 0, 0, 5, time.FixedZone("", 5*3600+45*60))
	e := NewEncoder([]byte("head"))
	e.Byte(7)
	e.Uvarint(math.MaxUint64)
	e.Varint(math.MinInt64)
	e.Int(-3)
	e.Bool(true)
	e.Float64(-1.5)
	e.String("é\x00")
	e.Blob(nil)
	e.Blob([]byte{})
	e.Blob([]byte("raw"))
	e.Time(time.Time{})
	e.Time(zoned)
	e.Common("s1", "s1", "a.jsonl")
	e.Common("a.jsonl", "s1", "a.jsonl")
	e.Common("other", "s1", "a.jsonl")
	e.Present(false)
	e.Len(2)
	b := e.Bytes()
	if !bytes.HasPrefix(b, []byte("head")) {
		t.Fatalf("the encoder did not append: %q", b)
	}
	check := func(t *testing.T, d interface {
		Byte() byte
		Uvarint() uint64
		Varint() int64
		Int() int
		Bool() bool
		Float64() float64
		String() string
		Blob() []byte
		Time() time.Time
		Common(...string) string
		Present() bool
		Len() int
		Err() error
		More() bool
	}) {
		if v := d.Byte(); v != 7 {
			t.Errorf("byte %d", v)
		}
		if v := d.Uvarint(); v != math.MaxUint64 {
			t.Errorf("uvarint %d", v)
		}
		if v := d.Varint(); v != math.MinInt64 {
			t.Errorf("varint %d", v)
		}
		if v := d.Int(); v != -3 {
			t.Errorf("int %d", v)
		}
		if !d.Bool() {
			t.Error("bool false")
		}
		if v := d.Float64(); v != -1.5 {
			t.Errorf("float %v", v)
		}
		if v := d.String(); v != "é\x00" {
			t.Errorf("string %q", v)
		}
		if v := d.Blob(); v != nil {
			t.Errorf("nil blob %#v", v)
		}
		if v := d.Blob(); v == nil || len(v) != 0 {
			t.Errorf("empty blob %#v", v)
		}
		if v := d.Blob(); string(v) != "raw" || cap(v) != 3 {
			t.Errorf("blob %q (cap %d)", v, cap(v))
		}
		if v := d.Time(); !v.IsZero() {
			t.Errorf("zero time %v", v)
		}
		if v := d.Time(); !v.Equal(zoned) {
			t.Errorf("time %v", v)
		} else if _, off := v.Zone(); off != 5*3600+45*60 {
			t.Errorf("time's offset %d", off)
		}
		for _, want := range []string{"s1", "a.jsonl", "other"} {
			if v := d.Common("s1", "a.jsonl"); v != want {
				t.Errorf("common %q, want %q", v, want)
			}
		}
		if d.Present() {
			t.Error("present")
		}
		if n := d.Len(); n != 0 {
			t.Errorf("a length past the data read as %d", n)
		}
		if d.Err() != ErrDamaged || d.More() {
			t.Errorf("a length past the data: err %v", d.Err())
		}
	}
	t.Run("bytes", func(t *testing.T) {
		d := NewDecoder(b[4:])
		check(t, &d)
	})
	t.Run("string", func(t *testing.T) {
		d := NewDecoder(string(b[4:]))
		check(t, &d)
	})
}

// A record cut short fails, and every read after it returns zero values.
func TestShortRecordFails(t *testing.T) {
	t.Parallel()
	e := NewEncoder(nil)
	e.String("hello")
	d := NewDecoder(e.Bytes()[:3])
	if s := d.String(); s != "" || d.Err() != ErrDamaged {
		t.Errorf("cut string %q, err %v", s, d.Err())
	}
	if d.Int() != 0 || d.Bool() || d.More() {
		t.Error("reads after a failure return values")
	}
}

// A File is made on first write, reads back what was written where it was
// written, and leaves nothing behind.
func TestFile(t *testing.T) {
	t.Parallel()
	var f File
	if f.Open() || f.Size() != 0 {
		t.Fatal("a file before its first write")
	}
	off1, err := f.Append([]byte("abc"))
	if err != nil {
		t.Fatal(err)
	}
	off2, _ := f.Append([]byte("defg"))
	if off1 != 0 || off2 != 3 || f.Size() != 7 {
		t.Fatalf("offsets %d %d, size %d", off1, off2, f.Size())
	}
	if err := f.WriteAt([]byte("X"), 1); err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f.Section(0, f.Size()))
	if string(got) != "aXcdefg" {
		t.Errorf("read back %q", got)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Append([]byte("x")); err == nil {
		t.Error("a closed file was written")
	}
}
