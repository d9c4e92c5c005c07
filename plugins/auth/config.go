package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/hookflow/hookflow/flows"
)

// Config configures the auth plugin; it is also the plugin's section of a
// configuration file (the yaml names below). The zero value checks scopes
// over every transport (denying scoped tools to requests without a token)
// but cannot serve HTTP: [Plugin.Handler] needs a Verifier, or Tokens.
type Config struct {
	// Verifier checks a bearer token and describes it (scopes, user ID,
	// expiration); it is the SDK's auth.TokenVerifier. It should return an
	// error wrapping auth.ErrInvalidToken for a bad token. Required by
	// [Plugin.Handler] and [Plugin.Middleware] unless Tokens is set;
	// unused over stdio. Go only.
	Verifier sdkauth.TokenVerifier `yaml:"-"`
	// Tokens are static bearer tokens, each with its user and scopes: when
	// Verifier is nil, New builds a verifier that accepts exactly these
	// (compared in constant time), each valid for an hour from the
	// request. None by default. For tokens an authorization server issues,
	// set Verifier (package oauth).
	Tokens []Token `yaml:"tokens"`
	// ResourceMetadataURL is the absolute http or https URL of the
	// server's OAuth 2.0 protected resource metadata (RFC 9728), sent in
	// WWW-Authenticate challenges so that clients can find the
	// authorization server; none by default.
	ResourceMetadataURL string `yaml:"resource_metadata_url"`
	// Scopes are required of every HTTP request (checked by the SDK's
	// middleware before any MCP message is read; 403 when one is
	// missing); none by default.
	Scopes []string `yaml:"scopes"`
	// ScopesSupported are the scopes_supported of the server's protected
	// resource metadata: those a client asks for at first. A 401
	// challenge names them, after Scopes, in its scope parameter, since
	// MCP clients ask for the scopes a 401 names and read scopes_supported
	// only when it names none. The oauth package's AuthConfig sets them;
	// none by default.
	ScopesSupported []string `yaml:"scopes_supported"`
	// AllowMissingExpiration accepts tokens whose TokenInfo has no
	// Expiration (the SDK refuses them by default); false by default.
	AllowMissingExpiration bool `yaml:"allow_missing_expiration"`
	// ClockSkew is the tolerance applied to a token's expiration, such as
	// "30s"; 0 by default.
	ClockSkew time.Duration `yaml:"clock_skew"`

	// ToolScopes maps tool names to the scopes a caller needs to see and
	// call them, in addition to the tool's own scopes (framework.Tool.Scopes,
	// which hookgen fills from the `scopes=` key of //mcp:tool); none by
	// default.
	ToolScopes map[string][]string `yaml:"tool_scopes"`
	// Unauthenticated is the policy for requests without a token; the
	// default is DenyScoped. Go only: a file sets AllowAnonymous.
	Unauthenticated Policy `yaml:"-"`
	// AllowAnonymous lets requests without a token call every tool: New
	// sets Unauthenticated to AllowAll. False by default (DenyScoped).
	AllowAnonymous bool `yaml:"allow_anonymous"`
	// Conceal makes a tool the caller may not call look as if it did not
	// exist: it is left out of tools/list, and calls to it fail with the
	// protocol error "unknown tool" (-32602) instead of naming the missing
	// scopes; HTTP gets no 403 challenge for it. The default, false, lists
	// every tool and explains a denial, which helps the model and the user
	// but reveals the tool's name and scopes.
	Conceal bool `yaml:"conceal"`
	// ScopeChallenge answers a tools/call over HTTP whose token lacks the
	// tool's scopes with HTTP 403 and a WWW-Authenticate insufficient_scope
	// challenge, before the MCP server sees it, instead of the in-band
	// isError result the model reads (see the package doc, "Refusing a
	// call"). Off by default.
	ScopeChallenge bool `yaml:"scope_challenge"`
	// Audit receives every call the scope challenge refuses: those never
	// reach the MCP server, so no flow runs and no audit hook sees them.
	// The audit plugin (plugins/audit) is an Auditor: set Audit to it.
	// [Plugin.Handler] warns when ScopeChallenge is on without it. Go only.
	Audit Auditor `yaml:"-"`
	// Priority of the plugin's hooks; 0 means priority.Auth: before rate
	// limits, caches and the tool's own hooks.
	Priority int `yaml:"priority"`
	// Logger receives the plugin's logs (denials at debug level, verifier
	// failures); nil uses the server's logger. Tokens are never logged.
	// Go only.
	Logger *slog.Logger `yaml:"-"`
}

