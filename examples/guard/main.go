package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"log/slog"
	"net"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/examples/guard/policy"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/intercept/host"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this address, behind the bearer token in $GUARD_TOKEN (stdio when empty)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	impl := &mcp.Implementation{Name: "guard", Version: "1.0.0"}
	cfg := host.Config{Interceptors: policy.HookflowInterceptors(), Logger: logger}
	if *addr == "" {
		srv := framework.NewServer(impl, &framework.Options{Logger: logger})
		if err := srv.Use(host.New(cfg)); err != nil {
			log.Fatal(err)
		}
		if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	token := os.Getenv("GUARD_TOKEN")
	if token == "" {
		log.Fatal(errors.New("guard: set GUARD_TOKEN: over HTTP the guard serves only callers with the token"))
	}
	h, err := host.Handler(cfg, host.Serve{Implementation: impl, Verify: host.Token(token), Logger: logger})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("guard: serving interceptors on http://%s", ln.Addr())
	log.Fatal(framework.NewHTTPServer("", h).Serve(ln))
}
