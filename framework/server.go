package framework

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
)

// Server is an MCP server whose every request runs as a hookflow flow. It
// wraps an *mcp.Server: the SDK speaks the protocol, hookflow owns the stages.
//
// Build a Server with [NewServer], add entities (AddTool, AddResource, …),
// hooks ([Server.Hook]) and plugins ([Server.Use]), then serve it with
// [Server.Run], [Server.Connect] or [Server.HTTPHandler]. The first of those
// calls [Server.Start], which resolves dependencies, registers everything on
// the SDK and compiles the hook plans; after that, apps and plugins can no
// longer be added, but hooks can (plans recompile on their next use), and
// entities can: a new one replaces the entity of its name.
type Server struct {
	sdk    *mcp.Server
	scope  *scope.Scope
	runner *flows.Runner
	logger *slog.Logger
	opts   Options

	mu      sync.Mutex
	started bool
	// attaching is true while Start calls the plugins' Attach methods
	// (without holding mu).
	attaching bool
	startErr  error
	pending   []pendingEntity
	plugins   []attachedPlugin
	apps      map[string]*App
	hooked    map[embeddedKey]string // whose embedded hooks are registered: their signature
	// index maps names to entities. It is copied on write (under mu) and
	// read lock-free by requests.
	index atomic.Pointer[entityIndex]

	// observers are the plugins' observers (PluginContext.Observe),
	// joined with Options.Observer at Start.
	observers []flows.Observer
	// refusals are the readers of requests refused before any flow ran
	// (PluginContext.OnRefusal); read-only from Start on.
	refusals []func(context.Context, flows.Refusal)

	lists middlewarePlans
	// hides is whether a Visibility plugin is attached, set at Start.
	hides   atomic.Bool
	nextID  atomic.Uint64
	idStamp string

	// noStream counts the notifications that found no stream open to
	// their client (see Unstreamed).
	noStream atomic.Uint64

	// bodies bounds the request bodies the server's HTTP handlers are
	// reading together (Options.MaxBodyBytesInFlight).
	bodies *bodyBudget
	// served is the kinds of transport Run and Connect were given (see
	// TransportOf).
	served served
}

// Options configures a [Server]. The zero value is ready to use.
type Options struct {
	// Instructions are sent to clients at initialization.
	Instructions string
	// Logger receives hookflow's and the SDK's server-side logs. nil discards.
	Logger *slog.Logger
	// Observer, when set, sees every hook call and step of every run (see
	// [flows.Observer]); the quickstart uses it to print traces.
	Observer flows.Observer
	// PageSize is how many items a list page holds; 0 uses SDK.PageSize,
	// else the SDK's default. hookflow pages lists itself, after leaving
	// out what the caller may not see.
	PageSize int
	// Capabilities are extra server capabilities, merged with those inferred
	// from the registered entities (tools, resources, prompts, completions)
	// and logging, which hookflow always keeps. Completions are inferred
	// only for a server with prompts or resources; set Completions here to
	// advertise them regardless.
	Capabilities *mcp.ServerCapabilities
	// Complete answers completion requests whose referenced prompt or
	// resource has no completer of its own. nil answers with no values.
	Complete func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	// Subscribe and Unsubscribe handle resource subscriptions. Set both or
	// neither.
	Subscribe   func(context.Context, *mcp.SubscribeRequest) error
	Unsubscribe func(context.Context, *mcp.UnsubscribeRequest) error
	// ToolTimeout bounds every tool call, hooks included, unless the tool
	// sets its own [Tool.Timeout]; 0 means no bound. See [TimeoutError].
	ToolTimeout time.Duration
	// ArgumentLimits bounds the size, nesting and keys of a tool call's
	// arguments; zero fields take the defaults (4 MiB, 64 levels, 10,000
	// keys). See [ArgumentLimits].
	ArgumentLimits ArgumentLimits
	// SDK holds further SDK options. hookflow sets the fields above on a copy
	// of it, plus CompletionHandler.
	SDK *mcp.ServerOptions
	// Admin, when set, makes [Server.HTTPHandler] serve read-only admin
	// endpoints next to MCP; nil serves none. See [AdminOptions].
	Admin *AdminOptions
	// MaxBodyBytesInFlight bounds the memory that the request bodies the
	// server's HTTP handlers are reading hold together, across all clients;
	// a request whose body finds no room is answered 503 with Retry-After
	// and never read. 0 means [DefaultMaxBodyBytesInFlight]; a negative
	// value removes the bound. Each body on its own is bounded by the
	// handler's MaxRequestBodyBytes (the SDK's, 4 MiB by default). See
	// docs/operations.md for everything a request can make a server hold.
	MaxBodyBytesInFlight int64
	// MaxSessions bounds the sessions the server keeps open at once over
	// streamable HTTP: an initialize that finds the bound reached closes
	// the oldest session first (its client gets 404 and initializes
	// again), so that a peer opening sessions in a loop cannot lock new
	// clients out. 0 means [DefaultMaxSessions]; a negative value removes
	// the bound. Sessions end when their client deletes them or after
	// SessionTimeout idle ([DefaultSessionTimeout]).
	MaxSessions int
	// BodyReadTimeout bounds how long a request body may take to arrive
	// over streamable HTTP; past it the request is answered 408 and its
	// room in MaxBodyBytesInFlight given back, so stalled uploads cannot
	// hold that room. 0 means [DefaultBodyReadTimeout]; a negative value
	// removes the bound.
	BodyReadTimeout time.Duration
	// MaxUnsentBytes bounds the bytes of messages waiting to be written to
	// one response stream of streamable HTTP (a POST's SSE stream or the
	// GET stream) while its client does not read them: a batch's answers,
	// or notifications, pile up behind a write the client does not take.
	// A message that would pass it cuts the stream off (its write fails,
	// the stream ends, what waited is dropped; a resumable stream keeps
	// its events for the client to resume). One message of any size
	// always passes. 0 means [DefaultMaxUnsentBytes]; a negative value
	// removes the bound, leaving only the 30 s write timeout.
	MaxUnsentBytes int64
	// AllowedOrigins are the origins (scheme://host[:port]) whose browser
	// pages may call the server over streamable HTTP besides its own:
	// hookflow's transport refuses (403) a request of any method whose
	// Origin header names another, and lets through one without Origin
	// (clients outside a browser send none) and, on a server listening on
	// loopback, one from a loopback page. The MCP Inspector's browser
	// mode, at http://localhost:6274, reaches a local server without
	// this; to let it reach the server on another host, list
	// "http://localhost:6274" here. Origins are checked by an
	// http.CrossOriginProtection (they must be valid for its
	// AddTrustedOrigin); one set in the StreamableHTTPOptions given to
	// HTTPHandler decides instead, and then this must be empty.
	AllowedOrigins []string
}

