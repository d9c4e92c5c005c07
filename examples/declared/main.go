package main

//go:generate go tool hookgen

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/declared"
)

func main() {
	demo := flag.Bool("demo", false, "run a host's session against the server in-process and print what it would inject")
	addr := flag.String("http", "", "serve streamable HTTP on this address (path /mcp) instead of stdio")
	flag.Parse()
	ctx := context.Background()
	if *demo {
		if err := runDemo(ctx, os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	srv, err := newServer(seeded())
	if err != nil {
		log.Fatal(err)
	}
	if *addr == "" {
		if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	h, err := srv.HTTPHandler(nil)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	log.Printf("declared: serving MCP on http://%s/mcp", *addr)
	log.Fatal(framework.NewHTTPServer(*addr, mux).ListenAndServe())
}

// newServer builds the memory server on store, with the declared plugin
// advertising the package's declarations.
func newServer(store *Store) (*framework.Server, error) {
	srv := framework.NewServer(&mcp.Implementation{Name: "memory", Version: "0.1.0"}, &framework.Options{
		Instructions: "A semantic memory: store what you learn with store_memory, find it with search_memories.",
	})
	if err := srv.Provide(func() *Store { return store }); err != nil {
		return nil, err
	}
	if err := RegisterHookflow(srv); err != nil {
		return nil, err
	}
	if err := srv.Use(declared.New(declared.Config{Declarations: DeclaredHooks()})); err != nil {
		return nil, err
	}
	return srv, srv.Start()
}

// seeded returns a store with what an earlier session of project "shop"
// stored.
func seeded() *Store {
	return &Store{memories: []Memory{
		{Project: "shop", Fact: "The CI runs go test -race; the cart tests are slow, run them last."},
		{Project: "shop", Fact: "Prices are integers in cents, never floats."},
	}}
}
