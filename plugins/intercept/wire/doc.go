// Package wire holds the messages of SEP-2624, the MCP interceptors
// extension: the interceptor descriptor that interceptors/list returns, the
// parameters of interceptor/invoke and its two results (a validation and a
// mutation), the errors a host answers with, and event matching.
//
// hookflow follows the SEP's draft text titled "An Interceptor Primitive for
// Validating and Mutating Context Operations" (Extensions Track, the text of
// modelcontextprotocol/modelcontextprotocol pull request 2624), where it
// differs from older drafts:
//
//   - a descriptor lists hooks, each one phase and its events
//     ("hooks": [{"events": ["tools/call"], "phase": "request"}]), not one
//     "hook" with a phase of "both" (a descriptor in that older shape is
//     read as the hooks it stands for; hookflow writes "hooks");
//   - the modes are "active" and "audit" (older drafts said "enforce";
//     [ParseMode] reads it as active, and hookflow never writes it);
//   - the request-phase payload is the request's method and params
//     ({"method": "tools/call", "params": {…}}), as the SEP's invoke
//     example sends it, the response-phase payload the result; an invoker
//     may send the params alone ([ShapeParams]), as the working group's
//     fixtures and SDKs do;
//   - errors: -32602 for an unknown name, a hook the interceptor does not
//     advertise or bad params, -32603 for a failed execution, and
//     [CodeTimeout] (-32000) for a timed-out one, with error.data.reason
//     "timeout" (hookflow answered -32603 before it followed the text's
//     timeout section; an invoker reads the reason, not the code);
//   - the invoke method is "interceptor/invoke", as the text spells it; a
//     hookflow host also answers [MethodInvokePlural], the plural the
//     working group has under discussion;
//   - the capability is "io.modelcontextprotocol/interceptors" in the
//     extensions map of the server's capabilities.
//
// The SEP gives its shapes as TypeScript; [Schema] is those shapes as JSON
// Schema (draft 2020-12), which hookflow's tests validate every message
// against.
//
// # Types
//
// Every closed set of wire strings is a typed constant with a parser that
// refuses what the SEP does not define ([ParseType], [ParseMode],
// [ParsePhase]); unknown severities are kept, because the SEP routes them
// as "error" ([Severity.Blocks]).
package wire
