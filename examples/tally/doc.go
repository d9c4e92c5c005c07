// Package tally is a plugin written with directives rather than with a
// Config and an Attach method: //mcp:plugin on its type and //hook: on
// its methods, from which hookgen generates the constructor
//
//	func TallyPlugin(p *Tally) framework.Plugin
//
// in hookgen_gen.go: the type's name followed by Plugin, exported when the
// type is, returning a framework.Plugin named after the directive's name=
// whose hooks are p's methods, each at the stage, flow and priority its
// directive gives ([TallyPlugin]). The
// plugin counts each tool's calls, and those that failed, in finally at
// priority last, after every other hook of the stage.
//
// Run go generate in this directory after changing a directive; the
// repository's CI checks the generated file is fresh (hookgen -check).
package tally
