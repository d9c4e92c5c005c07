// Package policy is hookflow's rules plugin: who may see and call which
// tool, prompt or resource, decided by CEL expressions over the caller's
// token, the client, the entity and the call's arguments.
//
// # Rules
//
// A [Rule] has a When expression that selects what it governs (every
// entity when it is empty) and an Allow expression that must be true for
// the caller to see and call it. Rules are checked in order; the first
// that governs an entity and does not allow it denies, with its Message.
// Both are CEL (the Common Expression Language) over five variables:
//
//   - principal ([Principal]): user, authenticated, client_id, scopes;
//   - claims: the token's claims as its verifier decoded them, a map (a
//     JWT's payload, an introspection response, a static token's claims
//     key; empty without a token);
//   - client ([Client]): name, version, session, protocol;
//   - entity ([Entity]): kind ("tool", "prompt", "resource",
//     "template"), name, upstream (the gateway upstream it comes from),
//     title, description, annotations (a tool's hints, defaults filled
//     in), scopes;
//   - args: the call's arguments, a map, for tools/call and prompts/get.
//
// CEL's standard functions are there, with the strings, lists and sets
// extensions: `"finance" in claims.groups`,
// `entity.name.startsWith("ledger_")`,
// `sets.intersects(principal.scopes, ["admin", "ops"])`,
// `!args.path.startsWith("/etc")`.
//
// # Lists and calls
//
// A rule that does not read args decides visibility: the entity it
// denies is left out of tools/list (and the prompt, resource and template
// lists) for that caller — lists differ per caller, and are marked
// cacheScope "private" — and its call, get or read is refused by the
// plugin's beforeValidation hook "rules" with the rule's Message (a
// [*RuleError]: the model reads an isError result). With
// [Config.Conceal] it is hidden instead: the call fails as for a name the
// server does not know, and no flow runs.
//
// A rule that reads args cannot decide a list, which has no arguments: it
// decides calls and gets only, in the afterValidation hook "arguments",
// once the arguments are valid (a tool's with its schema's defaults), and
// refuses with its Message.
//
// # Failing closed
//
// An expression that fails as it runs — a claim the token does not have
// (write `has(claims.groups) && …` or `"groups" in claims && …` for an optional one), a value
// of another type, more work than the cost limit allows — denies, and is
// logged at warning level with the rule's name. Expressions are compiled
// once, when the plugin attaches; [Config.Validate] compiles them too, so
// that a configuration file's mistake is reported at its line with the
// place in the expression.
//
// # Order
//
// The hooks run at priority.Auth-10 by default: after the auth plugin has
// checked the token's scopes (a call without a needed scope is refused
// for that first), before rate limits, so that a refused call spends no
// budget.
//
// # Cost
//
// Each list asks every rule about every entity, and each call asks the
// rules about the call's entity: an evaluation builds the variables and
// runs the compiled programs (see docs/benchmarks.md for the measured
// cost). A server without the plugin pays nothing for it.
package policy
