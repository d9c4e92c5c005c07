package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/examples/apps/billing"
	"github.com/hookflow/hookflow/examples/apps/catalog"
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/cache"
	"github.com/hookflow/hookflow/stages"
)

func main() {
	demo := flag.Bool("demo", false, "connect an in-process client, call both apps' tools and print which hooks ran for each call")
	addr := flag.String("http", "", "serve streamable HTTP on this address (stdio when empty)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if *demo {
		err = runDemo(ctx, os.Stdout)
	} else {
		err = serve(ctx, *addr)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// serve serves the shop on stdio, or on streamable HTTP when addr is set,
// until ctx is done (or, on stdio, the client disconnects). Logs and audit
// events go to stderr.
func serve(ctx context.Context, addr string) error {
	s, err := newShop(shopOptions{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		return err
	}
	defer s.Audit.Close(context.Background()) // drains the audit queue
	if addr == "" {
		return s.Server.Run(ctx, &mcp.StdioTransport{})
	}
	h, err := s.Server.HTTPHandler(nil)
	if err != nil {
		return err
	}
	hs := framework.NewHTTPServer(addr, h)
	stopped := make(chan error, 1)
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		stopped <- hs.Shutdown(shutdown)
	}()
	log.Printf("apps: serving MCP on http://%s", addr)
	if err := hs.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return <-stopped // in-flight calls finish (and are audited) before Close
}

// shop is the server with its two apps and the values an operator (or the
// demo) looks at.
type shop struct {
	Server *framework.Server
	// Audit is attached to the billing app only.
	Audit *audit.Plugin
	// Cache is attached to the catalog app only.
	Cache *cache.Plugin
	// Calls counts tools/call requests; its hook is the server's, so it runs
	// for both apps.
	Calls *callCounter
}

// shopOptions configures newShop. The zero value logs nowhere and audits to
// the (discarding) server logger.
type shopOptions struct {
	Logger *slog.Logger
	// Observer sees every hook call and step (the demo prints them).
	Observer flows.Observer
	// AuditHandler receives the billing app's audit events; nil sends them
	// to Logger.
	AuditHandler slog.Handler
}

// newShop builds and starts the server: a counter hook on the server, the
// billing app with the audit plugin, the catalog app with the cache plugin.
func newShop(o shopOptions) (*shop, error) {
	srv := framework.NewServer(&mcp.Implementation{Name: "shop", Version: "0.1.0"}, &framework.Options{
		Logger:   o.Logger,
		Observer: o.Observer,
	})
	s := &shop{
		Server: srv,
		// Tool calls only. Flows without an entity (tools/list, initialize)
		// run every owner's hooks: auditing them from the billing app would
		// record every app's listings, and its tools:list-tools hooks would
		// also run in the visibility check of every tools/call, catalog's
		// included.
		Audit: audit.New(audit.Config{Handler: o.AuditHandler, Flows: []flows.ID{flows.ToolsCallTool}}),
		Cache: cache.New(cache.Config{TTL: time.Minute, MaxEntries: 1000}),
		Calls: &callCounter{},
	}

	// Server level: runs for the entities of every app.
	if err := srv.Hook(s.Calls.hook()); err != nil {
		return nil, err
	}

	billingApp, err := srv.App("billing")
	if err != nil {
		return nil, err
	}
	if err := errors.Join(
		billingApp.Provide(billing.NewLedger),
		billing.RegisterHookflow(billingApp),
		billingApp.Use(s.Audit), // billing's entities only
	); err != nil {
		return nil, err
	}

	catalogApp, err := srv.App("catalog")
	if err != nil {
		return nil, err
	}
	if err := errors.Join(
		catalog.RegisterHookflow(catalogApp),
		catalogApp.Use(s.Cache), // catalog's entities only
	); err != nil {
		return nil, err
	}

	if err := srv.Start(); err != nil { // plugins attach here: a bad config fails now
		s.Audit.Close(context.Background())
		return nil, err
	}
	return s, nil
}

// callCounter counts tools/call requests with one external hook owned by
// the server.
type callCounter struct{ n atomic.Int64 }

// hook is the counter's hook, at the default priority: in
// beforeValidation it runs after observers such as the audit plugin's.
func (c *callCounter) hook() flows.Hook {
	return flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Name: "count",
		Fn: func(*flows.Context) error {
			c.n.Add(1)
			return nil
		}}
}

// Load returns how many tool calls the server has received.
func (c *callCounter) Load() int64 { return c.n.Load() }
