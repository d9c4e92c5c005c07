package host

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// Serve is what [Handler] needs to serve interceptors over HTTP.
type Serve struct {
	// Implementation names the server to invokers; nil uses
	// {Name: "interceptors"}.
	Implementation *mcp.Implementation
	// Verify checks the bearer token of every request (see [Token] for one
	// shared secret); required: an interceptor sees every governed
	// payload, so its host never serves anonymous callers.
	Verify sdkauth.TokenVerifier
	// HTTP are the SDK's options for the streamable handler; nil answers
	// with plain JSON rather than event streams, and keeps sessions, both
	// of which cost invokers less per invocation. Set Stateless for
	// replicas behind a load balancer without affinity: interceptors keep
	// no state between invocations (plugins/intercept reconnects when a
	// host loses its session either way).
	HTTP *mcp.StreamableHTTPOptions
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
}

// Handler returns a streamable HTTP handler for a new hookflow server that
// serves the interceptors of cfg, behind bearer tokens checked by the MCP
// SDK's auth.RequireBearerToken with srv.Verify: a request without a valid
// token gets 401 before any message is read, and the Authorization header
// is removed before the server sees the request. It is the one call a
// remote hook written in Go needs:
//
//	h, err := host.Handler(host.Config{Interceptors: ics}, host.Serve{Verify: host.Token(secret)})
//	…
//	framework.NewHTTPServer(addr, h).ListenAndServe()
func Handler(cfg Config, srv Serve) (http.Handler, error) {
	if srv.Verify == nil {
		return nil, errors.New("host: Serve.Verify is required: an interceptor host refuses callers without a token")
	}
	impl := srv.Implementation
	if impl == nil {
		impl = &mcp.Implementation{Name: "interceptors"}
	}
	s := framework.NewServer(impl, &framework.Options{Logger: srv.Logger})
	if err := s.Use(New(cfg)); err != nil {
		return nil, err
	}
	opts := srv.HTTP
	if opts == nil {
		opts = &mcp.StreamableHTTPOptions{JSONResponse: true}
	}
	h, err := s.HTTPHandler(opts)
	if err != nil {
		return nil, err
	}
	return guard(srv.Verify, srv.Logger, h), nil
}

// guard puts next behind the SDK's bearer-token middleware with verify,
// and removes the Authorization header from the requests it lets through,
// so that nothing behind it can read or pass on the token. The verifier's
// errors reach the caller, and the log, as fixed texts: a verifier may
// quote the token it refuses.
func guard(verify sdkauth.TokenVerifier, logger *slog.Logger, next http.Handler) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	fixed := func(ctx context.Context, token string, r *http.Request) (*sdkauth.TokenInfo, error) {
		ti, err := verify(ctx, token, r)
		if err == nil {
			return ti, nil
		}
		logger.LogAttrs(ctx, slog.LevelDebug, "host: token refused", slog.String("remote", r.RemoteAddr))
		switch {
		case errors.Is(err, sdkauth.ErrInvalidToken):
			return nil, sdkauth.ErrInvalidToken
		case errors.Is(err, sdkauth.ErrOAuth):
			return nil, sdkauth.ErrOAuth
		}
		return nil, errVerification
	}
	require := sdkauth.RequireBearerToken(fixed, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	return require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			r2 := new(http.Request)
			*r2 = *r
			r2.Header = r.Header.Clone()
			r2.Header.Del("Authorization")
			r = r2
		}
		next.ServeHTTP(w, r)
	}))
}

var errVerification = errors.New("token verification failed")

// Token returns a verifier that accepts one bearer token, secret, compared
// in constant time; the caller's principal is "interceptor-invoker". An
// empty secret accepts nothing.
func Token(secret string) sdkauth.TokenVerifier {
	return func(_ context.Context, got string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		if secret == "" || subtle.ConstantTimeCompare([]byte(got), []byte(secret)) != 1 {
			return nil, fmt.Errorf("host: unknown token: %w", sdkauth.ErrInvalidToken)
		}
		return &sdkauth.TokenInfo{UserID: "interceptor-invoker", Expiration: time.Now().Add(time.Hour)}, nil
	}
}
