package oauth

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/hookflow/hookflow/internal/suggest"
)

// The defaults of [Config] and [Introspection].
const (
	// DefaultClockSkew is how far the clocks of this server and the
	// authorization server may disagree when checking exp, nbf and iat.
	DefaultClockSkew = 30 * time.Second
	// DefaultFetchTimeout bounds each request to the authorization server:
	// metadata, JWKS, introspection.
	DefaultFetchTimeout = 5 * time.Second
	// DefaultKeyRefreshInterval is the least time between two fetches of
	// the JWKS: a token signed with an unknown key, or whose signature
	// fails under a known one, makes the server fetch the JWKS again at
	// most this often.
	DefaultKeyRefreshInterval = 30 * time.Second
	// DefaultKeyMaxAge is how long fetched keys are used before they are
	// fetched again (in the background: requests keep using them meanwhile).
	DefaultKeyMaxAge = time.Hour
	// DefaultIntrospectionCacheTTL is how long an introspection result is
	// reused (never past the token's expiry): a revoked token is refused
	// at most this much later.
	DefaultIntrospectionCacheTTL = 30 * time.Second
	// DefaultIntrospectionCacheSize is how many tokens' introspection
	// results are kept at most.
	DefaultIntrospectionCacheSize = 1024
	// DefaultTokenCacheSize is how many accepted JWTs are remembered at
	// most.
	DefaultTokenCacheSize = 1024
)

// maxTokenCacheSize bounds Config.TokenCacheSize: the table is allocated
// whole at New.
const maxTokenCacheSize = 1 << 20

// defaultAlgorithms are the JWS algorithms accepted by default: every
// asymmetric one go-jose verifies. Symmetric algorithms (HS*) and "none"
// are never accepted: a resource server holds no secret shared with the
// authorization server, and a key set's public key must not double as an
// HMAC secret.
var defaultAlgorithms = []string{
	string(jose.RS256), string(jose.RS384), string(jose.RS512),
	string(jose.PS256), string(jose.PS384), string(jose.PS512),
	string(jose.ES256), string(jose.ES384), string(jose.ES512),
	string(jose.EdDSA),
}

// defaultTokenTypes are the JWS "typ" values of RFC 9068 access tokens.
var defaultTokenTypes = []string{"at+jwt"}

// Config configures a [ResourceServer]. Resource and Issuer are required;
// the rest has defaults.
type Config struct {
	// Resource is the server's canonical URI: the URL MCP clients connect
	// to (e.g. "https://mcp.example.com/mcp"), which they send as the
	// resource indicator (RFC 8707) and which the protected resource
	// metadata names. A token is accepted only when its audience names
	// it. https, or http on a loopback host; no query or fragment.
	Resource string
	// Issuer is the authorization server's issuer identifier (RFC 8414),
	// e.g. "https://auth.example.com". Its metadata is discovered from it;
	// a token's iss must equal it. https, or http on a loopback host.
	Issuer string
	// ScopesSupported are the scopes the metadata lists: those a client
	// asks for at first (the MCP specification: the minimal set for basic
	// use; tools needing more get them by step-up).
	ScopesSupported []string
	// ResourceName and ResourceDocumentation are the metadata's
	// resource_name and resource_documentation; optional.
	ResourceName          string
	ResourceDocumentation string

	// Algorithms are the JWS algorithms a JWT access token may be signed
	// with; empty means the asymmetric ones (RS*, PS*, ES*, EdDSA).
	// Symmetric algorithms and "none" are refused.
	Algorithms []string
	// TokenTypes are the JWS "typ" header values accepted, compared without
	// case and without an "application/" prefix; empty means RFC 9068's
	// "at+jwt". Authorization servers that do not follow RFC 9068 type
	// their access tokens "JWT".
	TokenTypes []string
	// ClockSkew is the tolerance on exp, nbf and iat; 0 means
	// [DefaultClockSkew]. Negative is an error.
	ClockSkew time.Duration

	// Introspection, when set, checks tokens that are not JWTs (opaque
	// tokens) with the authorization server's introspection endpoint
	// (RFC 7662). Without it, such tokens are refused.
	Introspection *Introspection

	// HTTPClient makes the requests to the authorization server; nil
	// means a client of its own that follows no redirects. Each request
	// is bounded by FetchTimeout whatever the client's own timeout.
	HTTPClient *http.Client
	// FetchTimeout bounds each request to the authorization server; 0
	// means [DefaultFetchTimeout].
	FetchTimeout time.Duration
	// KeyRefreshInterval is the least time between two JWKS fetches; 0
	// means [DefaultKeyRefreshInterval]. It bounds what tokens signed with
	// unknown keys (rotated ones, or forged), or whose signature fails
	// under a known kid, can make the server fetch.
	KeyRefreshInterval time.Duration
	// KeyMaxAge is how long fetched keys are trusted before they are
	// fetched again; 0 means [DefaultKeyMaxAge].
	KeyMaxAge time.Duration
	// TokenCacheSize is how many accepted JWTs are remembered, so that
	// the same token is accepted again without checking its signature
	// and claims: until its exp, and while the keys that verified it are
	// the current ones and younger than KeyMaxAge. The cache is a fixed
	// table of slots (the size rounded up to a power of two) found by
	// the token's SHA-256, never the token: distinct tokens beyond the
	// size take earlier tokens' slots, and memory does not grow. 0 means
	// [DefaultTokenCacheSize]; negative turns the cache off; at most
	// 1,048,576.
	TokenCacheSize int

	// Logger receives the server's logs (fetch failures); nil discards
	// them. Tokens are never logged.
	Logger *slog.Logger
}

