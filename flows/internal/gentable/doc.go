// Command gentable writes flows/table_gen.go from the flow table in
// flows/table.go: the ID constants, Count, ID.Index and the method switch.
// It reads table.go with go/parser rather than importing package flows, so
// it runs even while a new row has made the package fail to compile. Run it
// with `go generate ./flows`.
package main
