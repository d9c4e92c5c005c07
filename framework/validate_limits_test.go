package framework_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// manyKeys returns an arguments object of n keys, "k000000": 0 to
// "k(n-1)": n-1, in reverse order when reversed, else in key order (then
// it is canonical JSON).
func manyKeys(n int, reversed bool) string {
	order := make([]int, n)
	for i := range order {
		order[i] = i
		if reversed {
			order[i] = n - 1 - i
		}
	}
	return keysInOrder(order)
}

// keysInOrder returns an object of the keys of manyKeys in the given order.
func keysInOrder(order []int) string {
	b := []byte{'{'}
	for i, k := range order {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `"k`...)
		b = append(b, strconv.Itoa(1000000 + k)[1:]...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, int64(k), 10)
	}
	return string(append(b, '}'))
}

// nestObjects returns arguments of depth levels of objects.
func nestObjects(depth int) string {
	return strings.Repeat(`{"a":`, depth-1) + "{}" + strings.Repeat("}", depth-1)
}

// nestArrays returns the arguments object holding depth-1 levels of arrays.
func nestArrays(depth int) string {
	return `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + "}"
}

// sized returns arguments of exactly n bytes.
func sized(n int) string { return `{"s":"` + strings.Repeat("x", n-8) + `"}` }

type keysOut struct {
	Keys int `json:"keys"`
}

// seen is what the hooks of a limitsServer saw of the last call.
type seen struct {
	mu   sync.Mutex
	args json.RawMessage // Arguments() after validation
	code flows.Code      // the code of the run's error, in finally
}

// countServer returns a server with limits and a tool "count" taking any
// object and answering how many keys it has.
func countServer(t testing.TB, limits framework.ArgumentLimits) *framework.Server {
	t.Helper()
	srv := framework.NewServer(&mcp.Implementation{Name: "limits", Version: "1"}, &framework.Options{ArgumentLimits: limits})
	if err := framework.AddToolFunc(srv, &mcp.Tool{Name: "count"}, func(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (keysOut, error) {
		return keysOut{Keys: len(in)}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return srv
}

// limitsServer returns a client of a countServer whose hooks record into
// the returned seen.
func limitsServer(t testing.TB, limits framework.ArgumentLimits) (*mcp.ClientSession, *seen) {
	t.Helper()
	srv := countServer(t, limits)
	s := &seen{}
	for _, h := range []flows.Hook{
		{Flow: flows.ToolsCallTool, Stage: stages.AfterValidation, Name: "args", Fn: func(c *flows.Context) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.args = c.Arguments()
			return nil
		}},
		{Flow: flows.ToolsCallTool, Stage: stages.Finally, Name: "code", Fn: func(c *flows.Context) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.code = flows.CodeOf(c.Err())
			return nil
		}},
	} {
		if err := srv.Hook(h); err != nil {
			t.Fatal(err)
		}
	}
	return inMemory("")(t, srv, nil), s
}

// TestArgumentLimits sends arguments at and past each bound, with the
// defaults and with raised bounds: at a bound the call is validated (and
// its canonical arguments are those of the same keys sent in order); past
// it the client gets a -32602 error naming the bound and nothing of the
// input, hooks see invalid input, and the server serves the next call.
func TestArgumentLimits(t *testing.T) {
	tests := []struct {
		name   string
		limits framework.ArgumentLimits
		args   string
		// keys is the tool's answer, and canonical the arguments hooks
		// see after validation ("" : args itself); or refused is the
		// whole message of the protocol error.
		keys      int
		canonical string
		refused   string
	}{
		{name: "default keys, reversed, at the bound", args: manyKeys(10_000, true), keys: 10_000, canonical: manyKeys(10_000, false)},
		{name: "default keys, in order, at the bound", args: manyKeys(10_000, false), keys: 10_000},
		{name: "default keys, one past", args: manyKeys(10_001, true), refused: "arguments hold more than 10000 keys"},
		{name: "keys of nested objects count", args: `{"a":` + manyKeys(5_000, false) + `,"b":` + manyKeys(4_999, true) + `}`, refused: "arguments hold more than 10000 keys"},
		{name: "default depth of objects, at the bound", args: nestObjects(64), keys: 1},
		{name: "default depth of objects, one past", args: nestObjects(65), refused: "arguments nest deeper than 64 levels"},
		{name: "default depth of arrays, at the bound", args: nestArrays(64), keys: 1},
		{name: "default depth of arrays, one past", args: nestArrays(65), refused: "arguments nest deeper than 64 levels"},
		// The SDK refuses a message nesting deeper than 1,000 levels.
		{name: "990 levels", args: nestArrays(990), refused: "arguments nest deeper than 64 levels"},
		{name: "default bytes, at the bound", args: sized(4 << 20), keys: 1},
		{name: "default bytes, one past", args: sized(4<<20 + 1), refused: "arguments are larger than 4194304 bytes"},
		{name: "brackets, colons and quotes in strings do not count", args: `{"s":"` + strings.Repeat(`[{:\"`, 20_000) + `"}`, keys: 1},
		// The hostile input of the hardening issue, let in.
		{name: "100,000 keys, reversed, at a raised bound", limits: framework.ArgumentLimits{Keys: 100_000}, args: manyKeys(100_000, true), keys: 100_000, canonical: manyKeys(100_000, false)},
		{name: "raised keys, one past", limits: framework.ArgumentLimits{Keys: 20_000}, args: manyKeys(20_001, true), refused: "arguments hold more than 20000 keys"},
		{name: "raised depth, at the bound", limits: framework.ArgumentLimits{Depth: 100}, args: nestObjects(100), keys: 1},
		{name: "raised depth, one past", limits: framework.ArgumentLimits{Depth: 100}, args: nestArrays(101), refused: "arguments nest deeper than 100 levels"},
		{name: "lowered bytes, at the bound", limits: framework.ArgumentLimits{Bytes: 1000}, args: sized(1000), keys: 1},
		{name: "lowered bytes, one past", limits: framework.ArgumentLimits{Bytes: 1000}, args: sized(1001), refused: "arguments are larger than 1000 bytes"},
		{name: "lowered keys, at the bound", limits: framework.ArgumentLimits{Keys: 2}, args: `{"a":{"b":1}}`, keys: 1},
		{name: "lowered keys, one past", limits: framework.ArgumentLimits{Keys: 2}, args: `{"a":{"b":1,"c":2}}`, refused: "arguments hold more than 2 keys"},
		{name: "a negative bound is the default", limits: framework.ArgumentLimits{Keys: -1}, args: manyKeys(10_001, false), refused: "arguments hold more than 10000 keys"},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, s := limitsServer(t, tt.limits)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count", Arguments: json.RawMessage(tt.args)})
			s.mu.Lock()
			args, code := s.args, s.code
			s.mu.Unlock()
			if tt.refused != "" {
				var wire *jsonrpc.Error
				if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || wire.Message != tt.refused {
					t.Fatalf("got res=%v err=%v; want the protocol error -32602 %q", res, err, tt.refused)
				}
				if code != flows.CodeInvalidInput {
					t.Errorf("finally saw code %v, want %v", code, flows.CodeInvalidInput)
				}
				if args != nil {
					t.Errorf("afterValidation ran")
				}
			} else {
				if err != nil || res.IsError {
					t.Fatalf("res=%v err=%v", res, err)
				}
				if want := `{"keys":` + strconv.Itoa(tt.keys) + `}`; text(res) != want {
					t.Errorf("result %s, want %s", text(res), want)
				}
				want := tt.canonical
				if want == "" {
					want = tt.args
				}
				if string(args) != want {
					t.Errorf("Arguments() after validation: %d bytes starting %.40q, want %d bytes starting %.40q", len(args), args, len(want), want)
				}
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"x": 1}})
			if err != nil || text(res) != `{"keys":1}` {
				t.Fatalf("next call: res=%v err=%v", res, err)
			}
		})
	}
}

// BenchmarkValidateManyKeys measures a tools/call round trip over
// in-memory transports whose arguments are an object of 100,000 keys
// (1.3 MB): in reverse order, the hostile input of the hardening issue,
// and shuffled, which no sort finds a shortcut through. The bound on keys
// is raised to let them in.
func BenchmarkValidateManyKeys(b *testing.B) {
	const n = 100_000
	for _, order := range []struct {
		name string
		args string
	}{
		{"reversed", manyKeys(n, true)},
		{"shuffled", keysInOrder(rand.New(rand.NewPCG(1, 2)).Perm(n))},
	} {
		b.Run(order.name, func(b *testing.B) {
			cs := inMemory("")(b, countServer(b, framework.ArgumentLimits{Keys: n}), nil)
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: "count", Arguments: json.RawMessage(order.args)}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError || text(res) != `{"keys":100000}` {
					b.Fatalf("res=%v err=%v", res, err)
				}
			}
		})
	}
}
