// Command quickstart is a small hookflow server: three tools, a resource and
// a prompt with embedded hooks, plus the audit and auth plugins.
//
// The tools, resource and prompt are plain Go types in tools.go, declared with
// //mcp: and //hook: directives; go generate runs hookgen, which writes their
// registration code, RegisterHookflow, into hookgen_gen.go.
//
//	go run ./examples/quickstart -demo      # call the tools in-process and print each run's hooks
//	go run ./examples/quickstart            # serve on stdio
//	go run ./examples/quickstart -http 127.0.0.1:8080 -token s3cret
//	HOOKFLOW_CONSOLE_TOKEN=<16+ characters> go run ./examples/quickstart -http 127.0.0.1:8080 -console 127.0.0.1:9090
//
// Over HTTP with -token, requests need "Authorization: Bearer <token>"; the
// token carries the weather.admin scope that set_forecast requires. A
// request without it gets 401 with a challenge naming the server's OAuth
// protected resource metadata, served without a token at
// /.well-known/oauth-protected-resource. Without
// -token (and over stdio) nobody has that scope, so the auth plugin hides
// set_forecast and blocks calls to it. Audit events go to stderr as JSON,
// or with -audit <file> to that file, rotated by size.
//
// With -console the console (plugins/console) serves the recent runs, each
// hook's outcome, the plans and the rates at http://<address>/console,
// behind the token in HOOKFLOW_CONSOLE_TOKEN (as a bearer token, or the
// password a browser asks for); set_forecast's description is redacted.
package main
