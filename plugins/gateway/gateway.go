package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	ups "github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
	"github.com/hookflow/hookflow/stages"
)

// The defaults of an [Upstream]'s bounds.
const (
	// DefaultTimeout bounds one forwarded request.
	DefaultTimeout = 30 * time.Second
	// DefaultConnectTimeout bounds connecting to an upstream and listing
	// what it serves.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultMinBackoff and DefaultMaxBackoff bound the wait between two
	// attempts to reconnect to an upstream that went away.
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
	// DefaultMaxTotalTimeout bounds one forwarded request in all when
	// progress restarts its Timeout (Upstream.ResetTimeoutOnProgress).
	DefaultMaxTotalTimeout = 10 * time.Minute
	// DefaultMaxSessions bounds the upstream sessions an upstream keeps
	// open for client sessions: for a stdio upstream, its processes.
	DefaultMaxSessions = 64
)

// Upstream is an MCP server the gateway mounts: a command it starts and
// talks to over stdio, or a streamable HTTP URL. Exactly one of Command and
// URL is set. Its fields' yaml tags are its keys in the hookflow gateway
// command's configuration file; a field without one is not set there.
type Upstream struct {
	// Name identifies the upstream in errors, logs and [Health]; it is
	// required and unique within a gateway.
	Name string `yaml:"name"`
	// Command is the program and its arguments, run without a shell.
	Command []string `yaml:"command"`
	// Env is added to the command's environment, which otherwise holds
	// only the variables of the gateway's environment that [DefaultEnv]
	// and InheritEnv name (see [Environ]): an upstream does not see the
	// gateway's secrets, nor other upstreams'. Env's KEY=value entries win
	// over an inherited variable of the same name. Dir is the command's
	// working directory ("" the gateway's).
	Env []string `yaml:"env"`
	Dir string   `yaml:"dir" path:"relative"`
	// InheritEnv names further variables of the gateway's environment the
	// command gets when they are set there, such as LANG or HTTPS_PROXY.
	InheritEnv []string `yaml:"inherit_env"`
	// URL is the upstream's streamable HTTP endpoint.
	URL string `yaml:"url"`
	// Token, when set, is sent as "Authorization: Bearer <Token>"; Header
	// holds further headers sent with every HTTP request. In a
	// configuration file the token key is deprecated (a warning at its
	// line): a secret does not belong in a file more people and programs
	// read than it should reach; name an environment variable with
	// token_env instead, whose value sets Token.
	Token  string      `yaml:"token" env:"token_env" deprecated:"a token does not belong in the configuration file: put it in an environment variable and name that with token_env"`
	Header http.Header `yaml:"headers"`
	// TokenSource, when set instead of Token, gives the bearer token of
	// every HTTP request, for an upstream that is an OAuth resource
	// server. The gateway caches its tokens, so its Token method should
	// fetch a new one at each call; see "Upstreams behind OAuth" in the
	// package doc for when it is called and the retry after a 401.
	TokenSource oauth2.TokenSource
	// Prefix is prepended to the names of the upstream's tools and prompts
	// (ResourcePrefix to its resource URIs): two upstreams with a tool of
	// one name need a prefix on at least one of them.
	Prefix string `yaml:"prefix"`
	// ResourcePrefix, such as "files+", is prepended to the upstream's
	// resource URIs and URI templates, so that their scheme becomes
	// "files+file": two upstreams with a resource of one URI need one on
	// at least one of them. See "Filters and prefixes" in the package doc.
	ResourcePrefix string `yaml:"resource_prefix"`
	// AllowTools and DenyTools choose the upstream's tools the gateway
	// mounts, by the upstream's names (before Prefix), each a name or a
	// path.Match glob such as "read_*": a tool is mounted when AllowTools
	// is empty or one of its patterns matches, and none of DenyTools'
	// does. The others are neither listed nor callable.
	AllowTools []string `yaml:"allow_tools"`
	DenyTools  []string `yaml:"deny_tools"`
	// Select, when not empty, mounts of what AllowTools and DenyTools
	// leave only what one of its selectors selects: the entities a
	// virtual endpoint of the gateway command serves from this upstream.
	Select []Selector `yaml:"-"`
	// Overrides change how clients see the upstream's tools, each by the
	// name they would see otherwise (Prefix and the upstream's name):
	// a new name, title, description or hints for the audience of one
	// server. Selection goes by the upstream's definitions; the
	// overrides apply to what is selected.
	Overrides map[string]ToolOverride `yaml:"-"`
	// Optional lets the gateway start without the upstream: when it
	// cannot be reached at Start, the gateway starts degraded (its
	// [Health] is [StateDown] with the cause) and connects it in the
	// background, with backoff, mounting its entities once it answers.
	Optional bool
	// IdleTimeout closes a client session's upstream session (over stdio,
	// its process) after that long without a request through it
	// (DefaultIdleTimeout when 0; negative: never), apart from the client
	// session's own timeout; the client session's next request opens a
	// new one.
	IdleTimeout time.Duration
	// Shared makes every client session use one upstream session, the one
	// the gateway lists entities with. Requests the upstream sends its
	// client (sampling, elicitation, roots) are then refused, and its log
	// messages are not forwarded. Stateless HTTP clients always share.
	Shared bool `yaml:"shared"`
	// ProtocolVersion, when set, is the protocol version every upstream
	// session asks for. When "", the gateway's own session asks for
	// 2025-11-25 (on which the upstream may send requests and
	// notifications to its client) and a client's session for the
	// client's version.
	ProtocolVersion string `yaml:"protocol_version"`
	// Timeout bounds each forwarded request (DefaultTimeout when 0): an
	// upstream that does not answer in time fails the call, and the
	// request is cancelled upstream. ConnectTimeout bounds a connection
	// and the listing after it (DefaultConnectTimeout when 0).
	Timeout        time.Duration `yaml:"timeout"`
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	// ResetTimeoutOnProgress makes each progress notification the
	// upstream sends about a forwarded request start that request's
	// Timeout again, so that a long operation that reports progress is
	// not cut off while one that goes silent for Timeout still is. The
	// gateway then asks the upstream for progress on every request (and
	// passes it on to clients that asked for it). MaxTotalTimeout bounds
	// such a request in all, whatever progress it reports
	// (DefaultMaxTotalTimeout when 0); it applies only with
	// ResetTimeoutOnProgress.
	ResetTimeoutOnProgress bool          `yaml:"reset_timeout_on_progress"`
	MaxTotalTimeout        time.Duration `yaml:"max_total_timeout"`
	// MinBackoff and MaxBackoff bound the wait between attempts to
	// reconnect (DefaultMinBackoff, DefaultMaxBackoff when 0); the wait
	// doubles after each failed attempt.
	MinBackoff time.Duration
	MaxBackoff time.Duration
	// MaxSessions bounds the upstream sessions open at once for client
	// sessions (DefaultMaxSessions when 0; negative: no bound). Over stdio
	// each is a process, so this bounds the processes clients can make
	// the gateway start. A client session whose first request finds the
	// bound reached fails that request, saying so, and opens nothing; a
	// later request tries again. Shared sessions and the gateway's own
	// do not count.
	MaxSessions int `yaml:"max_sessions"`
}

