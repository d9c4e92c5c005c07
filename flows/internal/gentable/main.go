package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hookflow/hookflow/internal/flowtable"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := run(dir); err != nil {
		fmt.Fprintln(os.Stderr, "gentable:", err)
		os.Exit(1)
	}
}

// run writes table_gen.go in the flows package dir and the flow table of
// the module's docs/flows.md.
func run(dir string) error {
	t, err := flowtable.Read(dir)
	if err != nil {
		return err
	}
	code, err := t.Go()
	if err != nil {
		return err
	}
	if err := write(filepath.Join(dir, "table_gen.go"), code); err != nil {
		return err
	}
	docs := filepath.Join(dir, "..", "docs", "flows.md")
	old, err := os.ReadFile(docs)
	if err != nil {
		return err
	}
	doc, ok := flowtable.Splice(string(old), t.Markdown())
	if !ok {
		return fmt.Errorf("%s: no flow table markers (%s … %s)", docs, flowtable.BeginMarker, flowtable.EndMarker)
	}
	return write(docs, []byte(doc))
}

// write writes data to path unless the file already holds it.
func write(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return os.WriteFile(path, data, 0o644)
}
