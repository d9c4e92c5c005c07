package otel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

// watch is the context a request the refusals middleware watches goes on
// with: open marks it when the request's run begins, so that a request
// whose run ended in an error is not recorded a second time as refused.
type watch struct {
	context.Context
	ran atomic.Bool
}

type watchKey struct{}

// Value returns the watch itself for watchKey, else what its parent holds.
func (w *watch) Value(key any) any {
	if key == (watchKey{}) {
		return w
	}
	return w.Context.Value(key)
}

// refusals is the SDK receiving middleware, outside hookflow's own, that
// gives a span and a duration record to a request answered with an error
// before any traced flow ran for it: an unknown or hidden tool, prompt or
// resource, a second initialize, a method the SDK answers itself. Requests
// of untraced flows and notifications (which get no answer) pass through
// untouched; the others cost one allocation, the watch.
func (p *Plugin) refusals(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if flow, ok := flows.ForMethod(method); ok && !p.traced[flow.Index()] || strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		w := &watch{Context: ctx}
		start := time.Now()
		res, err := next(w, method, req)
		if err != nil && !w.ran.Load() {
			p.refused(ctx, start, method, req, err)
		}
		return res, err
	}
}

// refused records a request answered with err before any flow ran: a
// SERVER span named like a run's, with the error's JSON-RPC code as
// error.type and rpc.response.status_code, and a duration record.
func (p *Plugin) refused(ctx context.Context, start time.Time, method string, req mcp.Request, err error) {
	now := time.Now()
	errType, status := "_OTHER", ""
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Code != 0 {
		errType = strconv.FormatInt(wire.Code, 10)
		status = errType
	}
	name := method
	attrs := []attribute.KeyValue{
		attribute.String("mcp.method.name", method),
		attribute.String("hookflow.outcome", "refused"),
		semconv.ErrorTypeKey.String(errType),
	}
	if status != "" {
		attrs = append(attrs, semconv.RPCResponseStatusCode(status))
	}
	if req != nil {
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.ID() != "" {
			attrs = append(attrs, attribute.String("mcp.session.id", ss.ID()))
		}
		if v, ok := req.(interface{ ProtocolVersion() string }); ok && v.ProtocolVersion() != "" {
			attrs = append(attrs, attribute.String("mcp.protocol.version", v.ProtocolVersion()))
		}
	}
	attrs = p.network(attrs, req)
	attrs = p.call(attrs, req)
	var meta map[string]any
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		if r.Params != nil {
			name += " " + r.Params.Name
			meta = r.Params.Meta
			attrs = append(attrs, semconv.GenAIToolName(r.Params.Name), semconv.GenAIOperationNameExecuteTool)
		}
	case *mcp.GetPromptRequest:
		if r.Params != nil {
			name += " " + r.Params.Name
			meta = r.Params.Meta
			attrs = append(attrs, semconv.GenAIPromptName(r.Params.Name))
		}
	case *mcp.ReadResourceRequest:
		if r.Params != nil {
			meta = r.Params.Meta
			attrs = append(attrs, attribute.String("mcp.resource.uri", r.Params.URI))
		}
	}
	parent := ctx
	var links []trace.Link
	if meta != nil {
		parent = p.prop.Extract(ctx, metaCarrier(meta))
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() && !sc.Equal(trace.SpanContextFromContext(parent)) {
			links = append(links, trace.Link{SpanContext: sc})
		}
	}
	spanCtx, span := p.tracer.Start(parent, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start),
		trace.WithAttributes(attrs...), trace.WithLinks(links...))
	span.SetStatus(codes.Error, err.Error())
	span.End(trace.WithTimestamp(now))
	// The metric has the span's attributes but the method, given apart,
	// and the high-cardinality ones.
	mattrs := attrs[:0:0]
	for _, a := range attrs {
		switch a.Key {
		case "mcp.method.name", "mcp.session.id", "mcp.resource.uri", "jsonrpc.request.id", "client.address", "client.port":
		default:
			mattrs = append(mattrs, a)
		}
	}
	p.m.operation.Record(spanCtx, now.Sub(start).Seconds(), mcpconv.MethodNameAttr(method), mattrs...)
}

// network appends the network.transport and network.protocol.name of the
// transport req came over, when the server knows it.
func (p *Plugin) network(attrs []attribute.KeyValue, req mcp.Request) []attribute.KeyValue {
	switch p.srv.TransportOf(req) {
	case framework.TransportHTTP:
		return append(attrs, semconv.NetworkTransportTCP, semconv.NetworkProtocolName("http"))
	case framework.TransportPipe:
		return append(attrs, semconv.NetworkTransportPipe)
	}
	return attrs
}

// call appends, for a span, the jsonrpc.request.id, client.address and
// client.port of req when the server knows them (over hookflow's HTTP
// transport); metrics leave them out, one value per request or client.
func (p *Plugin) call(attrs []attribute.KeyValue, req mcp.Request) []attribute.KeyValue {
	id, client, port, ok := p.srv.CallOf(req)
	if !ok {
		return attrs
	}
	attrs = append(attrs, semconv.JSONRPCRequestID(fmt.Sprint(id.Raw())), semconv.ClientAddress(client))
	if n, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, semconv.ClientPort(n))
	}
	return attrs
}
