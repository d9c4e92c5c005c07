// Package declare is hookgen's extension for //mcp:declare: SEP-2282 hook
// declarations of a tool (on its //mcp:tool type) or of the server (in the
// package clause's doc comment), returned by the generated DeclaredHooks
// for plugins/declared.
package declare

import (
	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext"
)

// Extension is the //mcp:declare extension of hookgen.
type Extension struct{ ext.Base }

// New returns the //mcp:declare extension.
func New() ext.Extension { return Extension{} }

// Name returns "declare".
func (Extension) Name() string { return "declare" }

// Directives returns the definition of //mcp:declare.
func (Extension) Directives() []directive.Def { return []directive.Def{def()} }
