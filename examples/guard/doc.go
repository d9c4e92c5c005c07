// Command guard is an interceptor host: it serves the interceptors of
// package policy — a PII-redacting mutator and a validator that refuses
// destructive commands — to hookflow servers (plugins/intercept) and any
// other SEP-2624 invoker, over streamable HTTP behind a bearer token, or
// over stdio.
//
//	GUARD_TOKEN=s3cret go run ./examples/guard -http 127.0.0.1:8090
//	go run ./examples/guard            # stdio, for a plugin that starts it as a command
//
// examples/guarded is a server that uses it, and
// examples/gateway/guarded.yaml puts it in front of a gateway's upstream.
package main
