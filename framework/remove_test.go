package framework_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

func TestRemoveEntities(t *testing.T) {
	srv := framework.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	app, err := srv.App("a")
	if err != nil {
		t.Fatal(err)
	}
	tool := func(context.Context, *mcp.CallToolRequest, struct{}) (any, error) { return nil, nil }
	read := func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	}
	get := func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}
	for _, err := range []error{
		framework.AddToolFunc(srv, &mcp.Tool{Name: "keep", Description: "d"}, tool),
		framework.AddToolFunc(app, &mcp.Tool{Name: "gone", Description: "d"}, tool),
		framework.AddResourceFunc(app, &mcp.Resource{URI: "x://r", Name: "r"}, nil, read),
		framework.AddResourceFunc(app, nil, &mcp.ResourceTemplate{URITemplate: "x://t/{id}", Name: "t"}, read),
		framework.AddPromptFunc(app, &mcp.Prompt{Name: "p"}, get),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.RemoveTool("gone"); flows.CodeOf(err) != flows.CodeNotFound {
		t.Errorf("RemoveTool before Start: %v, want a not_found error", err)
	}
	if srv.HasPrompt("p") || srv.HasResource("x://r") {
		t.Error("HasPrompt or HasResource before Start: true, want false")
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if !srv.HasPrompt("p") || !srv.HasResource("x://r") || !srv.HasResource("x://t/{id}") || srv.HasPrompt("nope") || srv.HasResource("x://nope") {
		t.Error("HasPrompt or HasResource after Start: want true for p, x://r and x://t/{id} only")
	}
	for _, err := range []error{srv.RemoveTool("gone"), srv.RemoveResource("x://r"), srv.RemoveResource("x://t/{id}"), srv.RemovePrompt("p")} {
		if err != nil {
			t.Errorf("removing: %v", err)
		}
	}
	for _, err := range []error{srv.RemoveTool("gone"), srv.RemoveResource("x://r"), srv.RemovePrompt("nope")} {
		if flows.CodeOf(err) != flows.CodeNotFound {
			t.Errorf("removing again: %v, want a not_found error", err)
		}
	}
	if _, ok := srv.Tool("gone"); ok {
		t.Error("the removed tool is still known")
	}
	if srv.HasPrompt("p") || srv.HasResource("x://r") || srv.HasResource("x://t/{id}") {
		t.Error("a removed prompt or resource is still known")
	}

	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "keep" {
		t.Errorf("tools/list = %v, %v; want only keep", tools, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "gone"}); err == nil {
		t.Error("calling the removed tool succeeded")
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "x://t/1"}); err == nil {
		t.Error("reading through the removed template succeeded")
	}
}
