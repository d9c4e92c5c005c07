// Package interceptor is hookgen's extension for //hook:validator and
// //hook:mutator: functions served to other processes as SEP-2624
// interceptors (package plugins/intercept/host), returned by the generated
// HookflowInterceptors; and, for -explain -v, the positions where
// plugins/intercept runs remote interceptors.
package interceptor

import (
	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext"
)

// Extension is the interceptor extension of hookgen.
type Extension struct{ ext.Base }

// New returns the interceptor extension.
func New() ext.Extension { return Extension{} }

// Name returns "interceptor".
func (Extension) Name() string { return "interceptor" }

// Directives returns the definitions of //hook:validator and
// //hook:mutator.
func (Extension) Directives() []directive.Def { return defs() }
