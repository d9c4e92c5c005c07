// Command gentable writes flows/table_gen.go and the flow table of
// docs/flows.md from the flow table in flows/table.go (see package
// internal/flowtable). Run it with `go generate ./flows`.
package main
