// Package doccheck keeps the Go snippets of README.md and docs/*.md equal to
// the compiled code they are copied from, and their relative links pointing
// at files that exist.
//
// A Go snippet is a fenced block opened by "```go" on the line right after a
// marker that names its source:
//
//	<!-- snippet: examples/weather/weather.go#GetWeather,GetWeather.RejectMoon -->
//
// The part before "#" is a .go file, relative to the module root. After it
// comes a comma-separated list of what to copy, joined by blank lines:
//
//	Name          a top-level func, type, var or const, with its doc comment
//	Type.Method   a method, with its doc comment
//	region:name   the lines between "// snippet:start name" and
//	              "// snippet:end name" comments, unindented
//
// Without "#" the block is the whole file. The sources are read with
// go/parser, so a selector that names nothing is an error, and the files are
// ordinary packages and tests that go vet and go test compile.
//
// The flow table of docs/flows.md, between the markers of package
// internal/flowtable, must equal the table flowtable renders from
// flows/table.go (`go generate ./flows` writes it).
//
// The layout block of docs/layout.md (the first fenced block after its
// "# Layout" heading) must name every package of the module that has
// non-test Go files, as go/packages lists them: a package is named by a
// row of its own ("path/  what it holds") or by its path below a row's
// directory as a word of that row ("plugins/  audit, auth, …" names
// plugins/audit). Each row's path must be a directory of the tree.
//
// The test fails when a block differs from its source, when a Go block has no
// marker, and when a relative link names a missing file. Run
//
//	go test ./internal/doccheck -update
//
// to rewrite every block from its source.
package doccheck
