package analyze

// Hook IDs, computed as the runtime computes them.

import (
	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
)

// EmbeddedID returns the runtime ID of an embedded hook of type typeName in
// the package whose reflect path is pkgPath.
func EmbeddedID(pkgPath, typeName string, h *HookDecl) string {
	return flows.HookID(pkgPath+"."+typeName, h.Flow, h.Stage, h.Name)
}

// ExternalID returns the runtime ID of an external hook function registered
// on the scope whose path is owner.
func ExternalID(owner string, h *HookDecl) string {
	return flows.HookID(owner, h.Flow, h.Stage, h.Name)
}

// PluginID returns the runtime ID of a hook of the plugin named plugin,
// attached to the scope whose path is owner.
func PluginID(owner, plugin string, h *HookDecl) string {
	return ExternalID(scope.ChildPath(owner, scope.KindPlugin, plugin), h)
}

// --- type predicates ---
