package otel

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/otel/otelsetup"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Name is the plugin's name.
const Name = "otel"

// ScopeName is the instrumentation scope of the plugin's tracer and meter.
const ScopeName = "github.com/hookflow/hookflow/plugins/otel"

// Plugin is the OpenTelemetry plugin. Build it with [New]; when its
// Config names an Exporter, [Plugin.Close] it when the server stops.
type Plugin struct {
	cfg Config
	// built are the providers Config.Exporter built at Attach, stopped by
	// Close.
	built  *otelsetup.Providers
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
	run    flows.Key[*runTrace]
	m      instruments
	// prefix is the ID prefix of the plugin's own hooks, whose events
	// are not traced as hooks; set at Attach.
	prefix string
	// srv is the server the plugin is attached to, and traced the flows
	// it traces, by index; set at Attach.
	srv    *framework.Server
	traced [flows.Count]bool
	// mp is the meter provider the plugin reports to; set at Attach.
	mp metric.MeterProvider
}

// Plugin is a framework.Plugin and implements none of its optional
// interfaces: a method of the wrong shape fails to compile here.
var _ framework.Plugin = (*Plugin)(nil)

type instruments struct {
	operation  mcpconv.ServerOperationDuration
	hook       metric.Float64Histogram
	blocked    metric.Int64Counter
	failedOpen metric.Int64Counter
	rejected   metric.Int64Counter
}

// New returns the plugin configured by cfg.
func New(cfg Config) *Plugin {
	return &Plugin{cfg: cfg, run: flows.NewKey[*runTrace]("otel.run")}
}

// Name returns "otel".
func (p *Plugin) Name() string { return Name }

// Attach creates the tracer and the instruments, registers the hooks that
// open and close a run's span (the first beforeValidation hook and the
// last finally hook of every traced flow), the observer that records
// hooks and steps, and, attached to a server rather than an app, the SDK
// receiving middleware that records the requests answered with an error
// before any flow ran (see refusals).
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if err := p.cfg.Validate(); err != nil {
		return err
	}
	tp, mp := p.cfg.TracerProvider, p.cfg.MeterProvider
	if p.cfg.Exporter != "" && (tp == nil || mp == nil) && p.built == nil {
		built, err := p.cfg.export(context.Background())
		if err != nil {
			return err
		}
		p.built = built
	}
	if tp == nil && p.built != nil {
		tp = p.built.TracerProvider
	}
	if mp == nil && p.built != nil {
		mp = p.built.MeterProvider
	}
	if tp == nil {
		tp = otelapi.GetTracerProvider()
	}
	if mp == nil {
		mp = otelapi.GetMeterProvider()
	}
	p.prop = p.cfg.Propagator
	if p.prop == nil {
		p.prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	p.tracer = tp.Tracer(ScopeName)
	p.mp = mp
	if err := p.instruments(mp.Meter(ScopeName)); err != nil {
		return err
	}
	ids := p.cfg.Flows
	if ids == nil {
		for _, f := range flows.All() {
			ids = append(ids, f.ID)
		}
	}
	var hooks []flows.Hook
	for _, id := range ids {
		p.traced[id.Index()] = true
		hooks = append(hooks,
			flows.Hook{Flow: id, Stage: stages.BeforeValidation, Priority: priority.First, Name: "begin", Fn: p.begin},
			flows.Hook{Flow: id, Stage: stages.Finally, Priority: priority.Last, Name: "end", Fn: p.end},
		)
	}
	p.prefix = pc.Scope.Path() + "/"
	p.srv = pc.Server
	if err := pc.Hook(hooks...); err != nil {
		return err
	}
	if err := pc.Observe(p.observe); err != nil {
		return err
	}
	if pc.App == nil {
		// The requests the session answers before any flow runs are the
		// server's, not an app's.
		pc.Server.SDK().AddReceivingMiddleware(p.refusals)
	}
	return nil
}

// Close exports what is pending and stops the providers Config.Exporter
// built; ctx bounds how long that may take. It does nothing when the
// plugin uses providers it was given (or the global ones): their owner
// stops them. Call it once the server has stopped; spans that end after
// it are dropped.
func (p *Plugin) Close(ctx context.Context) error {
	if p.built == nil {
		return nil
	}
	return p.built.Shutdown(ctx)
}

// Metrics returns the handler that serves the plugin's metrics in the
// Prometheus text format once Attach has built the prometheus exporter's
// providers; nil before Attach and for the other exporters.
func (p *Plugin) Metrics() http.Handler {
	if p.built == nil {
		return nil
	}
	return p.built.Metrics
}

