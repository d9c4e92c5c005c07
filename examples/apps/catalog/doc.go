// Package catalog is the catalog app of examples/apps: product search and
// prices.
//
// Its tools are plain Go types declared with //mcp: directives; go generate
// writes hookgen_gen.go, whose RegisterHookflow adds them to the catalog app.
//
// Searching the catalog is read-only and idempotent, so the catalog app gets
// the cache plugin: a repeated search is answered early, without executing.
// Prices move: price has no such annotation, and the cache never answers it.
package catalog