// Gateway is a plugin that mounts upstream MCP servers into the server or
// the app it is attached to: their tools, resources, resource templates and
// prompts become entities of that server or app. See the package doc.
type Gateway struct {
	ups        []*upstream
	queueLimit int
	// log and out are set at Attach: the server's logger, and the queues
	// of the notifications to its client sessions.
	log *slog.Logger
	out *ups.Queues
	// peers are the gateways of the server attached before this one
	// (Config.Peers).
	peers []*Gateway
	// endpoint is Config.Endpoint.
	endpoint string

	mu     sync.Mutex
	closed bool
	// owed are the resource updates of upstreams on their way to client
	// sessions; subscribers the sessions that subscribed to a resource
	// of an upstream (see deliverUpdates).
	owed map[owedUpdate]bool
	// sessions are the client sessions the gateway keeps something for
	// (see watchSession); seen what each was last told of its lists, and
	// changes counts the gateway's changes to the server's entities, by
	// list kind (see deliverListChanged).
	sessions map[*mcp.ServerSession]bool
	seen     map[toldKey]told
	force    map[toldKey]bool
	changes  map[string]uint64
	// attached is set once Attach succeeded: [Gateways] answers
	// "starting" until then.
	attached bool
}

// Config is a gateway's configuration: the upstreams it mounts, in
// order, and the bound of its queues. [New] takes it; Attach checks it
// with Validate.
type Config struct {
	// Upstreams are the MCP servers the gateway mounts.
	Upstreams []Upstream `yaml:"upstreams"`
	// QueueLimit bounds the notifications of upstreams waiting to reach
	// one client session (DefaultQueueLimit when 0): progress, log
	// messages and completions of URL-mode elicitations. When a client
	// reads slower than its upstreams send, a new notification drops the
	// oldest progress notification or log message of the queue (a
	// completion only when nothing else is queued), counted in
	// [Health.Dropped] and logged. Results, errors and the upstreams'
	// requests to the client are not queued and never dropped; see
	// "Slow clients" in the package doc.
	QueueLimit int
	// Peers are the gateways attached before this one to the same
	// server or to its apps: a server and its apps share one namespace
	// of entities, so this gateway's entities are checked at Attach
	// against theirs, and a clash is reported with the setting that
	// resolves it, as between two of its own upstreams.
	Peers []*Gateway
	// Endpoint is the path of the virtual endpoint whose server the
	// gateway mounts into, for its upstreams' health reports ("" for
	// none).
	Endpoint string
}