// MeterProvider returns the meter provider the plugin reports to once
// it is attached (nil before): a program adds its own instruments to it,
// so that they are exported, or served by Metrics, with the plugin's.
func (p *Plugin) MeterProvider() metric.MeterProvider { return p.mp }

// The bucket boundaries of the duration histograms, in seconds; the
// SDK's default ones (0, 5, 10, … 10000) suit milliseconds, and would put
// every call and hook in the first. A run's are those the semantic
// conventions advise for MCP, with a millisecond's below them (calls
// through a gateway on one host take that); a hook's go down to ten
// microseconds (in-process hooks take that).
var (
	operationBuckets = []float64{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
	hookBuckets      = []float64{0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30}
)

func (p *Plugin) instruments(m metric.Meter) error {
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var err error
	p.m.operation, err = mcpconv.NewServerOperationDuration(m, metric.WithExplicitBucketBoundaries(operationBuckets...))
	add(err)
	p.m.hook, err = m.Float64Histogram("hookflow.hook.duration", metric.WithUnit("s"),
		metric.WithDescription("How long one hook call took, per hook, stage and outcome."),
		metric.WithExplicitBucketBoundaries(hookBuckets...))
	add(err)
	p.m.blocked, err = m.Int64Counter("hookflow.run.blocked", metric.WithUnit("{run}"),
		metric.WithDescription("Runs a hook blocked, per flow and deciding hook."))
	add(err)
	p.m.failedOpen, err = m.Int64Counter("hookflow.hook.failed_open", metric.WithUnit("{failure}"),
		metric.WithDescription("Failures of fail-open hooks, which did not change the run, per hook and code."))
	add(err)
	p.m.rejected, err = m.Int64Counter("hookflow.ratelimit.rejections", metric.WithUnit("{call}"),
		metric.WithDescription("Calls a budget refused (error code limited, as the ratelimit plugin's), per flow and tool."))
	add(err)
	if p.cfg.AuditDropped != nil {
		dropped := p.cfg.AuditDropped
		_, err = m.Int64ObservableCounter("hookflow.audit.dropped", metric.WithUnit("{event}"),
			metric.WithDescription("Audit events the audit plugin dropped (queue full, sink failures)."),
			metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
				o.Observe(int64(dropped()))
				return nil
			}))
		add(err)
	}
	return errors.Join(errs...)
}

// runTrace is what the plugin keeps for one run: its span, the context
// carrying it, and where the next hook's span starts.
type runTrace struct {
	span  trace.Span
	ctx   context.Context
	start time.Time
	last  time.Time
	ended bool
	// answered and recovered say that a hook answered before execute, or
	// in onError.
	answered, recovered bool
}

// metaCarrier reads a request's params._meta as a propagation carrier.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// meta returns the request's params._meta, or nil. A request sent
// without params (a list, a ping) holds a nil pointer of its params type,
// whose GetMeta dereferences it.
func meta(r *flows.Request) map[string]any {
	if r == nil || r.SDK == nil {
		return nil
	}
	params := r.SDK.GetParams()
	if params == nil {
		return nil
	}
	if v := reflect.ValueOf(params); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return params.GetMeta()
}

// begin opens the run's span, as the first hook of beforeValidation.
func (p *Plugin) begin(c *flows.Context) error {
	p.open(c, time.Now())
	return nil
}

