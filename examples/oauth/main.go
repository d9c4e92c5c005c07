package main

//go:generate go tool hookgen

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

func main() {
	addr := flag.String("http", "127.0.0.1:8080", "serve streamable HTTP on this address")
	issuer := flag.String("issuer", "", "the authorization server's issuer identifier (required), e.g. https://auth.example.com")
	resource := flag.String("resource", "", "the server's canonical URL, which tokens must name as their audience (default http://<-http>/mcp)")
	introspect := flag.String("introspection-client", "", "introspect opaque tokens as this client, whose secret is $OAUTH_INTROSPECTION_SECRET")
	types := flag.String("token-types", "", `JWT "typ" values accepted, comma-separated (default at+jwt; "JWT" for servers that do not follow RFC 9068)`)
	flag.Parse()
	if *issuer == "" {
		fmt.Fprintln(os.Stderr, "oauth: -issuer is required: the URL of the authorization server that issues this server's tokens")
		flag.Usage()
		os.Exit(2)
	}
	cfg := oauth.Config{Resource: *resource, Issuer: *issuer}
	if cfg.Resource == "" {
		cfg.Resource = "http://" + *addr + "/mcp"
	}
	if *types != "" {
		for _, t := range strings.Split(*types, ",") {
			cfg.TokenTypes = append(cfg.TokenTypes, strings.TrimSpace(t))
		}
	}
	if *introspect != "" {
		cfg.Introspection = &oauth.Introspection{ClientID: *introspect, ClientSecret: os.Getenv("OAUTH_INTROSPECTION_SECRET")}
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	s, err := newServer(cfg, logger, slog.NewJSONHandler(os.Stderr, nil))
	if err != nil {
		log.Fatal(err)
	}
	defer s.close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := s.rs.Discover(ctx); err != nil {
		log.Fatalf("oauth: the authorization server %s: %v", *issuer, err)
	}
	log.Printf("oauth: serving MCP at %s (metadata at %s) on %s", cfg.Resource, s.rs.MetadataURL(), *addr)
	log.Fatal(framework.NewHTTPServer(*addr, s.handler).ListenAndServe())
}

// server is the example's server and what serves it.
type server struct {
	rs      *oauth.ResourceServer
	audit   *audit.Plugin
	handler http.Handler
}

// newServer builds the server for cfg (ScopesSupported and ResourceName
// are set here): its tools, the auth plugin checking tokens with the
// resource server (with the 403 step-up challenge), audit events to
// auditTo, and a per-subject rate limit. The handler serves MCP at the
// resource's path and the metadata at its well-known URI, outside the auth
// middleware: clients read it before they have a token.
func newServer(cfg oauth.Config, logger *slog.Logger, auditTo slog.Handler) (*server, error) {
	cfg.ScopesSupported = []string{"weather.read"}
	cfg.ResourceName = "hookflow OAuth example"
	cfg.Logger = logger
	rs, err := oauth.New(cfg)
	if err != nil {
		return nil, err
	}
	srv := framework.NewServer(&mcp.Implementation{Name: "oauth-example", Version: "0.1.0"}, &framework.Options{Logger: logger})
	if err := RegisterHookflow(srv); err != nil {
		return nil, err
	}
	s := &server{rs: rs, audit: audit.New(audit.Config{Handler: auditTo, Flows: []flows.ID{flows.ToolsCallTool}})}
	a := auth.New(rs.AuthConfig(auth.Config{ScopeChallenge: true, Audit: s.audit}))
	limit := ratelimit.New(ratelimit.Config{PerPrincipal: ratelimit.Limit{Burst: 60, Rate: 1}})
	if err := srv.Use(a, s.audit, limit); err != nil {
		return nil, err
	}
	if err := srv.Start(); err != nil {
		return nil, err
	}
	h, err := a.Handler(srv, nil)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(rs.MetadataPath(), rs.MetadataHandler())
	mux.Handle(mcpPath(cfg.Resource), h)
	s.handler = mux
	return s, nil
}

// mcpPath is the path of the resource URL, where MCP is served.
func mcpPath(resource string) string {
	u, err := url.Parse(resource) // checked by oauth.New
	if err != nil || u.Path == "" {
		return "/"
	}
	return u.Path
}

// close writes the queued audit events, giving a stuck sink five seconds.
func (s *server) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.audit.Close(ctx); err != nil {
		log.Printf("oauth: closing the audit plugin: %v (%d events dropped)", err, s.audit.Dropped())
	}
}
