// Package analyze turns a type-checked package's //mcp: and //hook:
// directives into a Package model for the generator, checking everything
// hookgen can check before the compiler does: that each directive sits on
// the right declaration, that entity types have the methods their kind needs,
// that hook methods and functions take the flow's typed context, and that
// names and hook IDs are unique. Every problem is a directive.Diagnostic at a
// precise position; Analyze reports them all.
package analyze
