package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/auth"
)

// PluginConfig configures the auth plugin with, when OAuth is set, this
// package's resource server as its verifier: the auth plugin's section of
// a configuration file, whose oauth key makes the server an OAuth 2.1
// protected resource without Go.
type PluginConfig struct {
	// Config is the auth plugin's configuration: its keys are the
	// section's own.
	auth.Config `yaml:",inline"`
	// OAuth is the resource server that checks the bearer tokens of an
	// authorization server, and whose protected resource metadata the
	// plugin serves (none by default: the plugin checks tokens only).
	OAuth *Config `yaml:"oauth"`
}

// Validate reports what is wrong with the configuration: what
// auth.Config.Validate reports, and with OAuth, what is wrong with it and
// the auth keys it sets itself (tokens, resource_metadata_url,
// scopes_supported, clock_skew). Each error is a *flows.Error whose Field
// is the setting's path in a configuration file ("oauth.issuer").
func (c PluginConfig) Validate() error {
	errs := []error{c.Config.Validate()}
	if c.OAuth == nil {
		return errors.Join(errs...)
	}
	add := func(field, msg string) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: msg})
	}
	if len(c.Tokens) > 0 {
		add("tokens", "oauth checks the bearer tokens: give tokens or oauth, not both")
	}
	if c.Verifier != nil {
		add("oauth", "Config.Verifier is set too: keep one")
	}
	if c.ResourceMetadataURL != "" {
		add("resource_metadata_url", "oauth serves the protected resource metadata and names it in every challenge: leave resource_metadata_url out")
	}
	if len(c.ScopesSupported) > 0 {
		add("scopes_supported", "with oauth, the scopes the metadata lists are oauth.scopes_supported: move them there")
	}
	if c.ClockSkew != 0 {
		add("clock_skew", "with oauth, the clock skew is oauth.clock_skew: move it there")
	}
	o := c.OAuth.withDefaults()
	for _, p := range o.problems() {
		add("oauth."+p.key, p.err.Error())
	}
	return errors.Join(errs...)
}

// Plugin is the auth plugin of a [PluginConfig]: with its OAuth, its
// verifier is the resource server's and its handler serves the protected
// resource metadata too.
type Plugin struct {
	*auth.Plugin
	// rs is nil without PluginConfig.OAuth; err is why New refused it.
	rs  *ResourceServer
	err error
	// logs, when the configuration gives the resource server no Logger,
	// sends its logs to the auth plugin's once it is attached: logger,
	// else the server's.
	logs   *laterLogger
	logger *slog.Logger
}

// NewPlugin returns the auth plugin configured by c, with the resource
// server of c.OAuth when set (see [ResourceServer.AuthConfig]). A
// configuration [New] refuses makes a plugin whose Attach fails with
// New's error; [PluginConfig.Validate] reports it first.
func NewPlugin(c PluginConfig) *Plugin {
	cfg := c.Config
	p := &Plugin{logger: c.Logger}
	if c.OAuth != nil {
		oc := *c.OAuth
		if oc.Logger == nil {
			p.logs = &laterLogger{}
			oc.Logger = slog.New(p.logs)
		}
		rs, err := New(oc)
		if err == nil {
			cfg = rs.AuthConfig(cfg)
		}
		p.rs, p.err = rs, err
	}
	p.Plugin = auth.New(cfg)
	return p
}

// ResourceServer returns the plugin's resource server, or nil without
// PluginConfig.OAuth.
func (p *Plugin) ResourceServer() *ResourceServer { return p.rs }

// Attach attaches the auth plugin, unless its OAuth configuration was
// refused; a resource server without a Logger of its own logs to the
// auth plugin's (its Config.Logger, else the server's) from then on.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if p.err != nil {
		return p.err
	}
	if p.logs != nil && p.logs.to.Load() == nil {
		to := p.logger
		if to == nil {
			to = pc.Server.Logger()
		}
		p.logs.set(to)
	}
	return p.Plugin.Attach(pc)
}

// Handler returns the auth plugin's handler (auth.Plugin.Handler) and,
// with OAuth, first discovers the authorization server
// ([ResourceServer.Discover], failing on a wrong issuer or one that does
// not answer) and serves the protected resource metadata at
// [ResourceServer.MetadataPath], in front of the middleware: clients read
// it before they have a token.
func (p *Plugin) Handler(srv *framework.Server, opts *mcp.StreamableHTTPOptions) (http.Handler, error) {
	if p.err != nil {
		return nil, p.err
	}
	h, err := p.Plugin.Handler(srv, opts)
	if err != nil || p.rs == nil {
		return h, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*p.rs.cfg.FetchTimeout)
	defer cancel()
	if err := p.rs.Discover(ctx); err != nil {
		return nil, fmt.Errorf("auth: oauth: the authorization server %s: %w", p.rs.cfg.Issuer, err)
	}
	path, meta := p.rs.MetadataPath(), p.rs.MetadataHandler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == path {
			meta.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}), nil
}
