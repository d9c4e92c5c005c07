// Package stages defines the six stages of a hookflow flow run.
//
// Every MCP request that hookflow serves runs as a flow, and every flow runs
// the same stages in the same order:
//
//	beforeValidation → (validate) → afterValidation → beforeExecute → (execute) → afterExecute → finally
//
// onError runs between a failure and finally whenever anything before finally
// fails. A [Stage] is a small typed constant; its [Stage.String] form is the
// name used in //hook: directives, and [Parse] is the strict inverse that
// hookgen and the runtime share, so stage names have one source of truth.
//
// # Status
//
// The stage set is closed: hookflow adds no stage in its 1.x series.
package stages
