package main

import "runtime/debug"

// gatewayGCPercent is the garbage collector's target (the GOGC percentage)
// the gateway serves with when the environment does not set GOGC. Every
// message the gateway forwards is decoded by the MCP SDK with a fresh
// 32 KiB buffer, on both hops, so a call allocates hundreds of kilobytes
// that are garbage at once while the live heap stays small: at Go's
// default of 100 the collector runs every few calls. At 400 it runs about
// a quarter as often, for a larger peak heap (docs/gateway.md, "Memory",
// gives both measured). GOGC, and GOMEMLIMIT to cap the heap, still decide
// when set.
const gatewayGCPercent = 400

// tuneGC sets the collector's target to gatewayGCPercent unless getenv
// reports GOGC set, and reports the GOGC value in force ("" when tuneGC
// set it).
func tuneGC(getenv func(string) string) (fromEnv string) {
	if v := getenv("GOGC"); v != "" {
		return v
	}
	debug.SetGCPercent(gatewayGCPercent)
	return ""
}
