// Package host serves interceptors written in Go to other processes, as the
// MCP interceptors extension (SEP-2624) defines them: a validator inspects
// a payload and returns a verdict, a mutator returns a replacement payload,
// and invokers (hookflow's plugins/intercept, or any SEP-2624 invoker)
// discover them with interceptors/list and call them with
// interceptor/invoke.
//
// # A remote hook in one call
//
//	policy := host.Validator(host.Spec{Name: "policy", Events: []string{"tools/call"}},
//		func(ctx context.Context, inv *host.Invocation) (host.Verdict, error) {
//			if strings.Contains(string(inv.Params()), "rm -rf") {
//				return host.Deny("destructive command"), nil
//			}
//			return host.Allow(), nil
//		})
//	h, err := host.Handler(host.Config{Interceptors: []host.Interceptor{policy}}, host.Serve{Verify: host.Token(secret)})
//
// [Handler] builds a hookflow server whose only business is the
// interceptors, behind bearer tokens (the MCP SDK's bearer middleware; a
// request without a valid token gets 401, and the Authorization header
// goes no further). To serve interceptors from a server that has
// other business, attach the [Plugin] with Use; over stdio, run that
// server with framework.Server.Run; in the invoker's own process,
// [InMemory] connects to that server without a socket. hookgen generates
// the list of a package's interceptors from //hook:validator and
// //hook:mutator directives (`hookgen -list`).
//
// # What the host answers
//
// interceptors/list returns the descriptors in the order they were added,
// filtered by the event parameter when there is one (a pattern such as "*"
// is refused with -32602, as the SEP says). interceptor/invoke (answered
// under interceptors/invoke too, the plural the working group has under
// discussion):
//
//   - an unknown name: -32602, data {"name"};
//   - an event and phase the interceptor does not advertise: -32602, data
//     with its advertised hooks;
//   - malformed params, or a config its ConfigSchema refuses: -32602;
//   - a function that returns an error or panics: -32603 (a failure is
//     never a verdict; panics are logged, their value never sent);
//   - past timeoutMs (or [Config.Timeout] when the invoker sets none): the
//     function's context is cancelled and the answer is -32000 (the code
//     the SEP's text requires of a timeout) with reason "timeout", whether
//     or not the function has returned;
//   - otherwise the ValidationResult or MutationResult, which echoes the
//     interceptor's name, type and the phase and carries durationMs. A
//     mutator that leaves the payload unchanged answers with the payload
//     it was given.
//
// The host declares the extension at initialize, in the extensions map of
// its capabilities, with the events its interceptors support.
//
// # How custom methods are served
//
// The MCP Go SDK refuses methods it does not know before any middleware
// runs; its public mcp.AddReceivingCustomMethod registers a handler for a
// method outside MCP, which then goes through the server's middleware like
// any other. The plugin registers its two methods with it at Attach.
//
// # Concurrency
//
// Invocations run concurrently; interceptor functions must be safe for
// concurrent use and should watch their context, which is cancelled at the
// invocation's timeout.
package host
