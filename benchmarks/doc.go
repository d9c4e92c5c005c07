// Command benchmarks compares hookflow with the MCP servers it is measured
// against: the same trivial tool (greet) served over streamable HTTP by
// go-sdk directly, go-sdk with 10 middlewares, hookflow with 0 and 10
// hooks, hookflow with the auth, ratelimit, cache and audit plugins, and
// mcp-go with 10 hooks (with and without its input and output schema
// validation, which hookflow always does). Each peer runs in a process of its own; a raw
// JSON-RPC load generator (its own sessions, SSE and JSON answers, every
// answer checked) calls it at several concurrencies, stateful and
// stateless, in interleaved rounds, and the report gives medians and
// ratios, calls/s, p50 and p99 latency, RSS under load and memory per
// idle session.
//
//	go run . run -rounds 5 -calls 5000 > results.md
//	go run . serve -peer hookflow-10 -addr 127.0.0.1:8080   # one peer, by hand
//
// This module is separate from hookflow's so that its peers never enter
// hookflow's go.mod.
package main
