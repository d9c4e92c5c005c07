package oauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/go-jose/go-jose/v4"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/hookflow/hookflow/plugins/auth"
)

// ResourceServer verifies the access tokens of one MCP server (one
// resource) issued by one authorization server, and describes the
// resource in its protected resource metadata. Build it with [New]; it is
// safe for concurrent use.
type ResourceServer struct {
	cfg       Config
	algs      []jose.SignatureAlgorithm
	client    *http.Client
	now       func() time.Time
	discovery *discovery
	keys      *keySet
	// introspect is nil without Config.Introspection.
	introspect *introspector
	// verified is nil when Config.TokenCacheSize is negative.
	verified *verifiedTokens
}

// New returns a resource server configured by cfg. It fails, naming the
// fields, when cfg is invalid; it does not contact the authorization
// server (see [ResourceServer.Discover]).
func New(cfg Config) (*ResourceServer, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, errors.Join(errors.New("oauth: bad configuration"), err)
	}
	rs := &ResourceServer{cfg: cfg, algs: signatureAlgorithms(cfg.Algorithms), client: cfg.HTTPClient, now: time.Now}
	if rs.client == nil {
		rs.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return errNoRedirects }}
	}
	rs.discovery = &discovery{rs: rs}
	if cfg.JWKSURL != "" && (cfg.Introspection == nil || cfg.Introspection.Endpoint != "") {
		// Everything the metadata would tell is configured: none is
		// fetched.
		rs.discovery.meta = &issuerMetadata{Issuer: cfg.Issuer, JWKSURI: cfg.JWKSURL}
		if cfg.Introspection != nil {
			rs.discovery.meta.IntrospectionEndpoint = cfg.Introspection.Endpoint
		}
	}
	rs.keys = &keySet{rs: rs}
	rs.verified = newVerifiedTokens(cfg.TokenCacheSize)
	if cfg.Introspection != nil {
		rs.introspect = &introspector{rs: rs, cfg: *cfg.Introspection}
	}
	return rs, nil
}

// Verify checks a bearer token; it is an auth.TokenVerifier (the SDK's),
// for auth.Config.Verifier (see [ResourceServer.AuthConfig]). A token
// longer than Config.MaxTokenBytes is refused unread.
//
// A JWT (a JWS compact serialization) is checked locally as an RFC 9068
// access token: its alg is one of Config.Algorithms, its typ one of
// Config.TokenTypes, its signature verifies with the issuer's key named by
// its kid (see Config.KeyRefreshInterval for keys it does not know yet),
// iss is Config.Issuer, aud names Config.Resource, exp has not passed and
// nbf and iat have (all three within Config.ClockSkew), and it names a
// principal (sub, or client_id). Any other token is introspected when
// Config.Introspection is set (the response checked the same way, aud
// included), and refused otherwise. Tokens bound to a key (cnf) are
// refused: this server does not check DPoP or mTLS proofs. An accepted
// JWT is remembered (see Config.TokenCacheSize), and the same token is
// accepted again without these checks until its exp, or until the keys
// are fetched again or reach Config.KeyMaxAge.
//
// The TokenInfo has the token's scopes (scope, or scp), expiry, subject
// (as UserID) and client ID (as Extra["client_id"]), and its [Principal]
// (see [PrincipalOf]). A refused token gets a [*TokenError], which
// unwraps to auth.ErrInvalidToken (HTTP 401); when the authorization
// server cannot be asked, an [*UnavailableError] (HTTP 500).
func (rs *ResourceServer) Verify(ctx context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	if len(token) > rs.cfg.MaxTokenBytes {
		return nil, refuse(Malformed, "longer than Config.MaxTokenBytes ("+strconv.Itoa(rs.cfg.MaxTokenBytes)+" bytes)")
	}
	sum := sha256.Sum256([]byte(token))
	keys := rs.keys.snap.Load()
	if p := rs.verified.get(&sum, keys, rs.now(), rs.cfg.KeyMaxAge); p != nil {
		return p.tokenInfo(), nil
	}
	var (
		p   *Principal
		err error
	)
	if h, ok := parseHeader(token); ok {
		if p, err = rs.verifyJWT(ctx, token, h); err == nil {
			rs.verified.put(&sum, p, keys)
		}
	} else if rs.introspect != nil {
		p, err = rs.introspect.verify(ctx, token, &sum)
	} else {
		err = refuse(Malformed, "not a JWT, and without Config.Introspection opaque tokens cannot be checked")
	}
	if err != nil {
		return nil, err
	}
	return p.tokenInfo(), nil
}

// Discover fetches the authorization server's metadata and keys now,
// rather than for the first token, and reports what fails: a server
// calls it at start-up to stop early on a wrong Issuer. It waits no
// longer than ctx allows, and no fetch takes longer than
// Config.FetchTimeout.
func (rs *ResourceServer) Discover(ctx context.Context) error {
	m, err := rs.discovery.get(ctx)
	if err != nil {
		return err
	}
	if rs.cfg.Introspection != nil && rs.cfg.Introspection.Endpoint == "" && m.IntrospectionEndpoint == "" {
		return &UnavailableError{What: "metadata", Err: errors.New("Config.Introspection is set but the issuer's metadata has no introspection_endpoint; set Introspection.Endpoint")}
	}
	if m.JWKSURI == "" {
		if rs.cfg.Introspection != nil {
			return nil // opaque tokens only
		}
		return &UnavailableError{What: "metadata", Err: errors.New("the issuer's metadata has no jwks_uri, so JWT access tokens cannot be checked; set Config.Introspection for opaque tokens")}
	}
	if rs.keys.snap.Load() != nil {
		return nil
	}
	if ch := rs.keys.start(); ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if rs.keys.snap.Load() == nil {
		rs.keys.mu.Lock()
		defer rs.keys.mu.Unlock()
		if rs.keys.lastErr != nil {
			return rs.keys.lastErr
		}
		return &UnavailableError{What: "jwks", Err: errors.New("the keys were fetched too recently to fetch them again")}
	}
	return nil
}

// AuthConfig returns c set up for this resource server: its Verifier is
// [ResourceServer.Verify], its ResourceMetadataURL
// [ResourceServer.MetadataURL] (so that every 401 and 403 names the
// metadata), its ScopesSupported Config.ScopesSupported (so that a 401
// names the scopes the metadata lists), and its ClockSkew
// Config.ClockSkew (the SDK's middleware checks the expiry again). The
// other fields are c's: set ScopeChallenge for the 403 step-up challenge.
func (rs *ResourceServer) AuthConfig(c auth.Config) auth.Config {
	c.Verifier = rs.Verify
	c.ResourceMetadataURL = rs.MetadataURL()
	c.ScopesSupported = slices.Clone(rs.cfg.ScopesSupported)
	c.ClockSkew = rs.cfg.ClockSkew
	return c
}