// New returns a gateway configured by cfg. The configuration is checked
// at Attach.
func New(cfg Config) *Gateway {
	g := &Gateway{queueLimit: cfg.QueueLimit, peers: slices.Clone(cfg.Peers), endpoint: cfg.Endpoint, owed: map[owedUpdate]bool{},
		sessions: map[*mcp.ServerSession]bool{}, seen: map[toldKey]told{}, force: map[toldKey]bool{}, changes: map[string]uint64{}}
	for _, u := range cfg.Upstreams {
		g.ups = append(g.ups, newUpstream(g, u))
	}
	return g
}

// Name returns "gateway".
func (g *Gateway) Name() string { return "gateway" }

// A wrong method shape is a compile error, not an error at Use.
var _ framework.Plugin = (*Gateway)(nil)

// Attach checks the configuration, connects to every upstream, lists what
// it serves and adds it to the server or app the gateway is attached to.
// An upstream that cannot be reached (unless [Upstream.Optional]), or two
// entities with one name, fail the server's Start.
func (g *Gateway) Attach(pc *framework.PluginContext) error {
	if err := g.config().Validate(); err != nil {
		return err
	}
	g.log = pc.Server.Logger()
	g.out = ups.NewQueues(cmp.Or(g.queueLimit, DefaultQueueLimit), g.log)
	var reg framework.Registrar = pc.Server
	if pc.App != nil {
		reg = pc.App
	}
	ctx := context.Background()
	var errs []error
	for _, u := range g.ups {
		if err := u.start(ctx, pc.Server, reg); err != nil && u.cfg.Optional {
			u.startOptional(err)
		} else if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		g.Close()
		return err
	}
	if err := g.checkClashes(); err != nil {
		g.Close()
		return err
	}
	for _, u := range g.ups {
		if err := u.mountAll(); err != nil {
			g.Close()
			return err
		}
	}
	g.warnUnmatched()
	// An upstream's resource update reaches the sessions it is owed to,
	// a list change the sessions whose view changed; a client session
	// that lists entities first opens its upstream sessions.
	hooks := []flows.Hook{
		{Flow: flows.NotificationsFromServer, Stage: stages.BeforeExecute, Name: "gateway-resource-updates", Fn: g.deliverUpdates},
		{Flow: flows.NotificationsFromServer, Stage: stages.BeforeExecute, Name: "gateway-list-changes", Fn: g.deliverListChanged},
	}
	hooks = append(hooks, flows.Hook{Flow: flows.SessionInitialize, Stage: stages.AfterExecute, Name: "gateway-instructions", Fn: g.instructions})
	for _, f := range []flows.ID{flows.ToolsListTools, flows.PromptsListPrompts, flows.ResourcesListResources, flows.ResourcesListResourceTemplates} {
		hooks = append(hooks, flows.Hook{Flow: f, Stage: stages.BeforeExecute, Name: "gateway-open-for-list", Fn: g.openForList})
	}
	if err := pc.Hook(hooks...); err != nil {
		g.Close()
		return err
	}
	// A client's roots/list_changed goes on to its upstream sessions.
	if err := pc.Hook(flows.Hook{Flow: flows.NotificationsFromClient, Stage: stages.AfterExecute,
		Name: "gateway-roots-changed", Fn: g.rootsChanged}); err != nil {
		g.Close()
		return err
	}
	for _, u := range g.ups {
		ups.Go(u.log, "running upstream "+u.cfg.Name, u.run)
	}
	g.mu.Lock()
	g.attached = true
	g.mu.Unlock()
	return nil
}

// rootsChanged passes a client's notifications/roots/list_changed on to
// the client session's upstream sessions, unless a hook dropped it.
func (g *Gateway) rootsChanged(c *flows.Context) error {
	if c.Request().Method != "notifications/roots/list_changed" || c.Responded() || c.Session() == nil {
		return nil
	}
	for _, u := range g.ups {
		u.rootsChanged(c.Session())
	}
	return nil
}

