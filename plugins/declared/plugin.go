package declared

import (
	"cmp"
	"fmt"
	"log/slog"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// Config configures the plugin. The zero value declares nothing.
type Config struct {
	// Name is the plugin's name (default "declared").
	Name string
	// Declarations are the hooks the server declares, in the order clients
	// see them. hookgen's generated DeclaredHooks function returns those
	// of a package's //mcp:declare directives.
	Declarations []Declaration
	// Unnegotiated sends every declaration to a client whose capabilities
	// have no experimental.hooks. SEP-2282 omits the capability for such a
	// client, which is the default; set this for hosts that read
	// experimental.hooks without declaring support. A client whose
	// experimental.hooks is malformed (no supported_events list) is sent
	// nothing either way.
	Unnegotiated bool
}

// AdvertisePriority is the priority of the plugin's session:initialize
// afterExecute hook. A hook of that flow and stage with a lower priority
// (the default 0 is lower) runs after it and can read or rewrite, for its
// session only, what the client is sent with [Advertised].
const AdvertisePriority = 100

// Plugin advertises a server's declarations in experimental.hooks of the
// initialize (and, on protocol 2026-07-28, server/discover) result,
// negotiated with the client's supported events. Create it with [New].
type Plugin struct {
	cfg   Config
	decls []Declaration
}

// New returns the plugin; its configuration is checked at Attach and, for
// context_tool names, when the server has started.
func New(cfg Config) *Plugin {
	return &Plugin{cfg: cfg, decls: clone(cfg.Declarations)}
}

// Name returns the plugin's name.
func (p *Plugin) Name() string { return cmp.Or(p.cfg.Name, "declared") }

// Declarations returns a copy of the declarations the plugin advertises.
func (p *Plugin) Declarations() []Declaration { return clone(p.decls) }

// Attach validates every declaration, registers the session:initialize hook
// and, for when the server has started, the check that every context_tool
// names one of its tools.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	for i := range p.decls {
		if err := p.decls[i].Validate(); err != nil {
			return fmt.Errorf("Config.Declarations[%d]: %w", i, err)
		}
	}
	pc.AfterStart(func() error {
		for i, d := range p.decls {
			if d.ContextTool == "" {
				continue
			}
			if _, ok := pc.Server.Tool(d.ContextTool); !ok {
				return fmt.Errorf("Config.Declarations[%d]: context_tool %q: the server has no such tool", i, d.ContextTool)
			}
		}
		return nil
	})
	return pc.Hook(flows.On(stages.AfterExecute, p.advertise).Named("advertise").At(AdvertisePriority))
}

// advertise adds the declarations the client supports to the result.
func (p *Plugin) advertise(c flows.Initialize) error {
	if len(p.decls) == 0 {
		return nil
	}
	events, negotiated, malformed := supportedEvents(clientCapabilities(c))
	if malformed != "" {
		c.Logger().LogAttrs(c.Context.Context(), slog.LevelDebug, "declared: the client is sent no hook declarations",
			slog.String("plugin", p.Name()), slog.String("why", malformed))
		return nil
	}
	if !negotiated && !p.cfg.Unnegotiated {
		return nil
	}
	out := &Capability{Declarations: make([]Declaration, 0, len(p.decls))}
	for _, d := range p.decls {
		if !negotiated || slices.Contains(events, d.Event) {
			out.Declarations = append(out.Declarations, cloneOne(d))
		}
	}
	c.AddExperimental(CapabilityKey, out)
	return nil
}

// clientCapabilities returns the client's capabilities: those of the
// initialize parameters, or, for server/discover, the request's.
func clientCapabilities(c flows.Initialize) *mcp.ClientCapabilities {
	if p := c.Params(); p != nil && p.Capabilities != nil {
		return p.Capabilities
	}
	return c.Request().ClientCapabilities
}

// Advertised returns what the plugin put in the result of c's run, for a
// session:initialize afterExecute hook that runs after it (a priority below
// [AdvertisePriority]). The value is the session's own: a hook may filter
// or rewrite its declarations (its matchers included) without affecting
// other sessions; setting Declarations to nil sends an empty list. It is
// nil when the client is sent no declarations.
func Advertised(c flows.Initialize) *Capability {
	caps := c.Capabilities()
	if caps == nil || caps.Experimental == nil {
		return nil
	}
	v, _ := caps.Experimental[CapabilityKey].(*Capability)
	return v
}

func clone(ds []Declaration) []Declaration {
	out := make([]Declaration, len(ds))
	for i, d := range ds {
		out[i] = cloneOne(d)
	}
	return out
}

// cloneOne copies d's matcher and arguments, so that no two results share
// them.
func cloneOne(d Declaration) Declaration {
	if d.Matcher != nil {
		m := *d.Matcher
		d.Matcher = &m
	}
	d.ContextToolArgs = slices.Clone(d.ContextToolArgs)
	return d
}
