// Package oidctest gives hookflow's tests a real OAuth 2.1 authorization
// server: the npm package oidc-provider, run with Node 22 on a loopback port
// by the launcher provider.mjs beside this file.
//
// [Start] runs one for a test and stops it when the test ends. The server
// issues real tokens: JWT access tokens (RFC 9068) or opaque ones, bound to
// a resource by the RFC 8707 resource indicator, through client credentials
// ([Server.ClientCredentials]) and through authorization code with PKCE
// ([Server.AuthorizationCode], or [Server.Fetcher] for an MCP client's own
// OAuth flow). Its login and consent pages are replaced by an automatic
// login as the request's login_hint and a consent to every scope asked.
//
// The server sits behind a proxy that this package controls, whose URL is
// the issuer: [Server.SetJWKS] takes the JWKS endpoint down or makes it
// hang, [Server.JWKSFetches] counts its requests, and [Server.Rotate]
// restarts the server with new signing keys under the same issuer.
//
// Node and oidc-provider are found through HOOKFLOW_NODE and
// HOOKFLOW_OIDC_PROVIDER, which .ci/oidc-provider.sh prints after
// installing them (and .ci/run exports), or else where that script installs
// them by default (.ci/.tools/, or CONFORMANCE_TOOLS_DIR). Without them the
// test is skipped — or fails, when HOOKFLOW_REQUIRE_OIDC=1 (as in CI), so
// that CI cannot silently skip the OAuth tests.
package oidctest
