// Package upstream is the gateway's side of its upstream MCP servers:
// what it needs to reach them and to pass on what they send. Package
// gateway (the mount plugin) is its one importer; nothing here is user
// API.
//
// Package gateway keeps each upstream's own session (connected at Start,
// reconnected when it goes away) and when to open, replace or reap the
// others, what the sessions list and mount, the forwarding of requests
// and what becomes of their failures. Upstream sessions, and what they
// use, knowing nothing of mounting, are here:
//
//   - [Session], one upstream session: its SDK client, its transport
//     (stdio or HTTP) and its handlers of what the upstream sends; it
//     tells the gateway what concerns mounting through the [Host] the
//     gateway gives it, and closes itself when, suspect, it does not
//     answer a ping ([Session.Check]);
//   - [Pool], an upstream's sessions other than the gateway's own, by
//     key (a client session's own, or a shared one): each opened once
//     however many requests wait for it ([Slot]), held until it ends
//     (closed with its client session), replaced once over, the client
//     sessions' bounded, retired then closed once idle, all dropped
//     when the upstream goes away;
//   - [Backoff], the wait between two attempts to reconnect an upstream
//     that went away, and the restart of what watches it after a panic;
//   - the OAuth client tokens of an upstream behind an authorization
//     server ([Tokens], [HTTPTransport]);
//   - the per-client-session queues of the notifications upstreams send
//     ([Queues]);
//   - the count of the notifications an upstream session read that its
//     handlers have not finished with, and the transport that shows a
//     stdio upstream's messages to the gateway, both within [Session];
//   - the calls in flight through an upstream session ([Calls]), by
//     which what the upstream sends about one reaches the client session
//     that made it ([Relay]);
//   - the requests in flight through each upstream session, which make
//     it busy or idle: a [Pool] counts them;
//   - the log of a stdio upstream's standard error, which a [Session]
//     over stdio keeps;
//   - [Go], the goroutine that logs a panic rather than dying of it.
//
// Concurrency: every type here is safe for concurrent use. [Queues.Push]
// never blocks on a client: one goroutine per client session sends its
// queue, in order.
package upstream
