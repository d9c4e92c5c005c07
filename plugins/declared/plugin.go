package declared

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/stages"
)

// Config configures the plugin. The zero value declares nothing.
//
// Config is also the plugin's section of a configuration file: a file can
// declare hooks itself (for the tools of the servers a gateway mounts,
// say), in the wire format's names. Declarations made in Go code (hookgen's
// DeclaredHooks) are passed as Declarations.
type Config struct {
	// Name is the plugin's name, unique where it is attached and part of
	// its hooks' IDs: no '/' and no white space. Default "declared".
	Name string `yaml:"name"`
	// Declarations are the hooks the server declares, in the order clients
	// see them, each as SEP-2282 writes it (event, matcher, context or
	// context_tool and context_tool_args, priority). Default none.
	// hookgen's generated DeclaredHooks function returns those of a
	// package's //mcp:declare directives.
	Declarations []Declaration `yaml:"declarations"`
	// Unnegotiated sends every declaration to a client whose capabilities
	// have no experimental.hooks (default false). SEP-2282 omits the
	// capability for such a client, which is the default; set this for
	// hosts that read experimental.hooks without declaring support. A
	// client whose experimental.hooks is malformed (no supported_events
	// list) is sent nothing either way.
	Unnegotiated bool `yaml:"unnegotiated"`
}

// Validate checks c without a server: a usable name and valid
// declarations ([Declaration.Validate]). It returns nil or the
// errors.Join of *flows.Error values of code flows.CodeInvalid whose
// Field is the setting's path ("declarations[1].event";
// "declarations[1]" for a problem of the declaration as a whole). That
// every context_tool names a tool of the server is checked when the server
// has started. Attach calls it.
func (c Config) Validate() error {
	var errs []error
	if c.Name != "" && strings.ContainsFunc(c.Name, func(r rune) bool { return r == '/' || unicode.IsSpace(r) }) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: "name",
			Msg: fmt.Sprintf("%q must not hold '/' or white space: the name is part of the plugin's hook IDs", c.Name)})
	}
	for i := range c.Declarations {
		field, msg := c.Declarations[i].check()
		if msg == "" {
			continue
		}
		at := fmt.Sprintf("declarations[%d]", i)
		if field != "" {
			at += "." + field
		}
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: at, Msg: msg})
	}
	return errors.Join(errs...)
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

// Plugin is a framework.Plugin and implements none of its optional
// interfaces: a method of the wrong shape fails to compile here.
var _ framework.Plugin = (*Plugin)(nil)

// New returns the plugin; its configuration is checked at Attach
// ([Config.Validate]) and, for context_tool names, when the server has
// started.
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
	if err := (Config{Name: p.cfg.Name, Declarations: p.decls}).Validate(); err != nil {
		return err
	}
	pc.AfterStart(func() error {
		var errs []error
		for i, d := range p.decls {
			if d.ContextTool == "" {
				continue
			}
			if _, ok := pc.Server.Tool(d.ContextTool); !ok {
				errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: fmt.Sprintf("declarations[%d].context_tool", i),
					Msg: fmt.Sprintf("%q names no tool of the server", d.ContextTool)})
			}
		}
		return errors.Join(errs...)
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