// NewServer returns a Server that introduces itself to clients as impl.
// opts may be nil.
func NewServer(impl *mcp.Implementation, opts *Options) *Server {
	s := &Server{
		apps:   map[string]*App{},
		hooked: map[embeddedKey]string{},
	}
	s.index.Store(&entityIndex{})
	if opts != nil {
		s.opts = *opts
	}
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	name := "server"
	if impl != nil && impl.Name != "" {
		name = impl.Name
	}
	s.scope = scope.New(sanitize(name))
	s.lists.init(s.scope)
	s.runner = flows.NewRunner(&flows.RunnerOptions{Logger: s.logger, Observer: s.opts.Observer})
	s.idStamp = newStamp()
	s.bodies = newBodyBudget(s.opts.MaxBodyBytesInFlight)

	var so mcp.ServerOptions
	if s.opts.SDK != nil {
		so = *s.opts.SDK
	}
	so.Instructions = s.opts.Instructions
	so.Logger = s.logger
	// The SDK lists whole; hookflow filters for the caller, then pages.
	so.PageSize = sdkPageSize
	so.CompletionHandler = s.complete
	if s.opts.Subscribe != nil {
		so.SubscribeHandler = s.opts.Subscribe
	}
	if s.opts.Unsubscribe != nil {
		so.UnsubscribeHandler = s.opts.Unsubscribe
	}
	so.Capabilities = capabilities(s.opts.Capabilities)
	s.sdk = mcp.NewServer(impl, &so)
	// The capability trim runs inside the flow middleware, so that
	// session:initialize hooks see the capabilities the client will.
	s.sdk.AddReceivingMiddleware(callContext, s.middleware, s.trimCapabilities)
	s.sdk.AddSendingMiddleware(s.sendingMiddleware)
	return s
}

// trimCapabilities withdraws the completions capability from initialize and
// server/discover results when the server has nothing to complete: no
// prompts and no resources. The SDK advertises completions whenever a
// completion handler is set, and hookflow always sets one, as entities with
// completers may be added until Start. Completions asked for in
// Options.Capabilities are kept.
func (s *Server) trimCapabilities(next mcp.MethodHandler) mcp.MethodHandler {
	asked := s.opts.Capabilities != nil && s.opts.Capabilities.Completions != nil
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || asked || (method != "initialize" && method != "server/discover") {
			return res, err
		}
		var caps *mcp.ServerCapabilities
		switch r := res.(type) {
		case *mcp.InitializeResult:
			caps = r.Capabilities
		case *mcp.DiscoverResult:
			caps = r.Capabilities
		}
		if caps != nil && caps.Prompts == nil && caps.Resources == nil {
			caps.Completions = nil
		}
		return res, err
	}
}

