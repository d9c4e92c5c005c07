// Command cluster is a hookflow server meant to run as several instances
// behind a load balancer, sharing one Redis: its rate-limit budgets and its
// cache live in Redis, so the instances behave as one server. It serves
// stateless streamable HTTP, which any instance can answer.
//
//	cluster -http 127.0.0.1:8081 -redis 127.0.0.1:6379 -name i1 [-budget 40]
//
// Its tools:
//
//	lookup  read-only, cached in Redis: a forecast for a city
//	spend   limited to -budget calls across every instance (a per-tool budget)
//	work    sleeps ms milliseconds; records each call's start and finish in Redis
//	session_init, journal   the session gate: journal is blocked until the
//	        session is initialized; the client names its session in the
//	        X-Cluster-Session header, and its state lives in Redis
//
// Every result ends with a text block "served by <name>": for a cache hit,
// the instance that answered, which may differ from the one that executed.
//
// cluster_test.go starts three instances behind nginx with a real
// redis-server and checks that the budget is exact across instances, that a
// result one instance cached is served by another, that a session
// initialized on one instance is initialized on all, and that killing an
// instance mid-run loses no call its client was not told about; see
// docs/operations.md, "Several instances", for the nginx and Redis settings.
package main
