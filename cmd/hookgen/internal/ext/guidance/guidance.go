// Package guidance is hookgen's extension for //mcp:guidance: guidance
// hooks (package plugins/guidance) of the tool, prompt or resource type the
// directive sits on, whose markdown content files the generated code
// embeds and HookflowGuidance returns.
package guidance

import (
	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/gen"
)

// Extension is the //mcp:guidance extension of hookgen.
type Extension struct{ ext.Base }

// New returns the //mcp:guidance extension.
func New() ext.Extension { return Extension{} }

// Name returns "guidance".
func (Extension) Name() string { return "guidance" }

// Directives returns the definition of //mcp:guidance.
func (Extension) Directives() []directive.Def { return []directive.Def{def()} }

// Place puts HookflowGuidance and its embedded files right after
// RegisterHookflow, before the plugins' functions.
func (Extension) Place() gen.Place { return gen.AfterRegister }
