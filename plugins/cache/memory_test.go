package cache_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/cache"
)

// lruModel is the obvious least-recently-used cache with expiry that
// Memory must behave as: keys most recently used first.
type lruModel struct {
	max  int
	keys []string
	vals map[string]string
	exp  map[string]time.Time
}

func (l *lruModel) touch(k string) {
	l.keys = slices.DeleteFunc(l.keys, func(s string) bool { return s == k })
	l.keys = slices.Insert(l.keys, 0, k)
}

func (l *lruModel) get(k string, now time.Time) (string, bool) {
	v, ok := l.vals[k]
	if !ok {
		return "", false
	}
	if !now.Before(l.exp[k]) {
		l.keys = slices.DeleteFunc(l.keys, func(s string) bool { return s == k })
		delete(l.vals, k)
		return "", false
	}
	l.touch(k)
	return v, true
}

func (l *lruModel) set(k, v string, exp time.Time) {
	if _, ok := l.vals[k]; !ok && len(l.keys) >= l.max {
		last := l.keys[len(l.keys)-1]
		l.keys = l.keys[:len(l.keys)-1]
		delete(l.vals, last)
	}
	l.vals[k], l.exp[k] = v, exp
	l.touch(k)
}

// TestMemoryAsModel runs random Gets, Sets and clock steps on a Memory and
// on the model, and wants the same answers and lengths throughout.
func TestMemoryAsModel(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		clk := &clock{now: time.Unix(0, 0)}
		max := 1 + rng.IntN(6)
		m := cache.NewMemory(&cache.MemoryOptions{MaxEntries: max, Now: clk.Now})
		model := &lruModel{max: max, vals: map[string]string{}, exp: map[string]time.Time{}}
		for op := range 2000 {
			k := "k" + strconv.Itoa(rng.IntN(12))
			switch rng.IntN(3) {
			case 0:
				v := strconv.Itoa(op)
				ttl := time.Duration(1+rng.IntN(10)) * time.Second
				if err := m.Set(ctx, k, []byte(v), ttl); err != nil {
					t.Fatal(err)
				}
				model.set(k, v, clk.Now().Add(ttl))
			case 1:
				got, ok, err := m.Get(ctx, k)
				want, wok := model.get(k, clk.Now())
				if err != nil || ok != wok || string(got) != want {
					t.Fatalf("seed %d op %d: Get(%s) = %q, %v, %v; want %q, %v", seed, op, k, got, ok, err, want, wok)
				}
			default:
				clk.Add(time.Duration(rng.IntN(2000)) * time.Millisecond)
			}
			if m.Len() != len(model.keys) {
				t.Fatalf("seed %d op %d: Len() = %d, want %d", seed, op, m.Len(), len(model.keys))
			}
		}
	}
}
