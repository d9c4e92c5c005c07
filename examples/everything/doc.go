// Command everything is the MCP conformance server rebuilt with hookflow.
//
// It serves the tools, resources, resource template and prompts that the
// official MCP conformance suite (@modelcontextprotocol/conformance) expects,
// with the same names, behaviours and command-line flags as go-sdk's
// conformance/everything-server, so the suite can be pointed at either
// binary. Every entity is a plain Go type (tools.go, mrtr.go, resources.go,
// prompts.go) registered by register.go the way hookgen generates it, and
// every request runs through its hookflow flow:
//
//   - the hookcount plugin (hookcount.go) hooks every stage of every flow and
//     counts the runs (-v logs each one to stderr, and prints the counts when
//     the server stops);
//   - AdvertiseHooks (hooks.go), a session:initialize afterExecute hook, adds
//     capabilities.experimental.hookflow to the initialize and server/discover
//     results, describing hookflow's flows and stages.
//
// None of the hooks change what the suite checks.
//
// Flags:
//
//	-http ADDR       serve streamable HTTP on ADDR, on every path (stdio when empty)
//	-stateless       stateless streamable HTTP (default true; -stateless=false for sessions)
//	-v               log every hook run to stderr
//
// Run the conformance suite (both legs: stateful on spec 2025-11-25, stateless
// on 2026-07-28; it installs node 22 and the pinned suite on first use):
//
//	go build -o /tmp/hookflow-everything ./examples/everything
//	.ci/conformance.sh /tmp/hookflow-everything
//
// A fully conformant server passes 42/42 checks on the stateful leg and
// 115/115 on the stateless leg; the script fails on anything else.
package main
