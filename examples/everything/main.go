package main

//go:generate go tool hookgen

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

func main() {
	httpAddr := flag.String("http", "", "if set, serve streamable HTTP at this address (e.g. localhost:8080); otherwise use stdio")
	stateless := flag.Bool("stateless", true, "stateless streamable HTTP (no sessions); -stateless=false serves sessions")
	verbose := flag.Bool("v", false, "log every hook run to stderr")
	resume := flag.Bool("eventstore", false, "keep each stateful session's SSE events in memory, so that a client resumes a stream with Last-Event-ID")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var hookLog io.Writer
	if *verbose {
		hookLog = os.Stderr
	}
	srv, counts, err := newServer(hookLog)
	if err != nil {
		log.Fatal(err)
	}
	if *verbose {
		defer func() { fmt.Fprint(os.Stderr, counts.Table()) }()
	}
	var store mcp.EventStore
	if *resume {
		store = mcp.NewMemoryEventStore(nil)
	}
	if err := serve(ctx, srv, *httpAddr, &mcp.StreamableHTTPOptions{Stateless: *stateless, EventStore: store}); err != nil {
		stop()
		if *verbose {
			fmt.Fprint(os.Stderr, counts.Table())
		}
		log.Fatal(err)
	}
}

// newServer builds the conformance server: its entities, the hookcount
// plugin (logging each hook run to hookLog when it is non-nil) and the
// initialize hook. The server is started.
func newServer(hookLog io.Writer) (*framework.Server, *HookCount, error) {
	srv := framework.NewServer(&mcp.Implementation{Name: "mcp-conformance-test-server", Version: "1.0.0"}, &framework.Options{
		Logger:      slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Complete:    complete,
		Subscribe:   subscribe,
		Unsubscribe: unsubscribe,
	})
	// The list-changed trigger tools add entities at run time.
	if err := srv.Provide(func() framework.Registrar { return srv }); err != nil {
		return nil, nil, err
	}
	if err := RegisterHookflow(srv); err != nil {
		return nil, nil, err
	}
	counts := NewHookCount(hookLog)
	if err := srv.Use(counts); err != nil {
		return nil, nil, err
	}
	if err := srv.Start(); err != nil {
		return nil, nil, err
	}
	return srv, counts, nil
}

// serve serves srv until ctx is done: over stdio when addr is empty, else
// streamable HTTP on addr (every path) with opts, like go-sdk's
// everything-server. The watched resource is updated every 3 seconds
// while serving.
func serve(ctx context.Context, srv *framework.Server, addr string, opts *mcp.StreamableHTTPOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go updateWatched(ctx, srv.SDK(), watchedURI, 3*time.Second)

	if addr == "" {
		return srv.Run(ctx, &mcp.StdioTransport{})
	}
	h, err := srv.HTTPHandler(opts)
	if err != nil {
		return err
	}
	hs := framework.NewHTTPServer(addr, h)
	log.Printf("Conformance server listening at %s", addr)
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Open SSE streams never finish on their own: give requests a moment,
	// then close what is left.
	sctx, scancel := context.WithTimeout(context.Background(), time.Second)
	defer scancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
