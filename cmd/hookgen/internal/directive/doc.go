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
//	//mcp:tool name=get_weather [title="…"] [description="…"] [readonly] [destructive] [idempotent] [openworld] [scopes=read,write] [inputschema=ident] [outputschema=ident]
//	//mcp:resource uri=test://static-text [name=…] [title=…] [description=…] [mime=text/plain]
//	//mcp:resource-template uri="test://template/{id}/data" [name=…] [title=…] [description=…] [mime=…]
//	//mcp:prompt name=review_code [title=…] [description=…] [args=code,language?]
//	//mcp:arg name=code [title=…] [description=…] [optional]
//	//mcp:plugin name=audit
//	//mcp:declare event=post_tool_use [toolname=Bash] [inputcontains="git commit"] [toolserver=…] [context=…] [contexttool=…] [contextargs=…] [priority=suggestion]
//	//hook:<stage> [flow=<flow-id>] [priority=<priority>] [name=<word>]
//	//hook:validator events=tools/call,… [name=…] [phase=request|response|both] [audit] [failopen] [description=…] [version=…]
//	//hook:mutator events=… [name=…] [phase=…] [priorityhint=<int>] [audit] [failopen] [description=…] [version=…]
//
// A directive is "//" immediately followed by a namespace hookflow owns ("mcp"
// or "hook"), a colon, a name that starts with a lowercase letter or a digit,
// and whitespace-separated arguments. These are exactly the lines go/ast treats
// as directives, so godoc hides them. An argument is key=value or a lone flag
// word. A value is a bare word (it runs to the next space or tab and may hold
// ":", "/", "{", "}", "," and "."), or a Go-quoted string ("…" with escapes, or
// `raw`) decoded with [strconv.Unquote]. Integers follow Go's literal syntax
// ([strconv.ParseInt] with base 0: signs, 0x, 0o, 0b and underscores) and must
// fit in an int32. A list is one bare value with comma-separated elements.
// Only string keys accept quoted values: an integer, word, flow or list is
// always bare, so there is exactly one way to write each value.
//
// # Use
//
// [Parse] splits a line into a [Directive] and reports syntax errors; a
// [Registry] (from [Default]) holds the typed definition ([Def]) of every
// directive and turns a Directive into a [Decoded] value (a [Tool],
// [Resource], [ResourceTemplate], [Prompt], [Plugin] or [Hook]) with
// [Registry.Decode], or an [InterceptorDirective] for //hook:validator and
// //hook:mutator, which declare SEP-2624 interceptors a host serves rather
// than hooks of this server. [Registry.Lookalike] warns about near misses such as
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
