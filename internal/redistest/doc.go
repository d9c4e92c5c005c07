// Package redistest gives hookflow's tests a real Redis server.
//
// A test asks a [Server] for an address with [Server.Addr]. The server is
// HOOKFLOW_REDIS_ADDR when that is set (.ci/run sets it); otherwise a
// redis-server from PATH, started on a free loopback port the first time it
// is needed and stopped by [Server.Close]; otherwise the test is skipped —
// or fails, when HOOKFLOW_REQUIRE_REDIS=1 (as in CI), so that CI cannot
// silently skip the Redis tests.
//
// A test package keeps one Server and runs its tests through it:
//
//	var redisServer redistest.Server
//
//	func TestMain(m *testing.M) { os.Exit(redisServer.Main(m)) }
package redistest
