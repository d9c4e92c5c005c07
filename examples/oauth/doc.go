// Command oauth is a hookflow server protected by OAuth, as the MCP
// authorization specification has it: an OAuth 2.1 resource server that
// publishes its protected resource metadata and accepts only access tokens
// its authorization server issued for it (plugins/auth/oauth).
//
//	go run ./examples/oauth -issuer https://auth.example.com
//	go run ./examples/oauth -issuer https://auth.example.com -http 127.0.0.1:8080 -resource https://mcp.example.com/mcp
//
// It serves MCP at the resource's path (http://127.0.0.1:8080/mcp by
// default) and the metadata at its well-known URI, and checks the issuer's
// metadata and keys at start-up. A client without a token gets 401 naming
// the metadata, which names the authorization server and the scope to ask
// for first (weather.read); the tool set_forecast needs weather.admin, and
// a client calling it with a token that lacks the scope gets 403 naming it,
// so that it can step up. whoami answers with the caller's principal.
// Audit events (with the caller's subject and client) go to stderr as JSON;
// each subject may make 60 calls a minute.
//
// Opaque tokens are introspected when -introspection-client is set; the
// client's secret is read from $OAUTH_INTROSPECTION_SECRET, never from the
// command line. docs/oauth.md sets it up with an authorization server.
package main
