package upstream

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Relay passes on to a client session what its upstream session sends
// about the calls through it: progress (to the client session of the
// call, with its own progress token), log messages and the completions
// of URL-mode elicitations (through the client session's queue), and
// the upstream's sampling, elicitation and roots requests, which the
// client session answers, on the stream of the call they are about. Its
// methods are the handlers of the upstream session's SDK client. It
// must not be copied.
type Relay struct {
	// Session is the client session of the upstream session, nil for
	// the gateway's own (whose calls' progress still reaches them).
	Session *mcp.ServerSession
	// Calls are the calls in flight through the upstream session.
	Calls Calls
	// Out queues the notifications to client sessions; Dropped counts
	// those of the upstream it dropped.
	Out     *Queues
	Dropped *atomic.Uint64
	// Log is the upstream's log.
	Log *slog.Logger
	// Related takes from a request's parameters the key of the call it
	// is about, which an HTTP upstream's messages are marked with (see
	// package gateway's related.go).
	Related func(mcp.Params) (key string, ok bool)
}

// routeCtx returns the context to send a request to the client with,
// cancelled when ctx (the upstream's request's) is: call k's (which
// routes it to that call's stream over HTTP), cancelled also when that
// call ends when bound is set; ctx's alone when k is nil. A request bound
// to a call is about it (sampling, elicitation); a roots/list is often
// about no call (the upstream lists roots when they changed) and must
// outlive the call in flight.
func (r *Relay) routeCtx(ctx context.Context, k *Call, bound bool) (context.Context, context.CancelFunc) {
	if k == nil {
		return context.WithCancel(ctx)
	}
	base := k.Ctx
	if !bound {
		base = context.WithoutCancel(base)
	}
	rctx, cancel := context.WithCancel(base)
	stop := context.AfterFunc(ctx, cancel)
	return rctx, func() { stop(); cancel() }
}

// Progress sends an upstream progress notification on to the client
// whose call it is about, with the client's own token.
func (r *Relay) Progress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	key, _ := req.Params.ProgressToken.(string)
	k := r.Calls.Get(key)
	if k == nil {
		return
	}
	if k.Progressed != nil {
		k.Progressed()
	}
	if k.Token == nil || k.Session == nil {
		return
	}
	p := *req.Params
	p.ProgressToken = k.Token
	ctx, ss := context.WithoutCancel(k.Ctx), k.Session
	r.Out.Push(ss, Item{Dropped: r.Dropped, Send: func() { _ = ss.NotifyProgress(ctx, &p) }})
}

// LogMessage sends an upstream log message on to the client, on the
// newest call's stream (the message may be handled after that call
// ended: it is sent all the same).
func (r *Relay) LogMessage(ctx context.Context, req *mcp.LoggingMessageRequest) {
	nctx, _ := r.notifyCtx(ctx)
	params, ss := req.Params, r.Session
	r.Out.Push(ss, Item{Dropped: r.Dropped, Send: func() { _ = ss.Log(nctx, params) }})
}

// notifyCtx returns the context to send the client a notification of the
// upstream with, never cancelled: the newest call's, so that over HTTP it
// goes on that call's stream (onCall true), or ctx's when no call is in
// flight.
func (r *Relay) notifyCtx(ctx context.Context) (nctx context.Context, onCall bool) {
	if k := r.Calls.Latest(); k != nil {
		return context.WithoutCancel(k.Ctx), true
	}
	return context.WithoutCancel(ctx), false
}

// Sample asks the client session for the sampling the upstream asks for,
// on the stream of the newest call.
func (r *Relay) Sample(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	rctx, cancel := r.routeCtx(ctx, r.Calls.Latest(), true)
	defer cancel()
	return r.Session.CreateMessageWithTools(rctx, req.Params)
}

// Elicit asks the client session for the elicitation the upstream asks
// for, on the stream of the newest call.
func (r *Relay) Elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	rctx, cancel := r.routeCtx(ctx, r.Calls.Latest(), true)
	defer cancel()
	return r.Session.Elicit(rctx, req.Params)
}

// ElicitationComplete passes the upstream's
// notifications/elicitation/complete (the end of a URL-mode elicitation)
// on to the client session, on the stream of its newest call like a log
// message: the client matches it to its elicitation by elicitationId.
func (r *Relay) ElicitationComplete(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	nctx, onCall := r.notifyCtx(ctx)
	params, ss, bare := req.Params, r.Session, context.WithoutCancel(ctx)
	r.Out.Push(ss, Item{Essential: true, Dropped: r.Dropped, Send: func() {
		err := ss.NotifyElicitationComplete(nctx, params)
		if err != nil && onCall {
			// The call's stream closed meanwhile: send it on no call's.
			err = ss.NotifyElicitationComplete(bare, params)
		}
		if err != nil {
			r.Log.Warn("gateway: passing on an elicitation's completion", slog.Any("err", err))
		}
	}})
}

// about returns the call in flight that the upstream's request req is
// about: over HTTP, the call on whose response stream the upstream sent
// it (see [Relay.Related]); else, or when the upstream sent it on no
// call's stream, the newest call, as a stdio upstream's requests say
// nothing of the call they are about.
func (r *Relay) about(req mcp.Request) *Call {
	if r.Related != nil {
		if key, ok := r.Related(req.GetParams()); ok {
			if k := r.Calls.Get(key); k != nil {
				return k
			}
		}
	}
	return r.Calls.Latest()
}

// Route answers the upstream's requests to its client (sampling,
// elicitation, roots) with the client session's answers. It takes them
// before the SDK's client handlers, which would check the parameters the
// client is to check: the gateway passes them on as they are.
func (r *Relay) Route(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		_, roots := req.GetParams().(*mcp.ListRootsParams)
		k := r.about(req)
		rctx, cancel := r.routeCtx(ctx, k, !roots)
		defer cancel()
		switch p := req.GetParams().(type) {
		case *mcp.CreateMessageWithToolsParams:
			return r.Session.CreateMessageWithTools(rctx, p)
		case *mcp.CreateMessageParams:
			return r.Session.CreateMessage(rctx, p)
		case *mcp.ElicitParams:
			return r.Session.Elicit(rctx, p)
		case *mcp.ListRootsParams:
			res, err := r.Session.ListRoots(rctx, p)
			if err != nil && ctx.Err() == nil && k != nil && k.Ctx.Err() != nil {
				// The call ended and its stream closed meanwhile: a
				// roots/list is about no call, so ask on no call's stream.
				return r.Session.ListRoots(ctx, p)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}
