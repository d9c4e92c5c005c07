package main

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The prompts of the conformance server (the MRTR prompt is in mrtr.go).

// arg returns the prompt argument name, "" when absent.
func arg(req *mcp.GetPromptRequest, name string) string {
	if req.Params == nil {
		return ""
	}
	return req.Params.Arguments[name]
}

// userText is a user message with text.
func userText(text string) *mcp.PromptMessage {
	return &mcp.PromptMessage{Role: "user", Content: &mcp.TextContent{Text: text}}
}

// SimplePrompt has no arguments.
//
//mcp:prompt name=test_simple_prompt title="Simple Test Prompt" description="A simple prompt without arguments"
type SimplePrompt struct{}

// Get renders the prompt.
func (SimplePrompt) Get(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{
		Description: "A simple test prompt",
		Messages:    []*mcp.PromptMessage{userText("This is a simple prompt for testing.")},
	}, nil
}

// PromptWithArguments renders its two arguments.
//
//mcp:prompt name=test_prompt_with_arguments title="Prompt With Arguments" description="A prompt with required arguments"
//mcp:arg name=arg1 description="First test argument"
//mcp:arg name=arg2 description="Second test argument"
type PromptWithArguments struct{}

// Get renders the prompt.
func (PromptWithArguments) Get(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{
		Description: "A prompt with arguments",
		Messages:    []*mcp.PromptMessage{userText(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", arg(req, "arg1"), arg(req, "arg2")))},
	}, nil
}

// PromptWithEmbeddedResource embeds the resource its argument names.
//
//mcp:prompt name=test_prompt_with_embedded_resource title="Prompt With Embedded Resource" description="A prompt that includes an embedded resource"
//mcp:arg name=resourceUri description="URI of the resource to embed"
type PromptWithEmbeddedResource struct{}

// Get renders the prompt.
func (PromptWithEmbeddedResource) Get(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{
		Description: "A prompt with an embedded resource",
		Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: arg(req, "resourceUri"), MIMEType: "text/plain", Text: "Embedded resource content for testing.",
			}}},
			userText("Please process the embedded resource above."),
		},
	}, nil
}

// PromptWithImage includes an image.
//
//mcp:prompt name=test_prompt_with_image title="Prompt With Image" description="A prompt that includes image content"
type PromptWithImage struct{}

// Get renders the prompt.
func (PromptWithImage) Get(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{
		Description: "A prompt with an image",
		Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.ImageContent{Data: pngData, MIMEType: "image/png"}},
			userText("Please analyze the image above."),
		},
	}, nil
}
