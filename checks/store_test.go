package checks

import (
	"fmt"
	"reflect"
	"testing"
	"time"
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
		v.SetInt(int64(*n % 100))
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

// A session result read back from the spill file is the one written, every
// exported field of its findings, assertions and drift report included,
// whatever is added to them later.
func TestSpilledResultsKeepEveryField(t *testing.T) {
	defer SetResultBudgetForTesting(0)()
	var s SessionResult
	n := 0
	fill(t, reflect.ValueOf(&s).Elem(), &n)
	s.Recount()
	r := &Result{}
	r.Add(&s)
	defer r.Close()
	var back []*SessionResult
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
	got.Findings, got.Assertions, got.Drift, got.pos = s.Findings, s.Assertions, s.Drift, s.pos
	if !reflect.DeepEqual(*got, s) {
		t.Errorf("the session changed in the spill:\n got %+v\nwant %+v", *got, s)
	}
}
