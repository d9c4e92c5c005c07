// Package upstream is the gateway's side of its upstream MCP servers:
// what it needs to reach them and to pass on what they send. Package
// gateway (the mount plugin) is its one importer; nothing here is user
// API.
//
// It holds the OAuth client tokens of an upstream behind an
// authorization server ([Tokens], [HTTPTransport]), the per-client-session
// queues of the notifications upstreams send ([Queues]), the count of
// the notifications an upstream session read that its handlers have not
// finished with ([Backlog]) and the transport that shows a stdio
// upstream's messages to it ([Observed]), the log of a stdio upstream's
// standard error ([Stderr]), and [Go], the goroutine that logs a panic
// rather than dying of it. Package gateway keeps the
// upstream sessions themselves (connecting, forwarding, routing what an
// upstream sends to the client session it is for) and uses these.
//
// Concurrency: every type here is safe for concurrent use. [Queues.Push]
// never blocks on a client: one goroutine per client session sends its
// queue, in order.
package upstream
