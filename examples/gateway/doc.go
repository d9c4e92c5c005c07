// Package gateway holds gateway.yaml, a configuration of the hookflow
// command's gateway: examples/everything (the server the MCP conformance
// suite runs against) served through hookflow with auth, a rate limit and
// audit in front of it. From the repository's root:
//
//	GATEWAY_TOKEN=demo go run ./cmd/hookflow gateway -config examples/gateway/gateway.yaml
//
// gateway_test.go runs exactly that and calls the upstream's tools through
// it, faster than the rate limit allows too; docs/gateway.md describes the
// configuration.
//
// guarded.yaml puts the interceptors of examples/guard, served over
// streamable HTTP, in front of the same server instead:
//
//	GUARD_TOKEN=s3cret go run ./examples/guard -http 127.0.0.1:8090 &
//	GUARD_TOKEN=s3cret go run ./cmd/hookflow gateway -config examples/gateway/guarded.yaml
//
// gateway_test.go runs that too, with a call the guard redacts and one it
// refuses.
package gateway
