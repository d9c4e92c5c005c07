// Command interceptclient is a Go MCP client that runs SEP-2624
// interceptors on the requests it sends, with intercept.Chain: before a
// tools/call leaves the process, a mutator redacts the secrets in its
// arguments, then two validators look at what will go out — one blocks
// a call that still holds a secret, the other a call of a forbidden tool.
// The interceptors are written in Go (package host) and served in
// process; a remote host (intercept.Server's URL or Command) plugs in the
// same way.
//
// The order is the SEP's for data a client sends: mutate, then validate.
// The secret check sees the redacted request, so the call goes through;
// a server that received the same request would validate it first.
//
//	go run ./examples/interceptclient                       # against an in-process upstream that prints what it receives
//	go run ./examples/interceptclient -upstream http://127.0.0.1:8080/mcp -tool send_message -args '{"to":"ops","body":"key sk_live_abc"}'
package main
