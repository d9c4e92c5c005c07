package main

//go:generate go tool hookgen

import (
	"context"
	"errors"
	"flag"
	"log"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/guidance"
	"github.com/hookflow/hookflow/plugins/sessiongate"
)

func main() {
	demo := flag.Bool("demo", false, "connect an in-process client and print what the model receives at each step")
	addr := flag.String("http", "", "serve streamable HTTP on this address (stdio when empty)")
	flag.Parse()

	if *demo {
		if err := runDemo(context.Background(), os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	s, err := newServer(serverOptions{logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		log.Fatal(err)
	}
	if *addr == "" {
		if err := s.srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	h, err := s.srv.HTTPHandler(nil)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("guidance example: serving MCP on http://%s", *addr)
	log.Fatal(framework.NewHTTPServer(*addr, h).ListenAndServe())
}

// server is the example's server and its two plugins.
type server struct {
	srv   *framework.Server
	guide *guidance.Plugin
	gate  *sessiongate.Plugin
}

// serverOptions are what the demo changes.
type serverOptions struct {
	logger *slog.Logger
	// step is called before import_notes imports each note.
	step ImportStep
	// onTransition sees the session gate's transitions.
	onTransition func(sessiongate.Transition)
}

// gated are the tools that need an initialized session.
var gated = []string{"save_note", "list_notes", "import_notes"}

// newServer builds the notes server: its tools, prompt and tool guidance
// from the directives of tools.go (RegisterHookflow, HookflowGuidance), the
// session guidance of session.go, the guidance plugin with memory storage,
// and the session gate.
func newServer(opts serverOptions) (*server, error) {
	srv := framework.NewServer(&mcp.Implementation{Name: "guided-notes", Version: "0.1.0"}, &framework.Options{
		Instructions: "A notes server.",
		Logger:       opts.logger,
	})
	s := &server{
		srv: srv,
		guide: guidance.New(guidance.Config{
			App:     "notes",
			Hooks:   append(sessionHooks(), HookflowGuidance()...),
			Storage: []string{"memory"},
		}),
		gate: sessiongate.New(sessiongate.Config{Requires: gated, OnTransition: opts.onTransition}),
	}
	err := errors.Join(
		srv.Provide(NewNotes),
		srv.Provide(func() ImportStep { return opts.step }),
		RegisterHookflow(srv),
		srv.Use(s.gate, s.guide),
	)
	if err != nil {
		return nil, err
	}
	if err := srv.Start(); err != nil {
		return nil, err
	}
	return s, errors.Join(s.gate.Check(), s.guide.Check())
}
