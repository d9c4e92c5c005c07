// Package directive parses and validates hookgen's comment directives: the
// //mcp: and //hook: lines that declare MCP entities and hooks.
//
// The package works on one comment line at a time: the comment's text (as in
// [go/ast.Comment.Text], starting with "//") and the [token.Position] of its
// "//". It loads no packages, so it is cheap to test and fuzz; hookgen's loader
// feeds it the lines of Doc comments and decides which declaration each one
// sits on.
//
// # Grammar
//
// The grammar is written once. The directives, with their keys, kinds and
// targets, are the typed definitions of the [Registry] ([Default]): hookgen
// -list prints them with [Registry.List], and the directives block of
// docs/hookgen.md is [Registry.Synopsis] (a test keeps it so). The lexical
// rules (what a directive line is, bare words, quoted strings, integers,
// durations, lists) are section "Grammar" of docs/hookgen.md; [Parse]
// implements them.
//
// # Use
//
// [Parse] splits a line into a [Directive] and reports syntax errors; a
// [Registry] (from [New]) holds the typed definition ([Def]) of every
// directive and turns a Directive into a [Decoded] value (a [Tool],
// [Resource], [ResourceTemplate], [Prompt], [Plugin] or [Hook]) with
// [Registry.Decode]. A hookgen extension (package ext) adds its own
// definitions to [New]: their Build turns the checked [Fields] into its own
// Value, written back by [Canon]. [Registry.Lookalike] warns about near misses such as
// "// hook:beforeExecute" or "//hook:BeforeExecute", which Go does not treat
// as directives. [Registry.ParseComment] does all three for one line. The same
// registry renders hookgen -list with [Registry.List], so parsing, validation
// and help share one source.
//
// # Diagnostics
//
// Every problem is a [Diagnostic] with a position inside the comment: the
// column of the offending key, value or name, computed as the column of "//"
// plus the byte offset within the text. Columns count bytes, as go/token's do,
// so a tab or a multi-byte character before the token counts as its byte
// length. All errors of a line are reported, not only the first. Messages are
// lowercase, stable and quote the offending text, with a "did you mean" hint
// for near misses of directive names, keys, stages and flows:
//
//	a.go:12:22: unknown key "priorty" for //hook:beforeExecute (did you mean "priority"?)
//
// Other namespaces (//go:generate, //nolint:…, //export) are not hookgen's and
// are ignored silently.
package directive
