package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

func main() {
	root := flag.String("root", ".", "the `directory` the tools list and delete in")
	settings := flag.String("settings", ".claude/settings.json", "the agents' settings `file` with the command hooks")
	store := flag.String("store", trust.DefaultPath(), "the trust store's `file`")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, hooks, err := newServer(*root, *settings, *store, logger)
	if err != nil {
		log.Fatal(err)
	}
	defer hooks.Close(context.Background())
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

// newServer builds the file server on root, with the command hooks of the
// settings file, trusted in store. It returns the plugin too: close it when
// the server stops, to kill the hooks still running.
func newServer(root, settings, store string, logger *slog.Logger) (*framework.Server, *command.Plugin, error) {
	srv := framework.NewServer(&mcp.Implementation{Name: "files", Version: "0.1.0"}, &framework.Options{Logger: logger})
	if err := addTools(srv, root); err != nil {
		return nil, nil, err
	}
	// snippet:start plugin
	hooks := command.New(command.Config{
		SettingsFile:   settings,
		TrustStore:     store,
		ServerName:     "files", // the agents call this server "files" …
		AgentToolNames: true,    // … and its tools mcp__files__<tool>
	})
	if err := srv.Use(hooks); err != nil {
		return nil, nil, err
	}
	// snippet:end plugin
	return srv, hooks, srv.Start()
}
