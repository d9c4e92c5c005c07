package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/stages"
)

// demoCall is one tool call the demo makes.
type demoCall struct {
	App   string // the app the tool belongs to, for the printout
	Tool  string
	Args  map[string]any
	About string // what the call shows
}

// demoCalls are the calls of the demo, in order.
var demoCalls = []demoCall{
	{"billing", "invoice_total", map[string]any{"invoice": "INV-1001"}, "read-only, audited"},
	{"billing", "refund", map[string]any{"invoice": "INV-1001", "amount_cents": 2500, "reason": "damaged in transit"}, "destructive, audited"},
	{"billing", "invoice_total", map[string]any{"invoice": "INV-1001"}, "read-only but billing has no cache: executes again and sees the refund"},
	{"billing", "refund", map[string]any{"invoice": "INV-1001", "amount_cents": 50000}, "blocked by the tool's own hook; the audit records who decided"},
	{"catalog", "search", map[string]any{"query": "mug"}, "read-only and idempotent: executes, the cache stores the result; no audit"},
	{"catalog", "search", map[string]any{"query": "mug"}, "the same search: answered early by the cache, execute skipped"},
	{"catalog", "price", map[string]any{"sku": "MUG-1"}, "not annotated: the cache looks and lets it through"},
}

// traceEvent is a copy of a flows.Event (which is only valid during the
// observer call).
type traceEvent struct {
	Flow    flows.ID
	Stage   stages.Stage
	Hook    string // hook ID, or "" for a step
	Step    string
	Outcome string
}

// owner returns the owner part of a hook ID, "<owner>/<flow>/<stage>/<name>":
// a scope path (shop, shop/app:billing/plugin:audit) or, for an embedded
// hook, the entity's Go type.
func (e traceEvent) owner() string {
	owner, _, _ := strings.Cut(e.Hook, "/"+string(e.Flow)+"/")
	return owner
}

// short shortens an embedded hook's owner, a Go type such as
// github.com/hookflow/hookflow/examples/apps/billing.Refund, to
// "billing.Refund (embedded)"; scope paths are returned as they are.
func short(owner string) string {
	if strings.Contains(owner, ":") || !strings.Contains(owner, ".") {
		return owner // a scope path: shop, shop/app:billing/plugin:audit
	}
	return owner[strings.LastIndexByte(owner, '/')+1:] + " (embedded)"
}

// name returns the hook's name, the last part of its ID.
func (e traceEvent) name() string { return e.Hook[strings.LastIndexByte(e.Hook, '/')+1:] }

// callReport is what the demo saw for one call.
type callReport struct {
	demoCall
	Trace   []traceEvent // the tools:call-tool run's hooks and steps, in order
	Audit   []auditRecord
	Result  string // the result's text
	IsError bool
	Err     error // a protocol error
}

// Hooks returns the IDs of the hooks that ran, in order.
func (r *callReport) Hooks() []string {
	var ids []string
	for _, e := range r.Trace {
		if e.Hook != "" {
			ids = append(ids, e.Hook)
		}
	}
	return ids
}

// Owners returns how many hook calls each owner made, and the owners in
// the order they first ran.
func (r *callReport) Owners() (counts map[string]int, order []string) {
	counts = map[string]int{}
	for _, e := range r.Trace {
		if e.Hook == "" {
			continue
		}
		o := e.owner()
		if counts[o] == 0 {
			order = append(order, o)
		}
		counts[o]++
	}
	return counts, order
}

// Executed reports whether the tool's execute step ran.
func (r *callReport) Executed() bool {
	return slices.ContainsFunc(r.Trace, func(e traceEvent) bool { return e.Step == "execute" })
}

// demoResult is what the whole demo saw.
type demoResult struct {
	Calls        []*callReport
	CallsCounted int64 // the server-level counter
	AuditWritten uint64
	AuditDropped uint64
	CacheHits    uint64
	CacheMisses  uint64
	CacheStores  uint64
}