// capabilities returns the SDK capabilities to declare: the user's, with
// logging always kept (setting Capabilities at all makes the SDK drop its
// default logging capability). Tools, resources and prompts are still
// inferred by the SDK from what is registered.
func capabilities(user *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	if user == nil {
		return nil
	}
	c := *user
	if c.Logging == nil {
		c.Logging = &mcp.LoggingCapabilities{}
	}
	return &c
}

// SDK returns the wrapped *mcp.Server, for what hookflow does not cover
// (e.g. sending list-changed or resource-updated notifications).
func (s *Server) SDK() *mcp.Server { return s.sdk }

// Scope returns the server's root scope: its hook registry and dig container.
func (s *Server) Scope() *scope.Scope { return s.scope }

// Runner returns the flow runner the server uses.
func (s *Server) Runner() *flows.Runner { return s.runner }

// Logger returns the server's logger.
func (s *Server) Logger() *slog.Logger { return s.logger }

// Provide adds a constructor to the server scope's dig container; entities
// and plugins can depend on what it provides.
func (s *Server) Provide(constructor any) error { return s.scope.Provide(constructor) }

// Hook registers external hooks owned by the server: they run for every
// entity. It may be called before or after Start.
func (s *Server) Hook(hooks ...flows.Hook) error { return s.hook(s.scope, hooks) }

// Start resolves entities and plugins through the dig container, registers
// everything on the SDK and compiles the hook plans. It is idempotent and is
// called by Run, Connect and HTTPHandler; call it directly to fail fast on a
// bad configuration.
//
// Start first attaches the plugins, without holding the server's lock: a
// plugin's Attach may add entities, apps and plugins to the server (the
// plugins it adds are attached in the same Start, after it). Calling Start
// while plugins attach, from an Attach or from another goroutine, returns a
// CodeInvalid error instead of waiting for a Start that waits on it.
func (s *Server) Start() error {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return s.startErr
	}
	if s.attaching {
		s.mu.Unlock()
		return &flows.Error{Code: flows.CodeInvalid, Msg: "Start called while the server's plugins attach (from a plugin's Attach?): the server starts when the first Start returns"}
	}
	s.attaching = true
	s.mu.Unlock()

	err := s.attachPlugins()

	s.mu.Lock()
	defer s.mu.Unlock()
	s.attaching = false
	s.hides.Store(s.hidesAny())
	if len(s.observers) > 0 {
		s.runner.SetObserver(joinObservers(append([]flows.Observer{s.opts.Observer}, s.observers...)))
	}
	if err == nil {
		// started is set after the pending entities register: until then a
		// duplicate name is still an error (after Start it replaces).
		err = s.registerPending()
	}
	if err == nil {
		err = s.checkPlugins()
	}
	s.startErr = err
	s.started = true
	return err
}

// attachPlugins calls every plugin's Attach, including those attached by an
// Attach, without holding mu.
func (s *Server) attachPlugins() error {
	var errs []error
	for i := 0; ; i++ {
		s.mu.Lock()
		if i >= len(s.plugins) {
			s.mu.Unlock()
			return errors.Join(errs...)
		}
		p := s.plugins[i]
		s.mu.Unlock()
		if err := p.attach(); err != nil {
			errs = append(errs, err)
		}
	}
}

