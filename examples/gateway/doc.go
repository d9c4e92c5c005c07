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
package gateway
