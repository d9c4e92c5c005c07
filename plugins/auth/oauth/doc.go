// Package oauth makes a hookflow server an OAuth 2.1 resource server as
// the MCP authorization specification (revision 2026-07-28) has it: it
// publishes its protected resource metadata, and accepts only access
// tokens that its authorization server issued for it.
//
// A [ResourceServer] is the token verifier and the metadata of one MCP
// server (one resource, [Config.Resource]) and one authorization server
// ([Config.Issuer]); the auth plugin (package auth) does the rest — the
// 401 and 403 challenges, scopes per tool, hiding the token from hooks:
//
//	rs, err := oauth.New(oauth.Config{
//		Resource:        "https://mcp.example.com/mcp",
//		Issuer:          "https://auth.example.com",
//		ScopesSupported: []string{"weather.read"},
//	})
//	a := auth.New(rs.AuthConfig(auth.Config{ScopeChallenge: true}))
//	srv.Use(a)
//	h, err := a.Handler(srv, nil)
//	mux.Handle(rs.MetadataPath(), rs.MetadataHandler()) // outside the middleware
//	mux.Handle("/mcp", h)
//
// # Configuration files
//
// [PluginConfig] is the auth plugin's section of a configuration file
// (the hookflow gateway's) with an oauth key, whose keys are [Config]'s
// yaml names; [NewPlugin] builds the plugin, whose handler serves the
// metadata in front of the middleware and discovers the authorization
// server before it serves:
//
//	auth:
//	  scopes: [mcp]
//	  oauth:
//	    resource: https://mcp.example.com/mcp
//	    issuer: https://auth.example.com
//	    scopes_supported: [mcp]
//
// No key takes a secret: the introspection client's secret is named by
// client_secret_env. [PluginConfig.Validate] reports each mistake at its
// path in the file ("oauth.issuer").
//
// # Discovery
//
// A client that calls without a token gets 401 with `WWW-Authenticate:
// Bearer scope="…", resource_metadata="…"`: the scopes to ask for, and
// the [ResourceServer.MetadataURL] (RFC 9728's well-known URI of the
// resource). The metadata names the authorization server; the client gets
// a token there, naming this server as the resource (RFC 8707), and calls
// again. A token lacking a tool's scopes gets 403 with an
// insufficient_scope challenge naming them (auth.Config.ScopeChallenge),
// and the client can step up.
//
// The scope of a 401 (a missing token, or an invalid_token one) is
// auth.Config.Scopes, which every request needs, followed by
// [Config.ScopesSupported], the metadata's scopes_supported, which
// [ResourceServer.AuthConfig] copies into auth.Config.ScopesSupported.
// MCP clients ask for the scopes a 401 names and read scopes_supported
// only when it names none, so without them in the 401 the metadata's list
// would never reach a client once any scope is named. The 401 is answered
// before the request's body is read, so a tool's own scopes are not in it:
// they come with the 403. Values are quoted as RFC 6750 §3 has them, with
// no escapes: scopes and the metadata URL contain no double quote or
// backslash (the configuration is refused otherwise), and in an
// error_description a double quote becomes an apostrophe.
//
// # JWT access tokens
//
// JWTs are checked locally as RFC 9068 access tokens, with go-jose (see
// [ResourceServer.Verify] for every check). The issuer's keys come from
// the jwks_uri of its metadata, found at the well-known URIs of RFC 8414
// and OpenID Connect Discovery in the order the MCP specification gives,
// and whose issuer must equal Config.Issuer; the metadata is fetched once
// (restart the server when its endpoints move); [Config.JWKSURL] names
// the keys instead, for a server without metadata. The keys are cached: a token
// signed by a key the cache does not know makes the server fetch the JWKS
// again — once, whatever the number of requests waiting for it, and at
// most once per [Config.KeyRefreshInterval] — so that a rotated key is
// picked up and forged kids cannot make the server hammer the
// authorization server. So does a token whose signature fails under the
// key of a kid the cache knows: an authorization server may rotate a key
// and keep its kid, and the token is checked once more with the kid's key
// of the new fetch. That fetch shares the limit of the unknown-kid one,
// so forged signatures cost the authorization server no more than forged
// kids: at most one JWKS request per KeyRefreshInterval, however many
// bad tokens arrive. Keys older than [Config.KeyMaxAge] are fetched
// again in the background. Every request to the authorization server is
// bounded by [Config.FetchTimeout]; when it cannot be reached, tokens it
// cannot check fail with an [*UnavailableError] (HTTP 500, not 401: the
// token may be good), and checks resume when it answers again.
//
// An accepted JWT is remembered by its SHA-256 ([Config.TokenCacheSize]
// of them at most, in a table that never grows), and the same token is
// accepted again without checking its signature and claims: never at or
// past its exp, and only while the keys that verified it are the current
// ones and younger than KeyMaxAge, so that a fetch of the JWKS (a rotated
// or withdrawn key) sends every token through the full check again.
// Refused tokens are not remembered.
//
// # Opaque tokens
//
// With [Config.Introspection], tokens that are not JWTs are checked at
// the introspection endpoint (RFC 7662), the resource server
// authenticating with its client credentials. The response is checked
// like a JWT's claims, audience included. Results are cached by the
// token's SHA-256, for [Introspection.CacheTTL] at most and never past
// the token's expiry, [Introspection.CacheSize] of them at most: a
// revoked token is refused at most CacheTTL later. Each token the cache
// does not hold costs a request to the authorization server, a bad one as
// much as a good one: bound the requests a client can make before it is
// authenticated (per address, in front of the server) if that matters.
//
// # Who is calling
//
// A verified token's [Principal] — subject, client ID, scopes, expiry —
// reaches hooks through Request().TokenInfo: [PrincipalOf] reads it. The
// subject is also TokenInfo.UserID, which flows.Request.Principal
// returns, so the audit plugin records it and the rate-limit plugin's
// PerPrincipal budgets are per subject; the client ID is
// flows.Request.ClientID, which the audit plugin records too.
//
// # What a token is never used for
//
// The token is not passed on: the auth plugin removes the Authorization
// header before any hook runs, and neither TokenInfo nor the Principal
// holds the token. A server that calls other services (a gateway calling
// upstream MCP servers) uses credentials of its own, as the specification
// requires (no token passthrough).
//
// Tokens bound to a key (DPoP, mTLS: a cnf claim) are refused, since this
// package does not check the proofs; so are tokens signed with symmetric
// algorithms or "none", whatever Config.Algorithms says.
package oauth
