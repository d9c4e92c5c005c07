package intercept_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/host"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
)

// A host's Payload says how its interceptors get a request: hookflow's
// {"method", "params"} by default, or the params alone, as interceptors
// written with the working group's SDKs read them (payload.arguments).
// On both sides, such an interceptor edits the call only when its host is
// configured with the params shape, and its change reaches the tool.
func TestPayloadShape(t *testing.T) {
	tests := []struct {
		shape wire.Shape
		// wantSeen is the payload the host's validator got (but for the
		// params' _meta): on the server side before the mutator, on the
		// sending side after it.
		wantSeen  map[string]string
		wantFinal string // the arguments the tool got
	}{
		{"", map[string]string{
			"server":  `{"method":"tools/call","params":{"name":"echo","arguments":{"note":"hello"}}}`,
			"sending": `{"method":"tools/call","params":{"name":"echo","arguments":{"note":"hello"}}}`,
		}, `{"note":"hello"}`},
		{wire.ShapeMessage, map[string]string{
			"server":  `{"method":"tools/call","params":{"name":"echo","arguments":{"note":"hello"}}}`,
			"sending": `{"method":"tools/call","params":{"name":"echo","arguments":{"note":"hello"}}}`,
		}, `{"note":"hello"}`},
		{wire.ShapeParams, map[string]string{
			"server":  `{"name":"echo","arguments":{"note":"hello"}}`,
			"sending": `{"name":"echo","arguments":{"note":"HELLO"}}`,
		}, `{"note":"HELLO"}`},
	}
	for _, tt := range tests {
		for _, side := range []string{"server", "sending"} {
			t.Run(string(tt.shape)+"/"+side, func(t *testing.T) {
				var (
					mu   sync.Mutex
					seen []string
				)
				record := host.Validator(host.Spec{Name: "record", Events: []string{"tools/call"}},
					func(_ context.Context, inv *host.Invocation) (host.Verdict, error) {
						mu.Lock()
						defer mu.Unlock()
						seen = append(seen, string(inv.Payload))
						return host.Allow(), nil
					})
				// upper reads payload.arguments and nothing else.
				upper := host.Mutator(host.Spec{Name: "upper", Events: []string{"tools/call"}},
					func(_ context.Context, inv *host.Invocation) (host.Mutation, error) {
						var p map[string]any
						if err := json.Unmarshal(inv.Payload, &p); err != nil {
							return host.Mutation{}, err
						}
						args, ok := p["arguments"].(map[string]any)
						if !ok {
							return host.Unchanged(), nil
						}
						args["note"] = strings.ToUpper(args["note"].(string))
						b, err := json.Marshal(p)
						return host.Replace(b), err
					})
				srv := framework.NewServer(&mcp.Implementation{Name: "wg"}, nil)
				if err := srv.Use(host.New(host.Config{Interceptors: []host.Interceptor{record, upper}})); err != nil {
					t.Fatal(err)
				}
				if err := srv.Start(); err != nil {
					t.Fatal(err)
				}
				cfg := intercept.Config{Servers: []intercept.Server{{Name: "wg", Transport: host.InMemory(srv), Payload: tt.shape}}}
				var got outcome
				if side == "server" {
					got = callHookflowServer(t, cfg, `{"note":"hello"}`)
				} else {
					ch, err := intercept.NewChain(context.Background(), cfg)
					if err != nil {
						t.Fatal(err)
					}
					defer ch.Close()
					got = callThroughClient(t, ch, `{"note":"hello"}`)
				}
				if got != (outcome{final: tt.wantFinal}) {
					t.Errorf("%+v, want the tool to get %s", got, tt.wantFinal)
				}
				mu.Lock()
				defer mu.Unlock()
				if len(seen) != 1 || !sameJSON(withoutMeta(seen[0]), tt.wantSeen[side]) {
					t.Errorf("the validator got %q, want %s", seen, tt.wantSeen[side])
				}
			})
		}
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// withoutMeta returns payload without the _meta of its params (the
// protocol's request metadata).
func withoutMeta(payload string) string {
	var p map[string]any
	if json.Unmarshal([]byte(payload), &p) != nil {
		return payload
	}
	delete(p, "_meta")
	if params, ok := p["params"].(map[string]any); ok {
		delete(params, "_meta")
	}
	b, _ := json.Marshal(p)
	return string(b)
}