// ClientAuth is how the resource server authenticates to the
// introspection endpoint.
type ClientAuth int

// The client authentication methods (RFC 6749 §2.3.1).
const (
	// ClientSecretBasic sends the client ID and secret in an HTTP Basic
	// Authorization header; the default.
	ClientSecretBasic ClientAuth = iota
	// ClientSecretPost sends them as client_id and client_secret form
	// fields.
	ClientSecretPost
)

// String returns the method's registered name, e.g. "client_secret_basic".
func (a ClientAuth) String() string {
	switch a {
	case ClientSecretBasic:
		return "client_secret_basic"
	case ClientSecretPost:
		return "client_secret_post"
	}
	return "ClientAuth(" + strconv.Itoa(int(a)) + ")"
}

// Introspection configures token introspection (RFC 7662).
type Introspection struct {
	// ClientID and ClientSecret authenticate the resource server to the
	// introspection endpoint; both required.
	ClientID, ClientSecret string
	// Auth is how they are sent; the default is ClientSecretBasic.
	Auth ClientAuth
	// Endpoint is the introspection endpoint; empty means the one the
	// issuer's metadata names (introspection_endpoint).
	Endpoint string
	// CacheTTL is how long a token's introspection result is reused, never
	// past the token's expiry; 0 means [DefaultIntrospectionCacheTTL],
	// negative disables the cache (every request is introspected).
	CacheTTL time.Duration
	// CacheSize is how many results are kept at most (the oldest go
	// first); 0 means [DefaultIntrospectionCacheSize].
	CacheSize int
}

