package command_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/command"
	"github.com/hookflow/hookflow/plugins/command/settings"
	"github.com/hookflow/hookflow/plugins/command/trust"
)

type deleteIn struct {
	Path  string `json:"path"`
	Force bool   `json:"force,omitempty"`
}

// Example runs a PreToolUse script written for a coding agent, unchanged,
// as a hook of a server: it reads the call on stdin and exits 2 to block.
func Example() {
	dir, err := os.MkdirTemp("", "hookflow-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	guard := filepath.Join(dir, "guard.sh")
	if err := os.WriteFile(guard, []byte(`#!/bin/bash
if grep -q '"force":true' <<<"$(cat)"; then
  echo "forced deletes need a human" >&2
  exit 2
fi
`), 0o755); err != nil {
		panic(err)
	}

	// snippet:start config
	cfg := command.Config{
		Settings: settings.Settings{
			"PreToolUse": {{Matcher: "delete", Hooks: []settings.Hook{{Command: guard, Timeout: 5 * time.Second}}}},
		},
		TrustStore: filepath.Join(dir, "trusted-hooks.json"),
	}
	// snippet:end config

	// What "hookflow hooks trust" does, once the script is reviewed.
	hooks, err := command.Inspect(cfg)
	if err != nil {
		panic(err)
	}
	err = trust.Update(cfg.TrustStore, func(s *trust.Store) (bool, error) {
		return s.Trust(hooks[0].Identity, hooks[0].Command, time.Now()), nil
	})
	if err != nil {
		panic(err)
	}

	srv := framework.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	err = framework.AddToolFunc(srv, &mcp.Tool{Name: "delete"}, func(_ context.Context, _ *mcp.CallToolRequest, in deleteIn) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted " + in.Path}}}, nil
	})
	if err != nil {
		panic(err)
	}
	hooksPlugin := command.New(cfg)
	defer hooksPlugin.Close(context.Background())
	if err := srv.Use(hooksPlugin); err != nil {
		panic(err)
	}
	if err := srv.Start(); err != nil {
		panic(err)
	}

	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	for _, args := range []deleteIn{{Path: "/tmp/cache", Force: true}, {Path: "/tmp/cache"}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete", Arguments: args})
		if err != nil {
			panic(err)
		}
		fmt.Printf("isError=%v: %s\n", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// isError=true: forced deletes need a human
	// isError=false: deleted /tmp/cache
}
