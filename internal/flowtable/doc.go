// Package flowtable reads the flow table of package flows (flows/table.go)
// and writes what is derived from it: flows/table_gen.go (the ID
// constants, Count, ID.Index, the method dispatch, the ViewKind constants,
// each typed view's spec and ID.IsResult) and the flow table of
// docs/flows.md.
//
// It reads the package's sources with go/parser rather than importing
// package flows, so it runs even while a new row has made the package fail
// to compile. The command flows/internal/gentable (`go generate ./flows`)
// writes both outputs; internal/doccheck fails when the docs table is
// stale.
package flowtable