// demo builds the shop, connects an in-process client and makes the demo
// calls one at a time, recording for each the hooks that ran and the audit
// events it produced.
func demo(ctx context.Context) (*demoResult, error) {
	var mu sync.Mutex
	var trace []traceEvent
	observer := func(ev *flows.Event) {
		if ev.Flow != flows.ToolsCallTool {
			return
		}
		mu.Lock()
		trace = append(trace, traceEvent{Flow: ev.Flow, Stage: ev.Stage, Hook: ev.Hook, Step: ev.Step, Outcome: ev.Outcome})
		mu.Unlock()
	}
	events := &auditLog{}
	s, err := newShop(shopOptions{Observer: observer, AuditHandler: events})
	if err != nil {
		return nil, err
	}
	defer s.Audit.Close(context.Background())

	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo-client", Version: "0.1.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()

	out := &demoResult{}
	for _, call := range demoCalls {
		mu.Lock()
		trace = nil
		mu.Unlock()
		events.take()

		r := &callReport{demoCall: call}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.Tool, Arguments: call.Args})
		switch {
		case err != nil:
			r.Err = err
		default:
			r.IsError = res.IsError
			r.Result = text(res.Content)
		}
		// The audit writes on its own goroutine: wait for this call's event.
		if err := s.Audit.Flush(ctx); err != nil {
			return nil, err
		}
		mu.Lock()
		r.Trace = trace
		trace = nil
		mu.Unlock()
		r.Audit = events.take()
		out.Calls = append(out.Calls, r)
	}
	out.CallsCounted = s.Calls.Load()
	out.AuditWritten, out.AuditDropped = s.Audit.Written(), s.Audit.Dropped()
	st2 := s.Cache.Stats()
	out.CacheHits, out.CacheMisses, out.CacheStores = st2.Hits, st2.Misses, st2.Stores
	return out, nil
}

// runDemo runs the demo and prints, for every call, the hooks that ran
// (stage, owner, name), the result and the audit events.
func runDemo(ctx context.Context, w io.Writer) error {
	res, err := demo(ctx)
	if err != nil {
		return err
	}
	fmt.Fprint(w, `server "shop"   hook count                          runs for every app's tools
app billing     invoice_total (read-only), refund   + plugin audit: runs for billing's tools only
app catalog     search (read-only), price           + plugin cache: runs for catalog's tools only

`)
	for i, r := range res.Calls {
		args, _ := json.Marshal(r.Args)
		fmt.Fprintf(w, "== %d. %s: %s %s\n   (%s)\n", i+1, r.App, r.Tool, args, r.About)
		for _, e := range r.Trace {
			if e.Hook == "" {
				fmt.Fprintf(w, "    %-8s (%s)\n", e.Outcome, e.Step)
			} else {
				fmt.Fprintf(w, "    %-8s %-17s %-30s %s\n", e.Outcome, e.Stage, short(e.owner()), e.name())
			}
		}
		switch {
		case r.Err != nil:
			fmt.Fprintf(w, "  protocol error: %v\n", r.Err)
		case r.IsError:
			fmt.Fprintf(w, "  isError result: %s\n", r.Result)
		default:
			fmt.Fprintf(w, "  result: %s\n", r.Result)
		}
		counts, order := r.Owners()
		parts := make([]string, len(order))
		for i, o := range order {
			parts[i] = fmt.Sprintf("%s ×%d", short(o), counts[o])
		}
		fmt.Fprintf(w, "  hooks by owner: %s\n", strings.Join(parts, ", "))
		if len(r.Audit) == 0 {
			fmt.Fprintln(w, "  audit: (no event)")
		}
		for _, a := range r.Audit {
			fmt.Fprintf(w, "  audit: %s\n", a)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "== totals")
	fmt.Fprintf(w, "  server hook count (shop):      %d tool calls, both apps\n", res.CallsCounted)
	fmt.Fprintf(w, "  audit (app billing only):      %d events written, %d dropped\n", res.AuditWritten, res.AuditDropped)
	fmt.Fprintf(w, "  cache (app catalog only):      %d hit, %d miss, %d stored\n", res.CacheHits, res.CacheMisses, res.CacheStores)
	return nil
}

func text(cs []mcp.Content) string {
	var parts []string
	for _, c := range cs {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

// auditRecord is one audit event as the slog handler received it: its
// attributes by key (args as JSON).
type auditRecord map[string]string

// String prints the attributes that do not change from run to run (no
// time, request ID or duration).
func (a auditRecord) String() string {
	var parts []string
	for _, k := range []string{"flow", "entity", "outcome", "decided_by", "error", "args"} {
		if v, ok := a[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// auditLog is a slog.Handler that keeps the audit events it receives, for
// the demo to print after each call. The audit plugin calls it from its
// writer goroutine; take is called by the demo.
type auditLog struct {
	mu      sync.Mutex
	records []auditRecord
}

func (l *auditLog) Enabled(context.Context, slog.Level) bool { return true }

func (l *auditLog) Handle(_ context.Context, r slog.Record) error {
	rec := auditRecord{}
	r.Attrs(func(a slog.Attr) bool {
		if raw, ok := a.Value.Any().(json.RawMessage); ok {
			rec[a.Key] = string(raw)
		} else {
			rec[a.Key] = a.Value.String()
		}
		return true
	})
	l.mu.Lock()
	l.records = append(l.records, rec)
	l.mu.Unlock()
	return nil
}

// The audit plugin hands records to the handler as they are: no groups or
// pre-set attributes to keep.
func (l *auditLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *auditLog) WithGroup(string) slog.Handler      { return l }

// take returns the records received since the last take.
func (l *auditLog) take() []auditRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.records
	l.records = nil
	return r
}
