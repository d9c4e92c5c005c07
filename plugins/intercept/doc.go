// Package intercept runs remote interceptors in hookflow's flows: the
// validators and mutators of SEP-2624 (the MCP interceptors extension),
// served by other processes over streamable HTTP or stdio, discovered with
// interceptors/list and invoked one at a time with interceptor/invoke.
// Package host serves interceptors written in Go; package wire holds the
// messages and the SEP revision hookflow follows.
//
//	p := intercept.New(intercept.Config{
//		Servers: []intercept.Server{
//			{Name: "guard", URL: "https://guard.internal/mcp", Token: os.Getenv("GUARD_TOKEN")},
//			{Name: "pii", Command: []string{"/usr/local/bin/pii-interceptors"}},
//		},
//	})
//	defer p.Close()
//	srv.Use(auditPlugin, p) // each invocation's decision in the run's audit event
//
// # Start
//
// When the server starts, the plugin connects to every host (a Command is
// started, with no shell), lists its interceptors, applies [Config.Policy]
// and registers one hook per interceptor in every flow and phase it
// applies to. A host it cannot reach or list, a bearer token the host
// refuses, or a policy that names an interceptor no host lists (with a
// did-you-mean) stops the server from starting: it does not run without the
// governance it was configured with. A descriptor the SEP does not define
// (an unknown type or mode) is skipped and logged, as the SEP requires.
// A host whose initialize result declares tools, prompts or resources is
// used, with a warning: the working group decided an interceptor server
// should not also serve them.
//
// # Events
//
// An interceptor hooks events (MCP method names, "*", or a namespace such
// as "tools/*") in a phase. The plugin maps the events onto the flow
// table: the event of a flow is its MCP method ([Event]), so a flow added
// to the table is mapped by its method, and the phases onto stages
// ([Where]):
//
//	request phase    beforeExecute, at priority.InterceptRequest (after auth and rate limits, before your hooks)
//	response phase   afterExecute,  at priority.InterceptResponse (after your hooks rewrote the result)
//
// Only flows whose method is a context operation in the SEP's sense have
// events: tools/list, tools/call, prompts/list, prompts/get,
// resources/list, resources/templates/list, resources/read,
// resources/subscribe, sampling/createMessage, elicitation/create,
// roots/list. initialize, ping and notifications are the SEP's negative
// space (not even "*" matches them), and the SEP leaves completion/complete,
// resources/unsubscribe and logging/setLevel out on purpose; their flows
// run no interceptors. The requests a server sends its client
// (sampling/createMessage, elicitation/create, roots/list: flows hookflow
// runs when it relays them) are governed like the others: hookflow
// receives the request and sends the result.
//
// The payload an interceptor gets is the SEP's: on a request, the method
// and params ({"method": "tools/call", "params": {"name": …, "arguments":
// …}}, the arguments as validated and as hooks of higher priority left
// them); on a response, the result (a tool's typed output as the result
// hookflow sends: structuredContent and its JSON text). A run that fails
// has no result for them: the SEP governs success results only, and the
// isError result of a failed tool call is made after the response phase.
// The SEP's invoke example sends a request as its method and params,
// while the working group's fixtures and SDKs send and read the params
// alone (payload.arguments); the SEP types the payload as the value under
// governance, so both are allowed. hookflow sends the method and params,
// which name the operation on their own, and a host's
// [Server.Payload] "params" sends it the params alone, for interceptors
// written with the working group's SDKs (a mutator's params are put back
// under the method). Package host reads both.
//
// Every invocation carries the SEP's invocation context: the principal the
// request runs for (the bearer token's user, else anonymous; its claims
// are not sent), the trace, the MCP session and the invoker's clock. When
// the run's Go context carries an OpenTelemetry span (the otel plugin's
// run span), traceId and spanId are its W3C IDs, so that a host that
// traces joins the run's trace; otherwise traceId is the request ID
// hookflow minted (the audit event's request_id) and there is no spanId.
// sessionId is the SHA-256, in hex, of the transport's session ID (the
// audit event's session_id; see [SessionRef]): a host correlates the
// invocations of a session without getting an ID that could open it.
// stdio, in-memory transports and stateless HTTP have none, and it is
// left out.
//
// # Order and chain semantics
//
// Per flow and phase the interceptors form two passes, ordered by the
// [Direction] in which the data crosses the trust boundary
// ([DirectionOf]): what hookflow receives is validated, then mutated;
// what it sends is mutated, then validated. A client's request
// (tools/call, resources/read, …) is received and its result sent; a
// request hookflow sends its client (sampling/createMessage,
// elicitation/create, roots/list) is sent, and the client's result
// received. The sending side ([Chain]) runs the same rules the other way
// round.
//
//   - Validators run at the same time, all of them (a blocking verdict does
//     not cut the pass short), on the same payload. Only valid: false with
//     severity "error" blocks; an omitted severity, or one the SEP does not
//     define, counts as "error"; "warn" and "info" do not block.
//   - Mutators run one after another, each on the payload the previous one
//     left. Their order is the SEP's: ascending priorityHint for the phase,
//     then name by Unicode code points, then the host's place in
//     Config.Servers. hookflow priorities run the other way (descending),
//     so the plugin does not turn hints into priorities: it sorts the
//     mutators itself (one function, compareMutators) and registers their
//     hooks in that order at the phase's one priority, and hooks of equal
//     priority run in registration order.
//   - A mutation pass is atomic: the run's input (or output) is replaced
//     once, after the last mutator; a mutator that fails closed blocks the
//     run and nothing of the pass reaches the tool or the client.
//   - An interceptor in audit mode never blocks and never changes the
//     payload: its result (for a mutator, the shadow mutation) is recorded.
//   - An interceptor's compat range excludes it from requests of protocol
//     versions outside it.
//
// The hooks are named "<server>:<interceptor>"; [Plugin.Plan] lists them
// in run order, flow by flow.
//
// # Failures
//
// A failed invocation — the host crashed or is unreachable, the invocation
// timed out (the host is asked to stop at the timeout with timeoutMs, and
// the plugin waits a little longer), the host answered with an error, or
// the answer is malformed (it does not echo the interceptor, its type and
// the phase; a change that does not fit the run, such as a tool call
// renamed; modified false with a payload that differs) — is routed by the
// interceptor's effective failOpen: false (the default) blocks, true lets
// the run go on without it. An audit-mode interceptor's failure is only
// recorded. A host whose session ended is connected again (its command
// restarted) on the next invocation, at most once per Config.RetryAfter;
// until then its invocations fail. An invocation that fails with the
// session (the host restarted and lost it, the connection broke) is sent
// once more on a new session when the failed one was not itself new: an
// interceptor decides from the payload alone, so a host's restart costs a
// reconnection, not a blocked call. A host that leaves an invocation
// unanswered past the interceptor's timeout (it hangs, its machine is
// gone) is stalled: its invocations fail at once, by their failOpen,
// instead of each waiting for its timeout, while the plugin pings it every
// RetryAfter (connecting again if it must, within ConnectTimeout); the
// first answer ends the stall. A host's own timeout error (it stopped at
// timeoutMs) is an answer, and stalls nothing.
//
// # What the client and the operator see
//
// A blocked run fails with a [*BlockedError]: for tools/call the model
// reads an isError result, for other flows the client gets a protocol
// error (framework.CodeRefused). Its text says only that an interceptor
// blocked the request or the result: the SEP advises against copying
// interceptors' findings across the trust boundary; [Config.Explain] adds
// the interceptor and its messages. The run's DecidedBy (the audit event's
// decided_by) is the ID of the interceptor's hook, and every invocation is
// a decision recorded on the run (flows.Context.Decide), which an audit
// plugin on the same server puts in the run's event: the interceptor,
// what it decided on ("validation request"), its [Outcome], its duration
// and its reason (messages, the failure, or for audit mode what it would
// have done). Failures are logged.
//
// # The sending side
//
// [Chain] runs the same interceptors where a Go host sends requests: an
// agent, or a gateway calling its upstreams, built on the go-sdk client.
// [NewChain] takes the same [Config] (hosts over HTTP or stdio, or in
// process with [Server.Transport] and host.InMemory; policy, timeouts,
// failOpen, audit mode, the mutators' order) and runs the same
// invocations; its middleware says the direction:
//
//	ch, err := intercept.NewChain(ctx, intercept.Config{Servers: servers, Decisions: record})
//	client := mcp.NewClient(impl, nil)
//	client.AddSendingMiddleware(ch.SendingMiddleware())     // requests sent: mutate, validate; results received: validate, mutate
//	client.AddReceivingMiddleware(ch.ReceivingMiddleware()) // sampling, elicitation, roots received: validate, mutate; answers sent: mutate, validate
//
// A blocked request is not sent, and the caller's method (CallTool…)
// returns the [*BlockedError]; a blocked result is not returned. The
// mutated request replaces the one the SDK sends, not the caller's
// params. Each decision goes to [Config.Decisions]. [Chain.Run] runs one
// pass on a payload, with the direction explicit.
//
// Which side runs which interceptors: each side governs what crosses its
// own boundary. A sender runs the interceptors that keep what it must not
// send from leaving (its secrets, calls it must never make), and they see
// the request as it will go out; a receiver runs the interceptors that
// keep it from acting on what it must not accept, and they see what the
// other side sent.
//
// # Invoker policy
//
// [Policy] is the SEP's invoker policy: per interceptor, the deployment
// may disable it, set its mode, failOpen, priority hint, timeout and
// config, and narrow (never widen) its hooks.
//
// # Configuration files
//
// [Config] is also the plugin's section of a configuration file, such as
// the gateway's; its fields' doc comments are the reference. A file names
// a policy's interceptor as "host:interceptor" ([Policy.ID]) and a host's
// token by environment variable ([Server.TokenEnv]):
//
//	intercept:
//	  servers:
//	    - {name: guard, url: https://guard.internal/mcp, token_env: GUARD_TOKEN}
//	  policy:
//	    - {interceptor: guard:no-destructive-commands, mode: audit, priority_hint: 10}
//
// [Config.Validate] reports each mistake at its path in the file
// ("policy[0].mode").
//
// # Not done
//
// The list of interceptors is taken at start: a host's
// notifications/interceptors/list_changed is not defined by the SEP yet.
// There is no aggregate deadline over a pass beyond each invocation's
// timeout; bound whole tool calls with framework.Options.ToolTimeout.
package intercept
