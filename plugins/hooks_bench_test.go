package plugins_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/cache"
	"github.com/hookflow/hookflow/plugins/policy"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

// hookRig runs tools:call-tool through the compiled plan of a started
// server with plugins, on the server's runner, without transport or SDK:
// what the plugins' hooks cost a call, and nothing else. Its steps stand
// in for the framework's: validate hands on the canonical arguments the
// rig was given, execute answers a benchOut.
type hookRig struct {
	srv    *framework.Server
	runner *flows.Runner
	plan   *flows.Plan
	req    *flows.Request
	entity *flows.Entity
	// args are distinct canonical arguments, cycled through by miss runs;
	// more than the cache holds, so that each run misses and evicts.
	args []json.RawMessage
}

// greetSteps validates by handing on the raw arguments (the rig's are
// canonical already) and executes by greeting.
type greetSteps struct{}

func (greetSteps) Validate(c *flows.Context) (any, json.RawMessage, error) {
	raw, _ := c.Input().(json.RawMessage)
	return benchIn{Name: "bench"}, raw, nil
}

func (greetSteps) Execute(*flows.Context) (any, error) { return benchOut{Msg: "hello bench"}, nil }

func newHookRig(tb testing.TB, plugins ...framework.Plugin) *hookRig {
	tb.Helper()
	srv := framework.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	if err := srv.Use(plugins...); err != nil {
		tb.Fatal(err)
	}
	tool := &mcp.Tool{Name: "greet", Description: "greets", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
	if err := framework.AddToolFunc(srv, tool, func(_ context.Context, _ *mcp.CallToolRequest, in benchIn) (benchOut, error) {
		return benchOut{Msg: "hello " + in.Name}, nil
	}); err != nil {
		tb.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		tb.Fatal(err)
	}
	info, ok := srv.Tool("greet")
	if !ok {
		tb.Fatal("no tool greet")
	}
	e := &flows.Entity{Kind: flows.EntityTool, Name: "greet", Tool: info.Tool, Scopes: info.Scopes,
		In: reflect.TypeFor[benchIn](), Out: reflect.TypeFor[benchOut]()}
	rig := &hookRig{
		srv:    srv,
		runner: srv.Runner(),
		plan:   srv.Scope().Plan(flows.ToolsCallTool, e, nil).Load(),
		entity: e,
		req: &flows.Request{ID: "req-1", Method: "tools/call", SessionID: "sess-1",
			TokenInfo: &sdkauth.TokenInfo{UserID: "ann", Scopes: []string{"mcp"}, Expiration: time.Now().Add(time.Hour)}},
	}
	for i := range 4 * cache.DefaultMaxEntries {
		rig.args = append(rig.args, json.RawMessage(`{"n":`+strconv.Itoa(i)+`,"name":"bench"}`))
	}
	return rig
}

// run runs one call with the arguments args.
func (r *hookRig) run(tb testing.TB, args json.RawMessage) {
	out, err := r.runner.Run(context.Background(), flows.Run{Flow: flows.ToolsCallTool, Entity: r.entity,
		Request: r.req, Input: args, Arguments: args, Plan: r.plan, Steps: greetSteps{}})
	if err != nil {
		tb.Fatal(err)
	}
	if _, ok := out.(benchOut); !ok {
		tb.Fatalf("output %T, want benchOut", out)
	}
}

// hookCase is one plugin configuration of the hook-level benchmarks: its
// plugins, and whether every run has new arguments (a cache miss) or the
// same (a hit after the first).
type hookCase struct {
	name    string
	plugins func(tb testing.TB) []framework.Plugin
	miss    bool
	// allocs is the exact allocation count of one run, checked by
	// TestHookAllocs; with atMost, the most it may be (CEL's evaluation
	// with cost tracking pools some of its state, so that a run
	// allocates one less now and then).
	allocs float64
	atMost bool
}

// hookCases are the configurations of the hook-level benchmarks; the
// audit plugin writes to sink.
func hookCases(sink slog.Handler) []hookCase {
	newAudit := func(tb testing.TB) framework.Plugin {
		a := audit.New(audit.Config{Handler: sink})
		tb.Cleanup(func() { _ = a.Close(context.Background()) })
		return a
	}
	newAuth := func(testing.TB) framework.Plugin {
		return auth.New(auth.Config{Verifier: verifier, Scopes: []string{"mcp"}, ScopeChallenge: true})
	}
	newLimit := func(testing.TB) framework.Plugin {
		return ratelimit.New(ratelimit.Config{PerPrincipal: ratelimit.Limit{Rate: 1e9, Burst: 1 << 30}})
	}
	newCache := func(testing.TB) framework.Plugin { return cache.New(cache.Config{TTL: time.Hour}) }
	newPolicy := func(testing.TB) framework.Plugin {
		return policy.New(policy.Config{Rules: []policy.Rule{
			{Name: "writes", When: `!entity.annotations.readOnlyHint`, Allow: `"admin" in principal.scopes`},
			{Name: "staff", When: `entity.name.startsWith("gr")`, Allow: `principal.user != "mallory"`},
		}})
	}
	newPolicyArgs := func(testing.TB) framework.Plugin {
		return policy.New(policy.Config{Rules: []policy.Rule{
			{Name: "names", When: `entity.name == "greet"`, Allow: `args.name.size() < 64`},
		}})
	}
	one := func(f func(testing.TB) framework.Plugin) func(testing.TB) []framework.Plugin {
		return func(tb testing.TB) []framework.Plugin { return []framework.Plugin{f(tb)} }
	}
	return []hookCase{
		{name: "none", plugins: func(testing.TB) []framework.Plugin { return nil }, miss: true, allocs: 1},
		{name: "auth", plugins: one(newAuth), miss: true, allocs: 1},
		{name: "ratelimit", plugins: one(newLimit), miss: true, allocs: 3},
		{name: "cache-miss", plugins: one(newCache), miss: true, allocs: 6},
		{name: "cache-hit", plugins: one(newCache), allocs: 10},
		{name: "audit", plugins: one(newAudit), miss: true, allocs: 1},
		{name: "policy", plugins: one(newPolicy), miss: true, allocs: 12},
		{name: "policy-args", plugins: one(newPolicyArgs), miss: true, allocs: 33, atMost: true},
		{name: "all", plugins: func(tb testing.TB) []framework.Plugin {
			return []framework.Plugin{newAuth(tb), newLimit(tb), newCache(tb), newAudit(tb)}
		}, miss: true, allocs: 7},
	}
}

// BenchmarkHooks measures what each first-party plugin's hooks cost one
// tools/call, run on the server's compiled plan without transport: "none"
// is the runner alone, the others add one plugin (the cache missing and
// storing every call, or hitting), "all" the four. The audit plugin's
// writer runs on its own goroutine meanwhile (BenchmarkAuditWrite in its
// package measures it).
func BenchmarkHooks(b *testing.B) {
	for _, hc := range hookCases(slog.NewJSONHandler(io.Discard, nil)) {
		b.Run(hc.name, func(b *testing.B) {
			rig := newHookRig(b, hc.plugins(b)...)
			rig.run(b, rig.args[0])
			runtime.GC()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if hc.miss {
					i++
				}
				rig.run(b, rig.args[i%len(rig.args)])
			}
		})
	}
}

// TestHookAllocs holds each plugin's hooks to their allocation count per
// call. The audit plugin's sink is off (its writer allocates nothing), as
// AllocsPerRun counts every goroutine's allocations: what is counted is
// the request's path. Each run yields, so that the writer keeps up as it
// does on a server with a spare core.
func TestHookAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	quiet := slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError})
	for _, hc := range hookCases(quiet) {
		t.Run(hc.name, func(t *testing.T) {
			rig := newHookRig(t, hc.plugins(t)...)
			rig.run(t, rig.args[0])
			i := 0
			got := testing.AllocsPerRun(1000, func() {
				if hc.miss {
					i++
				}
				rig.run(t, rig.args[i%len(rig.args)])
				runtime.Gosched() // the audit writer recycles the run's item
			})
			if got != hc.allocs && !(hc.atMost && got <= hc.allocs) {
				t.Errorf("%s: %v allocations a call, want %v", hc.name, got, hc.allocs)
			}
		})
	}
}
