package upstream_test

import (
	"context"
	"testing"

	"github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// TestCalls begins and ends calls: the newest in flight is the latest,
// an ended one is no longer, its key still finds it, and its context
// names it; the progress token sent upstream is the call's key only when
// there is progress to route.
func TestCalls(t *testing.T) {
	type begun struct {
		ctx   context.Context
		token any
		end   func()
	}
	tests := []struct {
		name       string
		tokens     []any // the clients' progress tokens of the calls begun
		ended      []int // the calls ended, by index
		wantLatest int   // index, -1 for none
	}{
		{"none", nil, nil, -1},
		{"one", []any{"t"}, nil, 0},
		{"newest", []any{"t", nil, 7}, nil, 2},
		{"newest ended", []any{"t", nil, 7}, []int{2}, 1},
		{"oldest ended", []any{"t", nil}, []int{0}, 1},
		{"all ended", []any{"t", nil}, []int{1, 0}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls upstream.Calls
			var bs []begun
			for _, tok := range tt.tokens {
				ctx, up, end := calls.Begin(context.Background(), nil, tok, nil)
				bs = append(bs, begun{ctx, up, end})
				k := upstream.CallOf(ctx)
				if k == nil || k.Token != tok {
					t.Fatalf("CallOf(Begin's context) = %+v, want the call with token %v", k, tok)
				}
				if (tok == nil) != (up == nil) || (up != nil && up != k.Key) {
					t.Errorf("token upstream = %v for the client's %v (key %q)", up, tok, k.Key)
				}
			}
			for _, i := range tt.ended {
				bs[i].end()
			}
			got := calls.Latest()
			switch {
			case tt.wantLatest < 0 && got != nil:
				t.Errorf("Latest = %+v, want none", got)
			case tt.wantLatest >= 0 && got != upstream.CallOf(bs[tt.wantLatest].ctx):
				t.Errorf("Latest = %+v, want call %d", got, tt.wantLatest)
			}
			for i, b := range bs {
				k := upstream.CallOf(b.ctx)
				if calls.Get(k.Key) != k {
					t.Errorf("Get(%q) does not find call %d", k.Key, i)
				}
			}
		})
	}
}

// TestCallsHostileKeys looks up keys an upstream could send as progress
// tokens: none finds a call but the call's own.
func TestCallsHostileKeys(t *testing.T) {
	var calls upstream.Calls
	ctx, _, end := calls.Begin(context.Background(), nil, "t", nil)
	defer end()
	own := upstream.CallOf(ctx)
	for _, key := range []string{"", "hookflow-gw-", "hookflow-gw-0", "hookflow-gw-2", own.Key + " ", "HOOKFLOW-GW-1", "\x00"} {
		if k := calls.Get(key); k != nil {
			t.Errorf("Get(%q) = %+v, want none", key, k)
		}
	}
	if calls.Get(own.Key) != own {
		t.Errorf("Get(%q) does not find its call", own.Key)
	}
	if upstream.CallOf(context.Background()) != nil {
		t.Error("CallOf finds a call in a context of none")
	}
}
