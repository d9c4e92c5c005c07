package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The resources and the resource template of the conformance server.

const (
	watchedURI       = "test://watched-resource"
	dataTemplate     = "test://template/{id}/data"
	dataTemplateHead = "test://template/"
	dataTemplateTail = "/data"
)

// contents is a read result with one item.
func contents(c *mcp.ResourceContents) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}
}

// StaticText is a text resource.
//
//mcp:resource uri="test://static-text" name="static-text" description="A static text resource for testing" mime="text/plain"
type StaticText struct{}

// Read returns the text.
func (StaticText) Read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return contents(&mcp.ResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "This is the content of the static text resource."}), nil
}

// StaticBinary is a binary resource: a PNG image.
//
//mcp:resource uri="test://static-binary" name="static-binary" description="A static binary resource (image) for testing" mime="image/png"
type StaticBinary struct{}

// Read returns the image.
func (StaticBinary) Read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return contents(&mcp.ResourceContents{URI: req.Params.URI, MIMEType: "image/png", Blob: pngData}), nil
}

// WatchedResource is a resource that subscribers hear about every 3
// seconds (see updateWatched).
//
//mcp:resource uri="test://watched-resource" name="watched-resource" description="A resource that auto-updates every 3 seconds" mime="text/plain"
type WatchedResource struct{}

// Read returns the content.
func (WatchedResource) Read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return contents(&mcp.ResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "Watched resource content"}), nil
}

// DataTemplate is the template test://template/{id}/data.
//
//mcp:resource-template uri="test://template/{id}/data" name="template" description="A resource template with parameter substitution" mime="application/json"
type DataTemplate struct{}

// Read returns JSON text about the id. The SDK only calls it for URIs that
// match the template, so the id is what lies between its fixed parts; like
// the reference server, it is not percent-decoded.
func (DataTemplate) Read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id := strings.TrimSuffix(strings.TrimPrefix(uri, dataTemplateHead), dataTemplateTail)
	text := fmt.Sprintf(`{"id": "%s", "templateTest": true, "data": "Data for ID: %s"}`, id, id)
	return contents(&mcp.ResourceContents{URI: uri, MIMEType: "application/json", Text: text}), nil
}

// updateWatched tells the sessions subscribed to uri that it changed, every
// period, until ctx is done.
func updateWatched(ctx context.Context, srv *mcp.Server, uri string, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
}

// subscribe and unsubscribe accept every subscription; the SDK keeps track
// of them and sends updates to subscribers only.
func subscribe(context.Context, *mcp.SubscribeRequest) error { return nil }

func unsubscribe(context.Context, *mcp.UnsubscribeRequest) error { return nil }
