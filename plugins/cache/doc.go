// Package cache is hookflow's result cache: it answers calls to read-only
// and idempotent tools early, from a cache with a TTL and a size bound.
//
// # What is cached
//
// A tool is cacheable when its MCP annotations say ReadOnlyHint or
// IdempotentHint (//mcp:tool … readonly or idempotent). For such a tool,
// the plugin's beforeExecute hook (at priority.Cache, after ordinary
// hooks such as auth and rate limits) looks the call up by the tool's name,
// the canonical JSON of its validated arguments (object keys sorted, no
// insignificant whitespace) and, unless [Config.SharedAcrossPrincipals],
// the caller's principal. A hit answers with Respond: execute is skipped,
// afterExecute hooks still run on the cached output, and the audit plugin
// records the call as answered early, decided by the cache's lookup hook.
// A miss executes the tool; the plugin's afterExecute hook, which runs first
// in that stage, stores the output if the call succeeded (no error and no
// isError result).
//
// # No shared values
//
// Outputs are stored as JSON bytes and every hit decodes a fresh value of
// the tool's output type (or a fresh *mcp.CallToolResult), so a hook that
// modifies one call's output can never affect another's. An output that
// does not come back identical from a JSON round trip is not cached.
//
// # Backends
//
// [Backend] is a small interface (Get, Set with a TTL). [Memory], the
// default, is an in-process LRU map bounded by [Config.MaxEntries].
// [Redis] is shared by server instances behind a load balancer: what one
// instance stored answers the same call on another, and entries expire in
// Redis by their TTL. A stored output is decoded into the tool's own
// output type, which every instance knows; an output of a tool whose
// output type is an interface decodes only in the process that stored it
// (a miss elsewhere). A backend error is a miss, never a failed call.
package cache