// checkPlugins runs the plugins' AfterStart checks. Callers hold mu.
func (s *Server) checkPlugins() error {
	var errs []error
	for _, p := range s.plugins {
		if err := p.afterStart(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// registerPending registers the entities added before Start. Callers hold
// mu.
func (s *Server) registerPending() error {
	var errs []error
	for _, e := range s.pending {
		if err := e.register(s); err != nil {
			errs = append(errs, err)
		}
	}
	s.pending = nil
	return errors.Join(errs...)
}

func (s *Server) checkNotStarted(what string) error {
	if s.started {
		return &flows.Error{Code: flows.CodeInvalid, Msg: fmt.Sprintf("cannot add %s: the server has started", what)}
	}
	return nil
}

// Run starts the server and serves one session over t (e.g.
// &mcp.StdioTransport{}) until the client disconnects or ctx is done.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	if err := s.Start(); err != nil {
		return err
	}
	s.served.note(t)
	return s.sdk.Run(ctx, t)
}

// Connect starts the server and connects it over t, returning the session;
// in-memory tests use it with mcp.NewInMemoryTransports.
func (s *Server) Connect(ctx context.Context, t mcp.Transport, opts *mcp.ServerSessionOptions) (*mcp.ServerSession, error) {
	if err := s.Start(); err != nil {
		return nil, err
	}
	s.served.note(t)
	return s.sdk.Connect(ctx, t, opts)
}

// HTTPHandler starts the server and returns a streamable HTTP handler for
// it. opts may be nil; the SDK's DNS-rebinding protection stays on unless
// opts disables it.
//
// A SessionTimeout of 0 (and nil opts) means [DefaultSessionTimeout]: a
// stateful session idle that long is closed, and its client must
// initialize again. A negative SessionTimeout keeps idle sessions forever.
//
// The transport is hookflow's own (internal/streamable), on the SDK's
// public Transport and Connection interfaces: the SDK's server runs each
// session. Of opts it honours Stateless, JSONResponse, SessionTimeout,
// MaxRequestBodyBytes, DisableLocalhostProtection, CrossOriginProtection
// and EventStore (a stateful session's SSE streams are kept there and
// resumed with Last-Event-ID, as on the SDK's handler); it logs to
// [Options.Logger] rather than opts.Logger. PropagateRequestCancellation
// is ignored: a stateless call (the POST is its whole life) is
// cancelled when its client goes away, and a stateful one runs on (the
// transport says a disconnection is not a cancellation: a client that
// gives up sends notifications/cancelled); bound every call with
// [Options.ToolTimeout].
//
// A POST the server refuses at the JSON-RPC level is answered with HTTP 400
// and a JSON-RPC error body: -32700 for a body that is not JSON, -32601 for
// an unknown method, -32600 for an invalid request, among them a batch with
// two requests of one ID (no request of it runs) and, on a stateful server,
// a request other than initialize, ping or server/discover without an
// Mcp-Session-Id header. Transport refusals (Host, origin, unknown session,
// Content-Type, Accept, body size) keep the SDK's status and text. On
// hookflow's transport, a request of any method (GET and DELETE too)
// whose Mcp-Protocol-Version header names a version the server does not
// speak is answered 400 with a -32022 error whose data lists those it
// does.
//
// A tools/call whose answer is its only message gets one JSON body,
// stateful or stateless, and the first message of any other kind turns
// the answer into an SSE stream. Other requests, and every request when
// opts.JSONResponse is set, are answered as the options say.
//
// The SDK's handler (mcp.StreamableHTTPHandler) is no longer selectable:
// docs/changes.md says what to do in code that selected it.
func (s *Server) HTTPHandler(opts *mcp.StreamableHTTPOptions) (http.Handler, error) {
	if err := s.Start(); err != nil {
		return nil, err
	}
	var origins *http.CrossOriginProtection
	if len(s.opts.AllowedOrigins) > 0 {
		if opts != nil && opts.CrossOriginProtection != nil {
			return nil, errors.New("hookflow: Options.AllowedOrigins and StreamableHTTPOptions.CrossOriginProtection are both set: add the origins to the CrossOriginProtection, or leave it out")
		}
		origins = http.NewCrossOriginProtection()
		for _, origin := range s.opts.AllowedOrigins {
			if err := origins.AddTrustedOrigin(origin); err != nil {
				return nil, fmt.Errorf("hookflow: Options.AllowedOrigins: %w", err)
			}
		}
	}
	return s.newHTTPHandler(opts, origins), nil
}

// entityIndex is an immutable snapshot of the registered entities by name
// (tools, prompts) or by URI or URI template (resources).
type entityIndex struct {
	tools     map[string]*toolEntry
	prompts   map[string]*completable
	resources map[string]*completable
}

// update applies fn to a copy of the index and publishes it. Callers hold mu.
func (s *Server) update(fn func(ix *entityIndex)) {
	old := s.index.Load()
	ix := &entityIndex{
		tools:     maps.Clone(old.tools),
		prompts:   maps.Clone(old.prompts),
		resources: maps.Clone(old.resources),
	}
	if ix.tools == nil {
		ix.tools = map[string]*toolEntry{}
	}
	if ix.prompts == nil {
		ix.prompts = map[string]*completable{}
	}
	if ix.resources == nil {
		ix.resources = map[string]*completable{}
	}
	fn(ix)
	s.index.Store(ix)
}

// pendingEntity is an entity added before Start, registered by it.
type pendingEntity interface {
	register(s *Server) error
}

func sanitize(name string) string {
	b := []byte(name)
	for i, c := range b {
		if c == '/' || c == ' ' {
			b[i] = '-'
		}
	}
	return string(b)
}

// joinObservers returns one observer that calls every non-nil one of obs
// in order.
func joinObservers(obs []flows.Observer) flows.Observer {
	obs = slices.DeleteFunc(obs, func(o flows.Observer) bool { return o == nil })
	if len(obs) == 1 {
		return obs[0]
	}
	return func(ev *flows.Event) {
		for _, o := range obs {
			o(ev)
		}
	}
}
