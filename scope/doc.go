// Package scope holds hookflow's hook registry and dependency container.
//
// A [Scope] is a node of a tree: the server is the root, apps and plugins are
// children. All scopes of a tree share one registry, indexed by flow,
// flow+stage, owner and Go type ([Scope.FlowHooks], [Scope.FlowStageHooks],
// [Scope.FlowHooksForOwner], [Scope.TypeHooks]).
//
// # Which hooks run
//
// A hook is either external (registered by a scope: the server, an app or a
// plugin) or embedded (registered for a Go type: a tool, resource or prompt
// type, usually by hookgen-generated code). For an entity of type T that
// belongs to scope E, a flow runs:
//
//   - the external hooks of the flow whose owner covers E: the server's and
//     its plugins' hooks for every entity, an app's and its plugins' hooks for
//     that app's entities only ([Scope.Covers]);
//   - the embedded hooks of T for the flow.
//
// Flows that resolve no entity (the list flows and initialize) run the
// external hooks of every owner.
//
// The two sets are merged into one order: descending priority, and equal
// priorities in registration order, whoever registered them. There is no
// other rule.
//
// # Compiled plans
//
// [Scope.Plan] returns a [PlanRef] for a (flow, type, scope) target. Its
// [PlanRef.Load] returns a compiled [flows.Plan] that is built once per
// registry change and reused by every request: reads take no lock and
// allocate nothing. Registrations copy the registry and its indexes (copy on
// write), so register hooks in batches at start-up.
//
// # Dependencies
//
// Every scope has a dig container; a child's container sees its ancestors'
// providers. hookflow resolves entities and plugins through it once, at
// start-up, never per request.
package scope
