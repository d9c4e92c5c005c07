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
	// DefaultMaxTokenBytes is the longest bearer token accepted.
	DefaultMaxTokenBytes = 16 << 10
)

// maxMaxTokenBytes bounds Config.MaxTokenBytes: Go's HTTP server refuses
// longer headers anyway.
const maxMaxTokenBytes = 1 << 20

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
	// to, such as "https://mcp.example.com/mcp", which they send as the
	// resource indicator (RFC 8707) and which the protected resource
	// metadata names. A token is accepted only when its audience names
	// it. https, or http on a loopback host; no query or fragment.
	Resource string `yaml:"resource"`
	// Issuer is the authorization server's issuer identifier (RFC 8414),
	// such as "https://auth.example.com". Its metadata is discovered from it;
	// a token's iss must equal it. https, or http on a loopback host.
	Issuer string `yaml:"issuer"`
	// ScopesSupported are the scopes the metadata lists: those a client
	// asks for at first (the MCP specification: the minimal set for basic
	// use; tools needing more get them by step-up).
	ScopesSupported []string `yaml:"scopes_supported"`
	// ResourceName is the metadata's resource_name, a name for people;
	// optional.
	ResourceName string `yaml:"resource_name"`
	// ResourceDocumentation is the metadata's resource_documentation, the
	// URL of a page about the resource for people; optional.
	ResourceDocumentation string `yaml:"resource_documentation"`

	// Algorithms are the JWS algorithms a JWT access token may be signed
	// with; empty means the asymmetric ones (RS*, PS*, ES*, EdDSA).
	// Symmetric algorithms and "none" are refused.
	Algorithms []string `yaml:"algorithms"`
	// TokenTypes are the JWS "typ" header values accepted, compared without
	// case and without an "application/" prefix; empty means RFC 9068's
	// "at+jwt". Authorization servers that do not follow RFC 9068 type
	// their access tokens "JWT".
	TokenTypes []string `yaml:"token_types"`
	// ClockSkew is the tolerance on exp, nbf and iat; 0 means
	// [DefaultClockSkew]. Negative is an error.
	ClockSkew time.Duration `yaml:"clock_skew"`
	// MaxTokenBytes bounds the length of a bearer token: a longer one is
	// refused (401) before it is parsed, hashed or sent anywhere. 0 means
	// [DefaultMaxTokenBytes] (16 KiB, far more than an access token
	// needs); at most 1 MiB.
	MaxTokenBytes int `yaml:"max_token_bytes"`
	// JWKSURL is where the issuer's keys are (a JWK Set), for an
	// authorization server that publishes no metadata, or to use other
	// keys than its metadata's jwks_uri; empty means the jwks_uri its
	// metadata names. https, or http on a loopback host. With it, and
	// without introspection or with Introspection.Endpoint, no metadata
	// is fetched.
	JWKSURL string `yaml:"jwks_url"`

	// Introspection, when set, checks tokens that are not JWTs (opaque
	// tokens) with the authorization server's introspection endpoint
	// (RFC 7662). Without it, such tokens are refused.
	Introspection *Introspection `yaml:"introspection"`

	// HTTPClient makes the requests to the authorization server; nil
	// means a client of its own that follows no redirects. Each request
	// is bounded by FetchTimeout whatever the client's own timeout.
	HTTPClient *http.Client `yaml:"-"`
	// FetchTimeout bounds each request to the authorization server; 0
	// means [DefaultFetchTimeout].
	FetchTimeout time.Duration `yaml:"fetch_timeout"`
	// KeyRefreshInterval is the least time between two JWKS fetches; 0
	// means [DefaultKeyRefreshInterval]. It bounds what tokens signed with
	// unknown keys (rotated ones, or forged), or whose signature fails
	// under a known kid, can make the server fetch.
	KeyRefreshInterval time.Duration `yaml:"key_refresh_interval"`
	// KeyMaxAge is how long fetched keys are trusted before they are
	// fetched again; 0 means [DefaultKeyMaxAge].
	KeyMaxAge time.Duration `yaml:"key_max_age"`
	// TokenCacheSize is how many accepted JWTs are remembered, so that
	// the same token is accepted again without checking its signature
	// and claims: until its exp, and while the keys that verified it are
	// the current ones and younger than KeyMaxAge. The cache is a fixed
	// table of slots (the size rounded up to a power of two) found by
	// the token's SHA-256, never the token: distinct tokens beyond the
	// size take earlier tokens' slots, and memory does not grow. 0 means
	// [DefaultTokenCacheSize]; negative turns the cache off; at most
	// 1,048,576.
	TokenCacheSize int `yaml:"token_cache_size"`

	// Logger receives the server's logs (fetch failures); nil discards
	// them. Tokens are never logged. Go only: the auth plugin of a
	// configuration file gives its logger.
	Logger *slog.Logger `yaml:"-"`
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

// MarshalText returns the method's registered name.
func (a ClientAuth) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText sets the method from its registered name:
// client_secret_basic or client_secret_post.
func (a *ClientAuth) UnmarshalText(b []byte) error {
	for _, m := range []ClientAuth{ClientSecretBasic, ClientSecretPost} {
		if string(b) == m.String() {
			*a = m
			return nil
		}
	}
	return fmt.Errorf("want client_secret_basic or client_secret_post, got %q", b)
}