// Validate refuses a configuration that cannot work, naming the
// setting: its first error, or nil.
func (c Config) Validate() error {
	if len(c.Upstreams) == 0 {
		return invalid("no upstream to mount")
	}
	if c.QueueLimit < 0 {
		return invalid(fmt.Sprintf("Config.QueueLimit: must not be negative, got %d", c.QueueLimit))
	}
	seen := map[string]bool{}
	for _, c := range c.Upstreams {
		switch {
		case c.Name == "":
			return invalid("an upstream needs a name")
		case seen[c.Name]:
			return invalid(fmt.Sprintf("two upstreams are named %q", c.Name))
		case len(c.Command) == 0 && c.URL == "":
			return invalid(fmt.Sprintf("upstream %q: set Command or URL", c.Name))
		case len(c.Command) > 0 && c.URL != "":
			return invalid(fmt.Sprintf("upstream %q: set Command or URL, not both", c.Name))
		case len(c.Command) > 0 && (c.Token != "" || len(c.Header) > 0 || c.TokenSource != nil):
			return invalid(fmt.Sprintf("upstream %q: Token, TokenSource and Header are for URL upstreams", c.Name))
		case c.Token != "" && c.TokenSource != nil:
			return invalid(fmt.Sprintf("upstream %q: set Token or TokenSource, not both", c.Name))
		case c.Timeout < 0 || c.ConnectTimeout < 0 || c.MinBackoff < 0 || c.MaxBackoff < 0 || c.MaxTotalTimeout < 0:
			return invalid(fmt.Sprintf("upstream %q: negative duration", c.Name))
		case c.MaxTotalTimeout > 0 && !c.ResetTimeoutOnProgress:
			return invalid(fmt.Sprintf("upstream %q: MaxTotalTimeout bounds a request whose Timeout progress restarts: set ResetTimeoutOnProgress too, or leave MaxTotalTimeout out", c.Name))
		case c.ResetTimeoutOnProgress && c.MaxTotalTimeout > 0 && c.MaxTotalTimeout < cmp.Or(c.Timeout, DefaultTimeout):
			return invalid(fmt.Sprintf("upstream %q: MaxTotalTimeout (%v) is shorter than Timeout (%v): progress could never extend a request", c.Name, c.MaxTotalTimeout, cmp.Or(c.Timeout, DefaultTimeout)))
		}
		if err := checkFilters(&c); err != nil {
			return err
		}
		if err := checkSelection(&c); err != nil {
			return err
		}
		for _, k := range c.InheritEnv {
			if !checkEnvName(k) {
				return invalid(fmt.Sprintf("upstream %q: InheritEnv: %q is not a variable name", c.Name, k))
			}
		}
		seen[c.Name] = true
	}
	return nil
}

// config returns the configuration g was made with.
func (g *Gateway) config() Config {
	cfg := Config{QueueLimit: g.queueLimit, Peers: g.peers, Endpoint: g.endpoint}
	for _, u := range g.ups {
		cfg.Upstreams = append(cfg.Upstreams, u.cfg)
	}
	return cfg
}

// checkClashes refuses two upstreams that would mount entities of one name.
func (g *Gateway) checkClashes() error {
	seen := g.peerKeys()
	var errs []error
	for _, u := range g.ups {
		for _, key := range u.keys() {
			if prev, dup := seen[key.kind+" "+key.name]; dup {
				fix := "set a Prefix on one of them"
				if key.kind != "tool" && key.kind != "prompt" {
					fix = "set a ResourcePrefix on one of them (a Prefix renames tools and prompts only)"
				}
				errs = append(errs, invalid(fmt.Sprintf("%s %q of upstream %q clashes with upstream %q's: %s", key.kind, key.name, u.cfg.Name, prev.up, fix)))
				continue
			}
			seen[key.kind+" "+key.name] = owner{key.kind, u.cfg.Name}
		}
	}
	return errors.Join(errs...)
}

// Close closes every upstream session and stops reconnecting. The
// gateway's entities then fail their calls; Close is for shutdown. It
// returns once every stdio upstream's process has ended: a process gets
// [TerminateAfter] to exit once its input is closed, then SIGTERM, then
// as long again before SIGKILL.
func (g *Gateway) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, u := range g.ups {
		wg.Go(func() {
			defer ups.Recovered(u.log, "closing upstream "+u.cfg.Name)
			u.close()
		})
	}
	wg.Wait()
	return nil
}

// DefaultQueueLimit is the default of [Config.QueueLimit].
const DefaultQueueLimit = 1024

// TerminateAfter is how long a stdio upstream's process has to exit once
// the gateway closes its input, before it gets SIGTERM (and as long again
// before SIGKILL).
const TerminateAfter = 2 * time.Second

