// Command hookgen turns hookflow's //mcp: and //hook: directives into typed
// registration code: one hookgen_gen.go per package, with a
// RegisterHookflow function, a <Type>Plugin function per //mcp:plugin type
// and a compile-time guard against stale output.
//
// Usage:
//
//	hookgen [flags] [packages]
//
// Run it with go generate, from a line in any file of the package:
//
//	//go:generate go tool hookgen
//
// (after go get -tool github.com/hookflow/hookflow/cmd/hookgen), or
//
//	//go:generate go run github.com/hookflow/hookflow/cmd/hookgen
//
// The packages default to ".". The flags are:
//
//	-check          write nothing; print a unified diff of every generated file
//	                that is stale and exit 1 if there is one
//	-list           print every directive with its keys and help, and exit
//	-explain <flow> print the ordered hook plan of the flow for each entity
//	                (with -v, also the registration order it assumes: hook
//	                functions in source order, files in file-name order)
//	-tags <list>    comma-separated build tags to load the packages with
//	                (hookgen adds its own tag, hookgen)
//	-v              print what was written and the time each phase took
//
// Exit status: 0 when all is well; 1 for directive errors, or stale output
// with -check; 2 for a usage error or packages that fail to load.
//
// Errors are printed as "file.go:line:col: message", the column on the
// offending token inside the comment, every error of the run at once.
package main