// open starts the run's span at start, stores it in the run's state and
// makes the run's Go context carry it.
func (p *Plugin) open(c *flows.Context, start time.Time) *runTrace {
	ambient := c.Context()
	if w, _ := ambient.Value(watchKey{}).(*watch); w != nil {
		w.ran.Store(true)
	}
	parent := ambient
	var links []trace.Link
	if m := meta(c.Request()); m != nil {
		parent = p.prop.Extract(ambient, metaCarrier(m))
		if sc := trace.SpanContextFromContext(ambient); sc.IsValid() && !sc.Equal(trace.SpanContextFromContext(parent)) {
			links = append(links, trace.Link{SpanContext: sc})
		}
	}
	r := c.Request()
	method := r.Method
	if method == "" {
		method = methodOf(c.Flow())
	}
	name := method
	attrs := []attribute.KeyValue{
		attribute.String("mcp.method.name", method),
		attribute.String("hookflow.flow", string(c.Flow())),
		attribute.String("hookflow.request.id", r.ID),
	}
	if r.SessionID != "" {
		attrs = append(attrs, attribute.String("mcp.session.id", r.SessionID))
	}
	if r.ProtocolVersion != "" {
		attrs = append(attrs, attribute.String("mcp.protocol.version", r.ProtocolVersion))
	}
	attrs = p.network(attrs, r.SDK)
	attrs = p.call(attrs, r.SDK)
	if e := c.Entity(); e != nil {
		switch e.Kind {
		case flows.EntityTool:
			name += " " + e.Name
			attrs = append(attrs, semconv.GenAIToolName(e.Name), semconv.GenAIOperationNameExecuteTool)
		case flows.EntityPrompt:
			name += " " + e.Name
			attrs = append(attrs, semconv.GenAIPromptName(e.Name))
		}
	}
	if rr, ok := r.SDK.(*mcp.ReadResourceRequest); ok && rr.Params != nil {
		attrs = append(attrs, attribute.String("mcp.resource.uri", rr.Params.URI))
	}
	_, span := p.tracer.Start(parent, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start),
		trace.WithAttributes(attrs...), trace.WithLinks(links...))
	rt := &runTrace{span: span, start: start, last: time.Now()}
	p.run.Set(c, rt)
	// The run's context carries the span from now on: derived from the
	// run's own, so the request's cancellation still reaches it.
	rt.ctx = trace.ContextWithSpan(ambient, span)
	c.SetContext(rt.ctx)
	return rt
}

// methodOf returns the MCP method of flow.
func methodOf(flow flows.ID) string {
	if i := flow.Index(); i >= 0 {
		return flows.All()[i].Method
	}
	return string(flow)
}

// observe records a hook or step as a child span of the run, from where
// the previous one ended to now.
func (p *Plugin) observe(ev *flows.Event) {
	c := ev.Context
	if c == nil {
		return
	}
	rt, _ := p.run.Get(c)
	if rt == nil || rt.ended {
		return
	}
	now := time.Now()
	start := rt.last
	rt.last = now
	if ev.Outcome == "respond" {
		switch ev.Stage {
		case stages.OnError:
			rt.recovered = true
		case stages.BeforeValidation, stages.AfterValidation, stages.BeforeExecute:
			rt.answered = true
		}
	}
	if ev.Hook != "" && strings.HasPrefix(ev.Hook, p.prefix) {
		return // the plugin's own hooks
	}
	var name string
	attrs := []attribute.KeyValue{attribute.String("hookflow.outcome", ev.Outcome)}
	if ev.Hook != "" {
		name = ev.Stage.String() + " " + ev.Hook
		attrs = append(attrs, attribute.String("hookflow.stage", ev.Stage.String()),
			attribute.String("hookflow.hook.id", ev.Hook), attribute.String("hookflow.hook.owner", owner(ev.Hook, ev.Flow, ev.Stage)))
		p.m.hook.Record(rt.ctx, now.Sub(start).Seconds(), metric.WithAttributes(attrs...))
		if ev.Outcome == "failed-open" {
			p.m.failedOpen.Add(rt.ctx, 1, metric.WithAttributes(attribute.String("hookflow.hook.id", ev.Hook),
				attribute.String("hookflow.error.code", flows.CodeOf(ev.Err).String())))
		}
	} else {
		name = ev.Step
		attrs = append(attrs, attribute.String("hookflow.step", ev.Step))
	}
	_, span := p.tracer.Start(rt.ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(start), trace.WithAttributes(attrs...))
	if ev.Err != nil {
		switch ev.Outcome {
		case "failed-open", "canceled":
			span.AddEvent(ev.Outcome, trace.WithAttributes(attribute.String("hookflow.reason", flows.Reason(ev.Err))))
		default:
			span.SetStatus(codes.Error, flows.Reason(ev.Err))
		}
		if code := flows.CodeOf(ev.Err); code != flows.CodeUnknown {
			span.SetAttributes(attribute.String("hookflow.error.code", code.String()))
		}
	}
	span.End(trace.WithTimestamp(now))
}

// owner returns the owner part of a hook ID: what precedes
// "/<flow>/<stage>/".
func owner(id string, flow flows.ID, st stages.Stage) string {
	if i := strings.Index(id, "/"+string(flow)+"/"+st.String()+"/"); i >= 0 {
		return id[:i]
	}
	return ""
}

