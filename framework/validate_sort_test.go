package framework

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// sortKeys returns the keys of TestCompiledSortsAsReference: every string
// of up to three of the letters a, b, 0, space and ~, and the empty
// string: keys that are prefixes of others, sorted before and after
// letters.
func sortKeys() []string {
	keys := []string{""}
	letters := []string{"a", "b", "0", " ", "~"}
	prev := []string{""}
	for range 3 {
		var next []string
		for _, p := range prev {
			for _, l := range letters {
				next = append(next, p+l)
			}
		}
		keys = append(keys, next...)
		prev = next
	}
	return keys
}

// shuffledObject returns an object of keys in an order of r, values i.
func shuffledObject(r *rand.Rand, keys []string) string {
	order := r.Perm(len(keys))
	var b strings.Builder
	b.WriteByte('{')
	for i, j := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(keys[j]) + ":" + strconv.Itoa(j))
	}
	b.WriteByte('}')
	return b.String()
}

// TestCompiledSortsAsReference checks that the compiled pass orders the
// members of objects in any order, nested ones too, exactly as the
// reference path (encoding/json writing a map) does, and that it decides
// these inputs itself rather than giving up.
func TestCompiledSortsAsReference(t *testing.T) {
	keys := sortKeys()
	r := rand.New(rand.NewPCG(1, 2))
	reversed := make([]string, len(keys))
	for i, k := range keys {
		reversed[len(keys)-1-i] = k
	}
	inputs := []string{
		shuffledObject(r, keys),
		shuffledObject(r, reversed),
		`{"z":` + shuffledObject(r, keys) + `,"a":[` + shuffledObject(r, keys) + `,` + shuffledObject(r, keys) + `]," ":{}}`,
		`{"b":{"y":{"b":1,"a":2},"x":[{"d":1,"c":{"f":1,"e":2}}]},"a":1}`,
	}
	s := compiledSchemas(t)["object"]
	for _, in := range inputs {
		checkCompiled(t, "object", s, []byte(in))
		if _, ok := compile(s).canonical([]byte(in), true); !ok {
			t.Errorf("the compiled pass gave up on %.60q…", in)
		}
	}
	// A duplicate key, wherever the sort puts it, is the reference path's
	// to decide.
	dup := `{"b":1,` + shuffledObject(r, keys)[1:]
	if _, ok := compile(s).canonical([]byte(dup), true); ok {
		t.Errorf("the compiled pass decided an object with a duplicate key")
	}
}

// BenchmarkCanonicalManyKeys measures the compiled pass alone on an object
// of 100,000 keys in reverse order and shuffled (see
// BenchmarkValidateManyKeys for the whole call).
func BenchmarkCanonicalManyKeys(b *testing.B) {
	const n = 100_000
	c := compile(compiledSchemas(b)["object"])
	reversed := make([]int, n)
	for i := range reversed {
		reversed[i] = n - 1 - i
	}
	for _, order := range []struct {
		name  string
		order []int
	}{
		{"reversed", reversed},
		{"shuffled", rand.New(rand.NewPCG(1, 2)).Perm(n)},
	} {
		var in strings.Builder
		in.WriteByte('{')
		for i, k := range order.order {
			if i > 0 {
				in.WriteByte(',')
			}
			in.WriteString(`"k` + strconv.Itoa(1000000 + k)[1:] + `":` + strconv.Itoa(k))
		}
		in.WriteByte('}')
		data := []byte(in.String())
		b.Run(order.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := c.canonical(data, true); !ok {
					b.Fatal("the compiled pass gave up")
				}
			}
		})
	}
}
