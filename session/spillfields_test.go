package session

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

var timeType = reflect.TypeOf(time.Time{})

// fillValue sets every exported field reachable from v to a non-zero value.
func fillValue(t *testing.T, v reflect.Value, rng *rand.Rand) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d\x00\"é", rng.IntN(1000)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(1 + rng.IntN(100)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(1 + rng.IntN(100)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillValue(t, v.Elem(), rng)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fillValue(t, s.Index(i), rng)
		}
		v.Set(s)
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Date(2026, 9, 1, 10, 0, 0, 123456789, time.UTC)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillValue(t, v.Field(i), rng)
			}
		}
	default:
		t.Fatalf("a field of kind %s: the spill cannot carry it", v.Kind())
	}
}

// Every field a format may set on a frame survives the spill, whatever is
// added to Frame later; the fields correlation sets are not carried.
func TestSpillCarriesEveryFrameField(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var f Frame
	v := reflect.ValueOf(&f).Elem()
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		if sf.IsExported() && !spillSkip[sf.Name] {
			fillValue(t, v.Field(i), rng)
		}
	}
	got, err := decodeFrame(encodeFrame(nil, &f))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, &f) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, &f)
	}
	for name := range spillSkip {
		if _, ok := v.Type().FieldByName(name); !ok {
			t.Errorf("spillSkip names %s, which Frame no longer has", name)
		}
	}
	// a frame without raw keeps a nil Raw, one with an empty raw an empty one
	for _, raw := range [][]byte{nil, {}} {
		got, err := decodeFrame(encodeFrame(nil, &Frame{Raw: raw}))
		if err != nil || (got.Raw == nil) != (raw == nil) {
			t.Errorf("raw %#v came back as %#v (%v)", raw, got.Raw, err)
		}
	}
	dr := &damageRecord{D: Damage{File: "f", Line: 3, Reason: "torn", More: 2}, Named: true, Dir: ServerToClient, Seqs: []int64{4, 5}}
	back, err := decodeDamage(encodeDamage(nil, dr))
	if err != nil || !reflect.DeepEqual(back, dr) {
		t.Errorf("damage round trip: %+v (%v)", back, err)
	}
	// and every field of a damage record, whatever is added to Damage later
	full := &damageRecord{}
	fillValue(t, reflect.ValueOf(full).Elem(), rng)
	if back, err := decodeDamage(encodeDamage(nil, full)); err != nil || !reflect.DeepEqual(back, full) {
		t.Errorf("damage round trip:\n got %+v (%v)\nwant %+v", back, err, full)
	}
	if _, err := decodeFrame([]byte{0xff, 0xff}); err == nil {
		t.Error("a damaged record decodes")
	}
}