// withDefaults returns c with its defaults filled in and its slices
// copied.
func (c Config) withDefaults() Config {
	c.ScopesSupported = slices.Clone(c.ScopesSupported)
	c.Algorithms = slices.Clone(c.Algorithms)
	if len(c.Algorithms) == 0 {
		c.Algorithms = slices.Clone(defaultAlgorithms)
	}
	c.TokenTypes = slices.Clone(c.TokenTypes)
	if len(c.TokenTypes) == 0 {
		c.TokenTypes = slices.Clone(defaultTokenTypes)
	}
	if c.ClockSkew == 0 {
		c.ClockSkew = DefaultClockSkew
	}
	if c.FetchTimeout == 0 {
		c.FetchTimeout = DefaultFetchTimeout
	}
	if c.KeyRefreshInterval == 0 {
		c.KeyRefreshInterval = DefaultKeyRefreshInterval
	}
	if c.KeyMaxAge == 0 {
		c.KeyMaxAge = DefaultKeyMaxAge
	}
	if c.TokenCacheSize == 0 {
		c.TokenCacheSize = DefaultTokenCacheSize
	}
	if c.Introspection != nil {
		in := *c.Introspection
		if in.CacheTTL == 0 {
			in.CacheTTL = DefaultIntrospectionCacheTTL
		}
		if in.CacheSize == 0 {
			in.CacheSize = DefaultIntrospectionCacheSize
		}
		c.Introspection = &in
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// validate checks a configuration with its defaults; errors name the
// field.
func (c *Config) validate() error {
	var errs []error
	add := func(field string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
		}
	}
	if c.Resource == "" {
		add("Resource", errors.New("required: the URL MCP clients connect to, e.g. https://mcp.example.com/mcp"))
	} else {
		add("Resource", checkURL(c.Resource))
	}
	if c.Issuer == "" {
		add("Issuer", errors.New("required: the authorization server's issuer identifier, e.g. https://auth.example.com"))
	} else {
		add("Issuer", checkURL(c.Issuer))
	}
	for i, s := range c.ScopesSupported {
		add(fmt.Sprintf("ScopesSupported[%d]", i), checkScope(s))
	}
	for i, a := range c.Algorithms {
		add(fmt.Sprintf("Algorithms[%d]", i), checkAlgorithm(a))
	}
	for i, t := range c.TokenTypes {
		if strings.TrimSpace(t) == "" {
			add(fmt.Sprintf("TokenTypes[%d]", i), errors.New("empty type"))
		}
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"ClockSkew", c.ClockSkew}, {"FetchTimeout", c.FetchTimeout}, {"KeyRefreshInterval", c.KeyRefreshInterval}, {"KeyMaxAge", c.KeyMaxAge}} {
		if d.v < 0 {
			add(d.field, fmt.Errorf("must not be negative (got %v)", d.v))
		}
	}
	if c.TokenCacheSize > maxTokenCacheSize {
		add("TokenCacheSize", fmt.Errorf("at most %d (got %d)", maxTokenCacheSize, c.TokenCacheSize))
	}
	if in := c.Introspection; in != nil {
		if in.ClientID == "" || in.ClientSecret == "" {
			add("Introspection", errors.New("ClientID and ClientSecret are required: the introspection endpoint authenticates the resource server"))
		}
		if in.Auth != ClientSecretBasic && in.Auth != ClientSecretPost {
			add("Introspection.Auth", fmt.Errorf("unknown method %d (want oauth.ClientSecretBasic or oauth.ClientSecretPost)", int(in.Auth)))
		}
		if in.Endpoint != "" {
			add("Introspection.Endpoint", checkURL(in.Endpoint))
		}
		if in.CacheSize < 0 {
			add("Introspection.CacheSize", fmt.Errorf("must not be negative (got %d)", in.CacheSize))
		}
	}
	return errors.Join(errs...)
}

// checkURL accepts an absolute https URL, or an http one on a loopback
// host, without query or fragment.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", s, err)
	}
	switch {
	case !u.IsAbs() || u.Host == "":
		return fmt.Errorf("%q is not an absolute URL", s)
	case u.Fragment != "" || strings.Contains(s, "#"):
		return fmt.Errorf("%q has a fragment", s)
	case u.RawQuery != "" || u.ForceQuery:
		return fmt.Errorf("%q has a query", s)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%q: http is allowed on loopback hosts only (127.0.0.1, ::1, localhost); use https", s)
	}
	return fmt.Errorf("%q: scheme %q, want https", s, u.Scheme)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkScope accepts an OAuth scope token (RFC 6749 §3.3), as the auth
// plugin does.
func checkScope(s string) error {
	if s == "" {
		return errors.New("empty scope")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return fmt.Errorf("scope %q: want printable ASCII without spaces, '\"' or '\\'", s)
		}
	}
	return nil
}

// checkAlgorithm accepts the asymmetric JWS algorithms.
func checkAlgorithm(a string) error {
	if slices.Contains(defaultAlgorithms, a) {
		return nil
	}
	switch {
	case strings.EqualFold(a, "none"):
		return errors.New(`"none" is never accepted: an unsigned token proves nothing`)
	case strings.HasPrefix(strings.ToUpper(a), "HS"):
		return fmt.Errorf("%q is symmetric: a resource server shares no secret with the authorization server (use its asymmetric keys)", a)
	}
	if near, ok := suggest.Closest(a, defaultAlgorithms); ok {
		return fmt.Errorf("unknown algorithm %q (did you mean %q?)", a, near)
	}
	return fmt.Errorf("unknown algorithm %q (want one of %s)", a, strings.Join(defaultAlgorithms, ", "))
}
