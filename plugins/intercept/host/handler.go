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
	"github.com/hookflow/hookflow/plugins/auth"
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
// serves the interceptors of cfg, behind bearer tokens checked by the auth
// plugin: a request without a valid token gets 401 before any message is
// read. It is the one call a remote hook written in Go needs:
//
//	h, err := host.Handler(host.Config{Interceptors: ics}, host.Serve{Verify: host.Token(secret)})
//	…
//	http.ListenAndServe(addr, h)
func Handler(cfg Config, srv Serve) (http.Handler, error) {
	if srv.Verify == nil {
		return nil, errors.New("host: Serve.Verify is required: an interceptor host refuses callers without a token")
	}
	impl := srv.Implementation
	if impl == nil {
		impl = &mcp.Implementation{Name: "interceptors"}
	}
	s := framework.NewServer(impl, &framework.Options{Logger: srv.Logger})
	a := auth.New(auth.Config{Verifier: srv.Verify, AllowMissingExpiration: true, Logger: srv.Logger})
	if err := s.Use(New(cfg), a); err != nil {
		return nil, err
	}
	opts := srv.HTTP
	if opts == nil {
		opts = &mcp.StreamableHTTPOptions{JSONResponse: true}
	}
	return a.Handler(s, opts)
}

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
