// Package client evaluates SEP-2282 server-declared hooks in a host built
// on the MCP Go SDK's client: it reads the declarations each server sent
// in its initialize result, fires them at the host's lifecycle events and
// returns the text to inject into the agent's context, under the host's
// policy. It never runs server code: a declaration's text is static, or
// the result of a tool the declaring server itself provides.
//
// # Use
//
// Declare the events the host fires when connecting, so that servers
// send their declarations ([declared.DeclareSupport]); add each session
// under the name the user knows the server by; fire the host's events:
//
//	caps := declared.DeclareSupport(nil, declared.SessionStart, declared.PostToolUse)
//	cs, _ := mcp.NewClient(impl, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, transport, nil)
//	hooks, _ := client.New(client.Config{Project: "shop", Trust: map[string]client.Trust{"memory": client.Trusted}})
//	hooks.Add(ctx, "memory", cs)
//	…
//	for _, in := range hooks.Fire(ctx, client.Firing{Event: declared.PostToolUse, Tool: &call}) {
//		// put in.Text in the agent's context
//	}
//
// # Policy
//
// [Config] holds the controls the SEP leaves to clients:
//
//   - trust per server ([Trust]): an untrusted server's declarations are
//     ignored, and its context tools never called (it learns nothing of the
//     agent's events); a trusted server's required declarations fire as
//     important; only a fully trusted server's fire as required;
//   - approval: a callback asked once per declaration when its server is
//     added, where a host presents the declarations to its user;
//   - caps: declarations kept per server, declarations fired per event and
//     bytes of text per event (the last text that does not fit is cut at a
//     character boundary);
//   - a cooldown and a rate per declaration, on the host's clock;
//   - a timeout on every context_tool call, made through the server's own
//     session;
//   - an audit [Record] for every decision, at Add and at Fire.
//
// # Order
//
// Fire returns the texts strongest priority first; within a priority, in
// the order the servers were added, then in each server's order. The caps
// are applied in that order, so a suggestion never pushes out a required
// text.
//
// # Concurrency
//
// A [Hooks] is safe for concurrent use. Fire calls the context tools of one
// event concurrently and returns when all have answered or timed out.
package client
