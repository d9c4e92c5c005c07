package upstream_test

import (
	"sync"
	"testing"
	"time"

	"github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// TestIdle marks requests through sessions in flight and ended: a session
// is idle only once it served a request and has none in flight, for as
// long as since its last one ended, and not once forgotten.
func TestIdle(t *testing.T) {
	tests := []struct {
		name     string
		run      func(*upstream.Idle[string])
		wantIdle bool
	}{
		{"served none", func(*upstream.Idle[string]) {}, false},
		{"in flight", func(i *upstream.Idle[string]) { i.Busy("a") }, false},
		{"ended", func(i *upstream.Idle[string]) { i.Busy("a")() }, true},
		{"one of two ended", func(i *upstream.Idle[string]) { i.Busy("a"); i.Busy("a")() }, false},
		{"another's in flight", func(i *upstream.Idle[string]) { i.Busy("a")(); i.Busy("b") }, true},
		{"kept", func(i *upstream.Idle[string]) { i.Busy("a")(); i.Keep(map[string]bool{"a": true}) }, true},
		{"forgotten", func(i *upstream.Idle[string]) { i.Busy("a")(); i.Keep(map[string]bool{"b": true}) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var idle upstream.Idle[string]
			tt.run(&idle)
			ended := time.Now()
			later := ended.Add(time.Minute)
			d, ok := idle.For("a", later)
			if ok != tt.wantIdle {
				t.Fatalf("For = %v, %v; want idle %v", d, ok, tt.wantIdle)
			}
			if ok && (d < time.Minute || d > time.Minute+time.Second) {
				t.Errorf("idle for %v at a minute after the last request ended", d)
			}
		})
	}
}

// TestIdleConcurrent has many requests through one session at once: it
// is idle once the last one ended, not before.
func TestIdleConcurrent(t *testing.T) {
	var idle upstream.Idle[int]
	var wg sync.WaitGroup
	start := make(chan struct{})
	held := idle.Busy(1)
	for range 50 {
		wg.Go(func() {
			<-start
			idle.Busy(1)()
			idle.Keep(map[int]bool{1: true})
		})
	}
	close(start)
	wg.Wait()
	if d, ok := idle.For(1, time.Now()); ok {
		t.Errorf("idle for %v with a request in flight", d)
	}
	held()
	if _, ok := idle.For(1, time.Now()); !ok {
		t.Error("not idle once every request ended")
	}
}