// end closes the run's span with its outcome, as the last finally hook,
// and records the run's metrics.
func (p *Plugin) end(c *flows.Context) error {
	rt, _ := p.run.Get(c)
	if rt == nil {
		// Cancelled before the first hook: the run still gets its span.
		rt = p.open(c, time.Now())
	}
	rt.ended = true
	now := time.Now()
	out := outcomeOf(c, rt)
	attrs := []attribute.KeyValue{attribute.String("hookflow.outcome", out)}
	if by := c.DecidedBy(); by != "" {
		attrs = append(attrs, attribute.String("hookflow.decided_by", by))
	}
	errType, status := errorType(c)
	if errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
	}
	if status != "" {
		attrs = append(attrs, semconv.RPCResponseStatusCode(status))
	}
	if err := c.Err(); err != nil {
		if code := flows.CodeOf(err); code != flows.CodeUnknown {
			attrs = append(attrs, attribute.String("hookflow.error.code", code.String()))
		}
		rt.span.SetStatus(codes.Error, flows.Reason(err))
	} else if errType != "" {
		rt.span.SetStatus(codes.Error, errType)
	}
	for _, f := range c.Failures() {
		var fe *flows.Error
		if errors.As(f, &fe) {
			rt.span.AddEvent("hook failed open", trace.WithTimestamp(now), trace.WithAttributes(
				attribute.String("hookflow.hook.id", fe.Hook), attribute.String("hookflow.error.code", fe.Code.String())))
		}
	}
	rt.span.SetAttributes(attrs...)
	rt.span.End(trace.WithTimestamp(now))

	r := c.Request()
	method := r.Method
	if method == "" {
		method = methodOf(c.Flow())
	}
	mattrs := []attribute.KeyValue{attribute.String("hookflow.flow", string(c.Flow())), attribute.String("hookflow.outcome", out)}
	if errType != "" {
		mattrs = append(mattrs, semconv.ErrorTypeKey.String(errType))
	}
	mattrs = p.network(mattrs, r.SDK)
	tool := ""
	if e := c.Entity(); e != nil {
		switch e.Kind {
		case flows.EntityTool:
			tool = e.Name
			mattrs = append(mattrs, semconv.GenAIToolName(e.Name))
		case flows.EntityPrompt:
			mattrs = append(mattrs, semconv.GenAIPromptName(e.Name))
		}
		// A gateway's entity names its upstream (its Value is one
		// without the plugin importing the gateway).
		if u, ok := e.Value.(interface{ UpstreamName() string }); ok {
			mattrs = append(mattrs, attribute.String("hookflow.upstream", u.UpstreamName()))
		}
	}
	p.m.operation.Record(rt.ctx, now.Sub(rt.start).Seconds(), mcpconv.MethodNameAttr(method), mattrs...)
	if out == "blocked" {
		p.m.blocked.Add(rt.ctx, 1, metric.WithAttributes(attribute.String("hookflow.flow", string(c.Flow())),
			attribute.String("hookflow.decided_by", c.DecidedBy())))
	}
	if flows.CodeOf(c.Err()) == flows.CodeLimited {
		p.m.rejected.Add(rt.ctx, 1, metric.WithAttributes(attribute.String("hookflow.flow", string(c.Flow())), semconv.GenAIToolName(tool)))
	}
	return nil
}

// outcomeOf classifies a finished run as the audit plugin does: ok,
// blocked (a hook refused it, CodeAborted, or a budget did, CodeLimited),
// failed, answered_early (a hook answered before execute) or recovered (an
// onError hook answered).
func outcomeOf(c *flows.Context, rt *runTrace) string {
	err := c.Err()
	switch {
	case err != nil:
		if code := flows.CodeOf(err); c.DecidedBy() != "" && (code == flows.CodeAborted || code == flows.CodeLimited) {
			return "blocked"
		}
		return "failed"
	case rt.recovered:
		return "recovered"
	case isError(c.Output()):
		return "failed"
	case rt.answered:
		return "answered_early"
	}
	return "ok"
}

func isError(out any) bool {
	res, ok := out.(*mcp.CallToolResult)
	return ok && res != nil && res.IsError
}

// errorType returns the run's error.type and rpc.response.status_code:
// the JSON-RPC code of a protocol error, "tool_error" for a tool call
// whose result is isError (a failed tools/call reaches the model as one),
// else hookflow's error code; "" when the run succeeded.
func errorType(c *flows.Context) (errType, status string) {
	err := c.Err()
	if err == nil {
		if isError(c.Output()) {
			return "tool_error", ""
		}
		return "", ""
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		code := strconv.FormatInt(wire.Code, 10)
		return code, code
	}
	if c.Flow() == flows.ToolsCallTool {
		return "tool_error", ""
	}
	return flows.CodeOf(err).String(), ""
}
