package plugins_test

// The four first-party plugins together (auth, ratelimit, cache, audit) over
// real streamable HTTP, one concept per file:
//
//   - stack_test.go: the users, tokens, tools and the server they share.
//   - sinks_test.go: audit sinks that record, hang or fail.
//   - concurrent_test.go: TestAllPluginsConcurrent, 1,000 concurrent calls
//     across 10 sessions, every call answered, budgets exact, scope denials
//     explained, cache hits and audit events accounted for one by one
//     (memory and Redis backends).
//   - auditsink_test.go: TestAuditSinkFailingDoesNotBlock, an audit sink that
//     blocks forever and one that fails or panics: calls proceed, drops are
//     counted.
//   - redis_test.go: TestRedisUnreachableFailsClosedFast, Redis refusing
//     connections or accepting and never answering: refused within the rate
//     limiter's timeout (fail-closed, the default), or let through
//     (fail-open).
//   - cancel_test.go: a cancelled call is audited as cancelled.
//   - imports_test.go: no plugin depends on another plugin (go list).
//
// Run with -race. The Redis cases use HOOKFLOW_REDIS_ADDR, else start
// redis-server from PATH, else skip — or fail when HOOKFLOW_REQUIRE_REDIS=1.

import (
	"os"
	"testing"

	"github.com/hookflow/hookflow/internal/redistest"
)

// redisServer is the Redis the tests use (see internal/redistest).
var redisServer redistest.Server

func TestMain(m *testing.M) { os.Exit(redisServer.Main(m)) }

// redisAddr returns the address of a Redis server, or skips the test (fails
// it when HOOKFLOW_REQUIRE_REDIS=1).
func redisAddr(t testing.TB) string { return redisServer.Addr(t) }
