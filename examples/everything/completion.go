package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// complete answers every completion request with no values, like the
// reference server. hookflow uses it (Options.Complete) for prompts and
// templates without a completer of their own, which is all of them here.
func complete(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
}