// Health returns the state of every upstream, in configuration order.
func (g *Gateway) Health() []Health {
	hs := make([]Health, len(g.ups))
	for i, u := range g.ups {
		hs[i] = u.health()
	}
	return hs
}

// Names returns the sorted names of the mounted entities a flow of kind
// resolves: tool or prompt names as the server's clients see them,
// resource URIs and URI templates; for flows.EntityCompletion prompts and
// resources both.
func (g *Gateway) Names(kind flows.EntityKind) []string {
	var kinds []string
	switch kind {
	case flows.EntityTool:
		kinds = []string{"tool"}
	case flows.EntityPrompt:
		kinds = []string{"prompt"}
	case flows.EntityResource:
		kinds = []string{"resource", "template"}
	case flows.EntityCompletion:
		kinds = []string{"prompt", "resource", "template"}
	}
	var names []string
	for _, u := range g.ups {
		u.mu.Lock()
		for k := range u.mounted {
			if slices.Contains(kinds, k.kind) {
				names = append(names, k.name)
			}
		}
		u.mu.Unlock()
	}
	slices.Sort(names)
	return names
}

// State is an upstream's connection state.
type State uint8

// The states of an upstream.
const (
	// StateConnecting: the gateway is (re)connecting.
	StateConnecting State = iota
	// StateUp: the upstream answers.
	StateUp
	// StateDown: the upstream went away; calls fail at once while the
	// gateway reconnects with backoff.
	StateDown
	// StateClosed: the gateway was closed.
	StateClosed
)

var stateNames = [...]string{"connecting", "up", "down", "closed"}

// String returns the state's name, e.g. "up".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Health is what the gateway knows of an upstream's state.
type Health struct {
	Upstream string
	State    State
	// Since is when the upstream entered State.
	Since time.Time
	// Err is why the upstream went down, or the last failed reconnection;
	// nil when it is up.
	Err error
	// Reconnects counts the successful reconnections.
	Reconnects int
	// Dropped counts the upstream's notifications (progress, log
	// messages) the gateway dropped because a client session read them
	// slower than they came; see [Config.QueueLimit].
	Dropped uint64
}

// Mounted is the instance of every entity the gateway mounts: a run's
// [flows.Context.Entity] Value, which [From] returns to hooks.
type Mounted struct {
	// Upstream is the upstream's name; Name the entity's name (or URI) there,
	// without the prefix.
	Upstream string
	Name     string
	up       *upstream
	key      entityKey // the entity as mounted
}

// Health returns the state of the entity's upstream.
func (m *Mounted) Health() Health { return m.up.health() }

// UpstreamName returns Upstream: what plugins that do not import the
// gateway read of an entity's Value through interface{ UpstreamName()
// string } (the policy plugin's entity.upstream).
func (m *Mounted) UpstreamName() string { return m.Upstream }

// From returns the mounted entity a run is about, or false when the run's
// entity is not one the gateway mounted (or the run has none).
func From(c *flows.Context) (*Mounted, bool) {
	if c == nil || c.Entity() == nil {
		return nil, false
	}
	m, ok := c.Entity().Value.(*Mounted)
	return m, ok && m != nil
}

// TokenError is the error of a request to an upstream for which the
// [Upstream.TokenSource] gave no token. It wraps the source's error: for a
// token endpoint's refusal, an *oauth2.RetrieveError with its answer.
type TokenError struct {
	// Upstream is the upstream's name.
	Upstream string
	Err      error
}

// Error names the upstream and the token endpoint, and gives its answer.
func (e *TokenError) Error() string {
	var re *oauth2.RetrieveError
	if errors.As(e.Err, &re) && re.Response != nil && re.Response.Request != nil {
		u := *re.Response.Request.URL
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		return fmt.Sprintf("upstream %q: the token endpoint %s answered: %v", e.Upstream, u.Redacted(), e.Err)
	}
	return fmt.Sprintf("upstream %q: getting an OAuth token: %v", e.Upstream, e.Err)
}

// Unwrap returns the source's error.
func (e *TokenError) Unwrap() error { return e.Err }

// invalid is an error of the gateway's configuration. It is plain: the
// server wraps a plugin's error in a hookflow error of code invalid,
// naming the plugin, and a second one would say so twice.
func invalid(msg string) error {
	return errors.New("gateway: " + msg)
}

// command returns the upstream's command, ready to start.
func (c *Upstream) command() *exec.Cmd {
	cmd := exec.Command(c.Command[0], c.Command[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = Environ(c.InheritEnv, c.Env)
	return cmd
}
