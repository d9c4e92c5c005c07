package cache

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

// TestPlainJSON checks the types encode skips the round-trip check for:
// each plain one does come back identical, here on awkward values. (An
// internal test: plainJSON is unexported.)
func TestPlainJSON(t *testing.T) {
	type inner struct {
		F float64 `json:"f,omitempty"`
		B []byte
	}
	type named string
	type self struct{ Next *self }
	type hidden struct{ *inner }
	for _, tc := range []struct {
		v     any
		plain bool
	}{
		{struct {
			S string
			N int64
			U uint64
			F float32
			M map[string][]*inner
			A [2]bool
			inner
		}{S: "a\xffb<\u2028", N: math.MinInt64, U: math.MaxUint64, F: 0.1, M: map[string][]*inner{"k": {nil, {F: -0.0, B: []byte{0, 255}}}}, inner: inner{F: 1e-300}}, true},
		{map[named]int{"x": 1}, true},
		{[]float64{math.MaxFloat64, 5e-324, 1e21}, true},
		{struct{ A any }{A: int64(1) << 60}, false},
		{struct {
			N int `json:",string"`
		}{}, false},
		{time.Time{}, false},
		{json.RawMessage(`1`), false},
		{self{}, false},
		{hidden{}, false},
	} {
		rt := reflect.TypeOf(tc.v)
		if got := plainJSON(rt, map[reflect.Type]bool{}); got != tc.plain {
			t.Errorf("plainJSON(%v) = %v, want %v", rt, got, tc.plain)
			continue
		}
		if !tc.plain {
			continue
		}
		b, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeAs(rt, b)
		if err != nil {
			t.Fatal(err)
		}
		// encode checks values with invalid UTF-8, which come back
		// with U+FFFD unescaped.
		b = bytes.ReplaceAll(b, []byte(`\ufffd`), []byte("\ufffd"))
		if again, _ := json.Marshal(back); !bytes.Equal(b, again) {
			t.Errorf("%v: %s came back as %s", rt, b, again)
		}
	}
}
