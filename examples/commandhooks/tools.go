package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/framework"
)

// ListIn is the input of list.
type ListIn struct {
	Path string `json:"path,omitempty" jsonschema:"a directory below the root; empty for the root"`
}

// DeleteIn is the input of delete.
type DeleteIn struct {
	Path      string `json:"path" jsonschema:"a file or directory below the root"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"delete a directory and everything in it"`
}

// addTools adds list and delete, which work below root.
func addTools(srv *framework.Server, root string) error {
	inside := func(p string) (string, error) {
		full := filepath.Join(root, p)
		if rel, err := filepath.Rel(root, full); err != nil || strings.HasPrefix(rel, "..") {
			return "", fmt.Errorf("%s is outside the root", p)
		}
		return full, nil
	}
	err := framework.AddToolFunc(srv, &mcp.Tool{Name: "list", Description: "List a directory."},
		func(_ context.Context, _ *mcp.CallToolRequest, in ListIn) (*mcp.CallToolResult, error) {
			dir, err := inside(in.Path)
			if err != nil {
				return nil, err
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				return nil, err
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			return text(strings.Join(names, "\n")), nil
		})
	if err != nil {
		return err
	}
	return framework.AddToolFunc(srv, &mcp.Tool{Name: "delete", Description: "Delete a file, or a directory with recursive.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)}},
		func(_ context.Context, _ *mcp.CallToolRequest, in DeleteIn) (*mcp.CallToolResult, error) {
			p, err := inside(in.Path)
			if err != nil {
				return nil, err
			}
			if in.Recursive {
				err = os.RemoveAll(p)
			} else {
				err = os.Remove(p)
			}
			if err != nil {
				return nil, err
			}
			return text("deleted " + in.Path), nil
		})
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