// Introspection configures token introspection (RFC 7662).
type Introspection struct {
	// ClientID is the resource server's client ID at the introspection
	// endpoint; required.
	ClientID string `yaml:"client_id"`
	// ClientSecret authenticates the resource server with ClientID;
	// required. A configuration file names the environment variable
	// that holds it, with client_secret_env: a secret does not belong in
	// the file.
	ClientSecret string `yaml:"client_secret" env:"client_secret_env,only"`
	// Auth is how they are sent: client_secret_basic (the default) or
	// client_secret_post.
	Auth ClientAuth `yaml:"auth"`
	// Endpoint is the introspection endpoint; empty means the one the
	// issuer's metadata names (introspection_endpoint).
	Endpoint string `yaml:"endpoint"`
	// CacheTTL is how long a token's introspection result is reused, never
	// past the token's expiry; 0 means [DefaultIntrospectionCacheTTL],
	// negative disables the cache (every request is introspected).
	CacheTTL time.Duration `yaml:"cache_ttl"`
	// CacheSize is how many results are kept at most (the oldest go
	// first); 0 means [DefaultIntrospectionCacheSize].
	CacheSize int `yaml:"cache_size"`
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
	if c.MaxTokenBytes == 0 {
		c.MaxTokenBytes = DefaultMaxTokenBytes
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

// problem is what is wrong with a setting of a [Config]: field is its
// Go path ("Introspection.Endpoint"), key its path in a configuration
// file ("introspection.endpoint").
type problem struct {
	field, key string
	err        error
}

// validate checks a configuration with its defaults; errors name the
// field.
func (c *Config) validate() error {
	var errs []error
	for _, p := range c.problems() {
		errs = append(errs, fmt.Errorf("%s: %w", p.field, p.err))
	}
	return errors.Join(errs...)
}

// problems returns what is wrong with a configuration with its
// defaults, in the order of its fields.
func (c *Config) problems() []problem {
	var ps []problem
	add := func(field, key string, err error) {
		if err != nil {
			ps = append(ps, problem{field, key, err})
		}
	}
	if c.Resource == "" {
		add("Resource", "resource", errors.New("required: the URL MCP clients connect to, e.g. https://mcp.example.com/mcp"))
	} else {
		add("Resource", "resource", checkURL(c.Resource))
	}
	if c.Issuer == "" {
		add("Issuer", "issuer", errors.New("required: the authorization server's issuer identifier, e.g. https://auth.example.com"))
	} else {
		add("Issuer", "issuer", checkURL(c.Issuer))
	}
	for i, s := range c.ScopesSupported {
		add(fmt.Sprintf("ScopesSupported[%d]", i), fmt.Sprintf("scopes_supported[%d]", i), checkScope(s))
	}
	for i, a := range c.Algorithms {
		add(fmt.Sprintf("Algorithms[%d]", i), fmt.Sprintf("algorithms[%d]", i), checkAlgorithm(a))
	}
	for i, t := range c.TokenTypes {
		if strings.TrimSpace(t) == "" {
			add(fmt.Sprintf("TokenTypes[%d]", i), fmt.Sprintf("token_types[%d]", i), errors.New("empty type"))
		}
	}
	for _, d := range []struct {
		field, key string
		v          time.Duration
	}{{"ClockSkew", "clock_skew", c.ClockSkew}, {"FetchTimeout", "fetch_timeout", c.FetchTimeout}, {"KeyRefreshInterval", "key_refresh_interval", c.KeyRefreshInterval}, {"KeyMaxAge", "key_max_age", c.KeyMaxAge}} {
		if d.v < 0 {
			add(d.field, d.key, fmt.Errorf("must not be negative (got %v)", d.v))
		}
	}
	if c.TokenCacheSize > maxTokenCacheSize {
		add("TokenCacheSize", "token_cache_size", fmt.Errorf("at most %d (got %d)", maxTokenCacheSize, c.TokenCacheSize))
	}
	if n := c.MaxTokenBytes; n < 0 || n > maxMaxTokenBytes {
		add("MaxTokenBytes", "max_token_bytes", fmt.Errorf("want 1 to %d bytes (got %d)", maxMaxTokenBytes, n))
	}
	if c.JWKSURL != "" {
		add("JWKSURL", "jwks_url", checkURL(c.JWKSURL))
	}
	if in := c.Introspection; in != nil {
		ps = append(ps, in.problems()...)
	}
	return ps
}

// problems returns what is wrong with an introspection configuration
// with its defaults.
func (in *Introspection) problems() []problem {
	var ps []problem
	add := func(field, key string, err error) {
		if err != nil {
			ps = append(ps, problem{"Introspection" + field, "introspection" + key, err})
		}
	}
	if in.ClientID == "" || in.ClientSecret == "" {
		key := ".client_id"
		if in.ClientID != "" {
			key = ".client_secret_env"
		}
		add("", key, errors.New("a client ID and a client secret are required: the introspection endpoint authenticates the resource server"))
	}
	if in.Auth != ClientSecretBasic && in.Auth != ClientSecretPost {
		add(".Auth", ".auth", fmt.Errorf("unknown method %d (want oauth.ClientSecretBasic or oauth.ClientSecretPost)", int(in.Auth)))
	}
	if in.Endpoint != "" {
		add(".Endpoint", ".endpoint", checkURL(in.Endpoint))
	}
	if in.CacheSize < 0 {
		add(".CacheSize", ".cache_size", fmt.Errorf("must not be negative (got %d)", in.CacheSize))
	}
	return ps
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
