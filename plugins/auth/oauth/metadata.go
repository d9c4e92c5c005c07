package oauth

import (
	"net/http"
	"net/url"
	"slices"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// wellKnown is RFC 9728's well-known URI suffix.
const wellKnown = "/.well-known/oauth-protected-resource"

// Metadata returns the server's protected resource metadata (RFC 9728):
// its resource (Config.Resource), its authorization server
// (Config.Issuer), the scopes it supports (Config.ScopesSupported), that
// tokens go in the Authorization header, and its name and documentation
// when set. It returns a new value on every call.
func (rs *ResourceServer) Metadata() *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               rs.cfg.Resource,
		AuthorizationServers:   []string{rs.cfg.Issuer},
		ScopesSupported:        slices.Clone(rs.cfg.ScopesSupported),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           rs.cfg.ResourceName,
		ResourceDocumentation:  rs.cfg.ResourceDocumentation,
	}
}

// MetadataURL returns where the metadata is served: RFC 9728 §3.1's
// well-known URI of Config.Resource, the well-known suffix inserted
// between its host and its path (https://mcp.example.com/mcp →
// https://mcp.example.com/.well-known/oauth-protected-resource/mcp).
// That is where MCP clients look first when a 401 does not name it.
func (rs *ResourceServer) MetadataURL() string {
	u, _ := url.Parse(rs.cfg.Resource) // checked by New
	if u.Path == "/" || u.Path == "" {
		u.Path, u.RawPath = wellKnown, ""
	} else {
		u.Path, u.RawPath = wellKnown+u.Path, wellKnown+u.EscapedPath()
	}
	return u.String()
}

// MetadataPath returns the path of [ResourceServer.MetadataURL], where
// [ResourceServer.MetadataHandler] is to be mounted.
func (rs *ResourceServer) MetadataPath() string {
	u, _ := url.Parse(rs.cfg.Resource) // checked by New
	if u.Path == "/" || u.Path == "" {
		return wellKnown
	}
	return wellKnown + u.Path
}

// MetadataHandler serves the metadata as JSON, to anyone (CORS allows
// every origin: it is public, and clients need it before they have a
// token). Mount it at [ResourceServer.MetadataPath], outside the auth
// middleware.
func (rs *ResourceServer) MetadataHandler() http.Handler {
	return sdkauth.ProtectedResourceMetadataHandler(rs.Metadata())
}