// Token is a static bearer token of [Config.Tokens]. Give its value with
// Token or, to keep it out of the configuration file, TokenEnv.
type Token struct {
	// Token is the bearer token's value. In a configuration file the
	// token key is deprecated (a warning at its line): a file is read by
	// more people and programs than a secret should be; name an
	// environment variable with token_env instead.
	Token string `yaml:"token" deprecated:"a token does not belong in the configuration file: put it in an environment variable and name that with token_env"`
	// TokenEnv names the environment variable holding the token's value,
	// read when the plugin is built.
	TokenEnv string `yaml:"token_env"`
	// User is the UserID of the token's requests (the principal the
	// ratelimit and audit plugins see); "" by default.
	User string `yaml:"user"`
	// Scopes are the token's scopes; none by default.
	Scopes []string `yaml:"scopes"`
	// Claims are what the token says of its user beyond scopes (groups,
	// a team, a tenant), as an authorization server's token would carry
	// them: rules read them (plugins/policy), and hooks through
	// flows.Request.Claims(). None by default.
	Claims map[string]any `yaml:"claims"`
}

// value returns the token's value: Token, or the variable TokenEnv names.
func (t Token) value() string {
	if t.TokenEnv != "" {
		return os.Getenv(t.TokenEnv)
	}
	return t.Token
}

// staticTokens returns the verifier of tokens, whose values it reads now.
func staticTokens(tokens []Token) sdkauth.TokenVerifier {
	type entry struct {
		value  []byte
		user   string
		scopes []string
		extra  map[string]any
	}
	entries := make([]entry, 0, len(tokens))
	for _, t := range tokens {
		if v := t.value(); v != "" {
			e := entry{value: []byte(v), user: t.User, scopes: t.Scopes}
			if t.Claims != nil {
				e.extra = map[string]any{"claims": t.Claims}
			}
			entries = append(entries, e)
		}
	}
	return func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		for _, e := range entries {
			if subtle.ConstantTimeCompare(e.value, []byte(token)) == 1 {
				return &sdkauth.TokenInfo{UserID: e.user, Scopes: e.scopes, Extra: e.extra, Expiration: time.Now().Add(time.Hour)}, nil
			}
		}
		return nil, sdkauth.ErrInvalidToken
	}
}

// Validate reports what is wrong with the configuration: nil, or the
// errors.Join of *flows.Error values of code flows.CodeInvalid whose
// Field is the setting's path in a configuration file ("tokens[0].user",
// "tool_scopes.deploy[1]"; "" for the whole section or a Go-only field).
// It checks everything that needs no server, the token_env variables
// included; the tools ToolScopes names are checked by [Plugin.Check].
// The plugin's Attach and Handler call it.
func (c Config) Validate() error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	scopes := func(field string, list []string) {
		for i, s := range list {
			if msg := checkScope(s); msg != "" {
				add(fmt.Sprintf("%s[%d]", field, i), "%s", msg)
			}
		}
	}
	if len(c.Tokens) > 0 && c.Verifier != nil {
		add("tokens", "Config.Verifier is set too: keep one")
	}
	seen := map[string]int{}
	for i, t := range c.Tokens {
		at := fmt.Sprintf("tokens[%d]", i)
		switch {
		case t.Token == "" && t.TokenEnv == "":
			add(at, "needs token or token_env")
		case t.Token != "" && t.TokenEnv != "":
			add(at, "token and token_env both give the token: keep one")
		case t.TokenEnv != "" && os.Getenv(t.TokenEnv) == "":
			add(at+".token_env", "environment variable %s is not set", t.TokenEnv)
		default:
			if j, ok := seen[t.value()]; ok {
				add(at, "has the same token as tokens[%d]", j)
			} else {
				seen[t.value()] = i
			}
		}
		scopes(at+".scopes", t.Scopes)
	}
	if u := c.ResourceMetadataURL; u != "" {
		pu, err := url.Parse(u)
		switch {
		case err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "":
			add("resource_metadata_url", "want an absolute http or https URL, got %q", u)
		case strings.ContainsFunc(u, func(r rune) bool { return r <= ' ' || r >= 0x7f || r == '"' || r == '\\' }):
			add("resource_metadata_url", "%q has a space, '\"', '\\', control or non-ASCII character, which a WWW-Authenticate challenge cannot carry: percent-encode it", u)
		}
	}
	scopes("scopes", c.Scopes)
	scopes("scopes_supported", c.ScopesSupported)
	if c.ClockSkew < 0 {
		add("clock_skew", "must not be negative, got %v", c.ClockSkew)
	}
	for _, name := range slices.Sorted(mapsKeys(c.ToolScopes)) {
		if name == "" {
			add("tool_scopes", "a tool name is empty")
			continue
		}
		scopes("tool_scopes."+name, c.ToolScopes[name])
	}
	if c.Unauthenticated != DenyScoped && c.Unauthenticated != AllowAll {
		add("", "Config.Unauthenticated: unknown policy %d (want auth.DenyScoped or auth.AllowAll)", int(c.Unauthenticated))
	}
	return errors.Join(errs...)
}

func mapsKeys(m map[string][]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkScope accepts an OAuth scope token (RFC 6749 §3.3): printable ASCII
// without spaces, '"' or '\'. hookgen applies the same rule to `scopes=`.
// It returns what is wrong, or "".
func checkScope(s string) string {
	if s == "" {
		return "a scope is empty"
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return fmt.Sprintf("scope %q: want printable ASCII without spaces, '\"' or '\\'", s)
		}
	}
	return ""
}
