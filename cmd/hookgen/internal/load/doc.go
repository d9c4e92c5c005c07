// Package load finds the packages hookgen works on and type-checks those that
// hold directives, as cheaply as go/packages allows.
//
// It loads in two passes with the same build flags (the user's tags plus
// "hookgen", so that a stale hookgen_gen.go, which is built only without that
// tag, never breaks a run):
//
//  1. NeedName|NeedFiles|NeedModule for every package the patterns match (a
//     go list without compiling anything), then a byte scan of each package's
//     files for lines that start a //hook: or //mcp: comment or a look-alike
//     of one ([Mentions]);
//  2. NeedName|NeedFiles|NeedSyntax|NeedTypes|NeedTypesInfo, without
//     NeedImports or NeedDeps, for the packages the scan kept: their
//     dependencies' types come from export data in the build cache.
package load
