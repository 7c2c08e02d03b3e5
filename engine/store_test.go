package engine

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/result"
)

// fill sets every exported field reachable from v to a non-zero value.
func fill(t *testing.T, v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d\x00é", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(1 + *n%100))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(1 + *n%2))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), n)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fill(t, s.Index(i), n)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, k, n)
		fill(t, e, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 9, 1, 10, 0, 0, *n, time.UTC)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), n)
			}
		}
	default:
		t.Fatalf("a field of kind %s (%s): a spilled result cannot carry it", v.Kind(), v.Type())
	}
}

// nonZero fails for a field reachable from v that fill left zero: the
// round trip proves nothing of a field it does not set.
func nonZero(t *testing.T, v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			t.Errorf("%s is nil", path)
			return
		}
		nonZero(t, v.Elem(), path)
	case reflect.Slice:
		if v.Len() == 0 {
			t.Errorf("%s is empty", path)
		}
		for i := 0; i < v.Len(); i++ {
			nonZero(t, v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			if v.Interface().(time.Time).IsZero() {
				t.Errorf("%s is the zero time", path)
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				nonZero(t, v.Field(i), path+"."+f.Name)
			}
		}
	default:
		if v.IsZero() {
			t.Errorf("%s is zero", path)
		}
	}
}

// A session result read back from the spill file is the one written, every
// exported field of its findings, assertions and drift report included,
// whatever is added to them later.
func TestSpilledResultsKeepEveryField(t *testing.T) {
	t.Parallel()
	var s result.SessionResult
	n := 0
	fill(t, reflect.ValueOf(&s).Elem(), &n)
	nonZero(t, reflect.ValueOf(&s).Elem(), "SessionResult")
	s.Recount()
	r := &result.Result{}
	newCollector(r, 0).add(&s)
	defer r.Close()
	var back []*result.SessionResult
	for got := range r.AllSessions() {
		back = append(back, got)
	}
	if err := r.Err(); err != nil || len(back) != 1 || len(r.Sessions) != 0 {
		t.Fatalf("read back %d sessions (%v), %d in memory", len(back), err, len(r.Sessions))
	}
	got := back[0]
	if !reflect.DeepEqual(got.Findings, s.Findings) || !reflect.DeepEqual(got.Assertions, s.Assertions) || !reflect.DeepEqual(got.Drift, s.Drift) {
		t.Errorf("findings, assertions or drift changed in the spill:\n got %+v\nwant %+v", got.Findings[0], s.Findings[0])
	}
	got.Findings, got.Assertions, got.Drift = s.Findings, s.Assertions, s.Drift
	if !reflect.DeepEqual(*got, s) {
		t.Errorf("the session changed in the spill:\n got %+v\nwant %+v", *got, s)
	}
}
